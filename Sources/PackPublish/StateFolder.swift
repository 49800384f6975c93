import PackModel

/// The publisher's state folder (`--state`): roots, the ledger and the archives it keeps.
enum StateFolder {
    /// Refuses a state path that names something other than a folder, before anything is read from or made under
    /// it — otherwise a file given by mistake surfaces as "no root" or a system error about a path inside it.
    static func check(_ state: String) throws {
        if FileSystem.exists(state) && !FileSystem.isDirectory(state) {
            throw PublishError.io("\(state): not a folder; --state names the publisher's state folder")
        }
    }
}
