// Must NOT compile: the label is `withName:`.
// control: (named: => (withName:
import UIKit
@MainActor func f() { _ = UIApplication.shared.beginBackgroundTask(named: "x") {} }
