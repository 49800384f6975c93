// Must NOT compile: the fcntl command is F_FULLFSYNC.
// control: F_FULLSYNC => F_FULLFSYNC
import Darwin
func f(_ fd: Int32) -> Int32 { fcntl(fd, F_FULLSYNC) }
