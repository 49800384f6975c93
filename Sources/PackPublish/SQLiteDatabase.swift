import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

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
