#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel
import PackSigning

/// The publisher's record of access codes (SQLite, `<state>/grants.sqlite`): every grant issued with `--state`, and
/// every id revoked with the revocation list version that first carried it. `grant revoke` resolves ids against it
/// and `grant list` reports from it; the signed lists in `<state>/revocations/` stay what clients trust.
public final class GrantLedger {
    public static let fileName = "grants.sqlite"

    /// One issued grant, as recorded when it was signed.
    public struct Grant: Equatable, Sendable {
        public var id: String
        public var products: [String]
        public var notBefore: String
        public var notAfter: String
        public var device: String?
        public var note: String
        public var issued: String
        /// The code as handed out (`PTG1.…`), so support can re-send it.
        public var code: String

        public init(_ document: GrantDocument, code: String) {
            id = document.id
            products = document.products
            notBefore = document.notBefore
            notAfter = document.notAfter
            device = document.device
            note = document.note
            issued = document.issued
            self.code = code
        }
    }

    /// One revoked id (issued here or not), with the list version that first carried it.
    public struct Revocation: Equatable, Sendable {
        public var id: String
        public var reason: String
        public var revoked: String
        public var listVersion: Int
    }

    let database: SQLiteDatabase
    public let state: URL

    /// Opens (creating the folder and the file when missing) the grant ledger in `state`.
    public init(state: URL) throws {
        self.state = state
        try StateFolder.check(state.path)
        do {
            do { try FileSystem.makeFolders(state.path) } catch { throw PublishError.io("\(error)") }
            database = try SQLiteDatabase(path: state.appendingPathComponent(Self.fileName).path, create: true)
            try database.execute("""
                CREATE TABLE IF NOT EXISTS grants (
                  id TEXT PRIMARY KEY, products TEXT NOT NULL, not_before TEXT NOT NULL, not_after TEXT NOT NULL,
                  device TEXT, note TEXT NOT NULL, issued TEXT NOT NULL, code TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS revocations (
                  id TEXT PRIMARY KEY, reason TEXT NOT NULL, revoked TEXT NOT NULL, list_version INTEGER NOT NULL);
                """)
        } catch let e as SQLiteDatabase.Failure {
            throw PublishError.io(e.message)
        }
    }

    /// Whether `state` holds a grant ledger (without creating one).
    public static func exists(in state: URL) -> Bool { FileSystem.exists(state.appendingPathComponent(fileName).path) }

    /// Records an issued grant. The id is random, so a second record of the same id is a mistake and refused.
    public func record(_ grant: GrantDocument, code: String) throws {
        let products = String(decoding: try CanonicalJSON.encode(grant.products), as: UTF8.self)
        do {
            try database.query("INSERT INTO grants (id, products, not_before, not_after, device, note, issued, code) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                               [.text(grant.id), .text(products), .text(grant.notBefore), .text(grant.notAfter), grant.device.map { .text($0) } ?? .null,
                                .text(grant.note), .text(grant.issued), .text(code)])
        } catch let e as SQLiteDatabase.Failure {
            throw PublishError.io("cannot record grant \(grant.id): \(e.message)")
        }
    }

    /// Every issued grant, oldest first.
    public func grants() throws -> [Grant] {
        try database.query("SELECT id, products, not_before, not_after, device, note, issued, code FROM grants ORDER BY issued, id").map { r in
            let products = (try? JSONDecoder().decode([String].self, from: Data((r[1].text ?? "[]").utf8))) ?? []
            return Grant(GrantDocument(id: r[0].text ?? "", products: products, notBefore: r[2].text ?? "", notAfter: r[3].text ?? "",
                                       issued: r[6].text ?? "", note: r[5].text ?? "", device: r[4].text), code: r[7].text ?? "")
        }
    }

    /// Every revoked id, in the order revoked.
    public func revocations() throws -> [Revocation] {
        try database.query("SELECT id, reason, revoked, list_version FROM revocations ORDER BY list_version, id").map { r in
            Revocation(id: r[0].text ?? "", reason: r[1].text ?? "", revoked: r[2].text ?? "", listVersion: Int(r[3].int ?? 0))
        }
    }

    /// The issued grant `id` names: its whole id, or a prefix only one id starts with, compared in canonical form. Nil
    /// when none does; an ambiguous prefix is an error naming the candidates.
    public func grant(matching id: GrantID) throws -> Grant? {
        let all = try grants()
        if let exact = all.first(where: { GrantID.canonical($0.id) == id.text }) { return exact }
        let candidates = all.filter { GrantID.canonical($0.id).hasPrefix(id.text) }
        guard candidates.count <= 1 else {
            throw PublishError.trust("\"\(id)\" is the start of \(candidates.count) grant ids (\(candidates.map { String($0.id.prefix(12)) + "…" }.joined(separator: ", "))); give more of the id")
        }
        return candidates.first
    }

    /// Runs `body` in one write transaction: a revocation's list file and its ledger row are made together.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        do { return try database.transaction(body) } catch let e as SQLiteDatabase.Failure { throw PublishError.io(e.message) }
    }

    func recordRevocation(_ entry: RevocationsDocument.Entry, listVersion: Int) throws {
        do {
            try database.query("INSERT OR IGNORE INTO revocations (id, reason, revoked, list_version) VALUES (?, ?, ?, ?)",
                               [.text(entry.id), .text(entry.reason), .text(entry.revoked), .int(Int64(listVersion))])
        } catch let e as SQLiteDatabase.Failure {
            throw PublishError.io("cannot record the revocation of \(entry.id): \(e.message)")
        }
    }
}
