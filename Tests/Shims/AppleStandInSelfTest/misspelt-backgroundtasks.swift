// Must NOT compile: BGTask's method is `setTaskCompleted(success:)`.
// control: setTaskComplete( => setTaskCompleted(
import BackgroundTasks
func f(_ task: BGTask) { task.setTaskComplete(success: true) }
