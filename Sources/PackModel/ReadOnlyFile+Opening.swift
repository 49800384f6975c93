/// Opening a `ReadOnlyFile` by path, with the model's error: the file type lives in PackFiles (the rooted layer hands
/// them out), the error a path-opener throws is PackModel's.
extension ReadOnlyFile {
    /// Opens `path`, which must be a regular file; the error names the path and the system's reason. The open does
    /// not wait (O_NONBLOCK): opening a FIFO for reading would otherwise block until a writer appears, and a FIFO is
    /// refused as not a regular file anyway. On regular files the flag changes nothing.
    public convenience init(opening path: String) throws {
        let opened: (fd: Int32, size: UInt64)
        do { opened = try RegularFile.openForReading(path, path: path) } catch let error as FileError {
            throw ModelError(file: error.path, message: error.message)
        }
        self.init(fd: opened.fd, size: opened.size)
    }
}
