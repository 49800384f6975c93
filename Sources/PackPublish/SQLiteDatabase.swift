import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackModel

/// A SQLite connection: owns the `sqlite3*` handle, turns return codes into errors in one place, and binds values
/// only through prepared statements.
final class SQLiteDatabase {
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    enum Value: Equatable {
        case int(Int64)
        case text(String)
        case blob([UInt8])
        case null
    }

    private let handle: OpaquePointer
    let path: String

    /// Opens (creating when asked) the database in WAL mode with foreign keys on and a busy timeout.
    init(path: String, create: Bool) throws {
        if path != ":memory:" { try Self.checkFiles(path) }
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw Failure(message: "\(path): \(message)")
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, 5000)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA foreign_keys=ON")
        try execute("PRAGMA synchronous=FULL")
        // The ledger is small; a 1 MiB page cache keeps packtool's memory flat.
        try execute("PRAGMA cache_size=-1024")
    }

    deinit { sqlite3_close(handle) }

    /// The names SQLite opens beside a database (`-wal`, `-shm`, `-journal`), which it creates, writes and truncates
    /// by path — through a hard link or a link as readily as through its own file, and even for a read-only check.
    static let sideSuffixes = ["-wal", "-shm", "-journal"]

    /// Before SQLite opens anything: the database at `path` and its side files, looked at beneath a handle of their
    /// folder without following a link, must each be absent or a regular file with one name. A symbolic link or a
    /// second name of another file (a hard link planted there) would have SQLite write into a file outside the state
    /// folder; it is refused (`PublishError.io` naming it), and left as it is.
    static func checkFiles(_ path: String) throws {
        let url = URL(fileURLWithPath: path)
        // The state folder itself is the user's choice (a link at its name is followed); a missing one is SQLite's error.
        guard let folder = try? RootedFolder(opening: url.deletingLastPathComponent().path, followingLinkAtRoot: true) else { return }
        for name in [url.lastPathComponent] + sideSuffixes.map({ url.lastPathComponent + $0 }) {
            guard let info = folder.status(name) else { continue }
            let problem: String? =
                info.st_mode & S_IFMT != S_IFREG ? "is \(RegularFile.kind(info.st_mode)), not a regular file"
                : info.st_nlink != 1 ? "has \(info.st_nlink) names (a hard link to another file)"
                : nil
            if let problem {
                throw PublishError.io("\(folder.fullPath(name)): \(problem); SQLite would write through it into a file outside the state folder. "
                    + "Nothing was opened. Remove that name (`rm`; it is not this state's data\(name == url.lastPathComponent ? " unless you linked the database there yourself: then copy it in place of the link" : "")) and run the command again")
            }
        }
    }

    private func check(_ code: Int32, _ what: String) throws {
        guard code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW else {
            throw Failure(message: "\(path): \(what): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    /// Runs a statement with parameters and returns every row.
    @discardableResult
    func query(_ sql: String, _ parameters: [Value] = []) throws -> [[Value]] {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql)
        defer { sqlite3_finalize(statement) }
        for (i, value) in parameters.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .int(let v): try check(sqlite3_bind_int64(statement, index, v), sql)
            case .text(let v): try check(sqlite3_bind_text(statement, index, v, -1, CSQLite_transient()), sql)
            case .blob(let v): try check(v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), CSQLite_transient()) }, sql)
            case .null: try check(sqlite3_bind_null(statement, index), sql)
            }
        }
        var rows: [[Value]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            try check(code, sql)
            var row: [Value] = []
            for c in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, c) {
                case SQLITE_INTEGER: row.append(.int(sqlite3_column_int64(statement, c)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, c))))
                case SQLITE_BLOB:
                    let n = Int(sqlite3_column_bytes(statement, c))
                    let p = sqlite3_column_blob(statement, c)
                    row.append(.blob(p.map { Array(UnsafeRawBufferPointer(start: $0, count: n)) } ?? []))
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Runs `body` in an IMMEDIATE transaction; rolls back if it throws or the commit fails.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

extension SQLiteDatabase.Value {
    var int: Int64? { if case .int(let v) = self { return v } else { return nil } }
    var text: String? { if case .text(let v) = self { return v } else { return nil } }
    var blob: [UInt8]? { if case .blob(let v) = self { return v } else { return nil } }
}
