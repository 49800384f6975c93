// Must NOT compile: BGTaskScheduler.Error.Code is an imported error enum Apple may extend; a switch needs a default.
// control: case .notPermitted: return "not permitted" => case .notPermitted: return "not permitted"; default: return "other"
import BackgroundTasks
func f(_ code: BGTaskScheduler.Error.Code) -> String {
    switch code {
    case .unavailable: return "unavailable"
    case .tooManyPendingTaskRequests: return "too many"
    case .notPermitted: return "not permitted"
    }
}
