// Must NOT compile in Swift 6: UIApplication.shared is main-actor isolated.
// control: nonisolated func => @MainActor func
import UIKit
nonisolated func f() -> UIApplication { UIApplication.shared }
