// Must NOT compile: Apple's property is `sessionSendsLaunchEvents` (plural).
// control: sessionSendsLaunchEvent = => sessionSendsLaunchEvents =
import Darwin
import Foundation
func f(_ c: URLSessionConfiguration) { c.sessionSendsLaunchEvent = true }
