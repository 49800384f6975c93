#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackCrypto
import PackModel
import PackPublish

/// `packtool grant revoke` and `packtool grant list`: withdraw an access code through a signed revocation list, and
/// show every code the state's grant ledger knows with its status. `GrantCommand` dispatches here.
enum GrantRevokeCommand {
    static let help = """

        usage: packtool grant revoke ID --reason TEXT --state DIR --grant-key GRANT.pem... [--unknown-id]
               packtool grant resign --state DIR --grant-key NEW-GRANT.pem...
               packtool grant list --state DIR [--format text|json]
               packtool grant revoke … [--format text|json]

        revoke signs the next revocation list (every code revoked before, plus ID with its reason) with the grant
        role's key and writes it once to DIR/revocations/<N>.json; publish it with `packtool renew`, which copies the
        newest list into the tree and binds it in the index. Apps that update refuse the code from then on, showing
        the reason. ID is a grant id or the start of one in DIR's grant ledger (codes issued with --state are
        recorded there); an id the ledger does not know (a code issued without --state) needs --unknown-id.
        Revoking a revoked code again changes nothing.
          packtool grant revoke 1a2b3c4d --reason "lost at the museum desk" --state pub --grant-key keys/grant.pem

        resign signs the state's newest revocation list again, under the grant key of the state's newest root, as the
        next version with the same entries. Run it after rotating the grant role (a stolen grant key) when the
        rotation was not given the new private key: clients that follow the new root refuse a list the retired key
        signed, and every update would fail. Then publish with renew, as after revoke.
          packtool grant resign --state pub --grant-key new-keys/grant.pem

        list prints every grant in the ledger (id, products, window, device, note) with its status: active, not yet
        valid, expired or revoked (with the reason), then revoked ids the ledger did not issue.
          packtool grant list --state pub --format json

        """

    /// `grant revoke ID …`
    static func revoke(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: GrantCommand.options, subcommand: "revoke")
        guard a.positionals.count == 1 else { throw CommandLineError.usage("expected `grant revoke ID` with one grant id") }
        let text = a.positionals[0]
        // Parsed once (`GrantID`): `4AC2-380E` and `4ac2380e` are the same grant, and the list carries the canonical form.
        guard let typed = GrantID(text) else {
            throw CommandLineError.usage("\"\(text)\" is not a grant id: hexadecimal digits (0-9, a-f; capitals, dashes and spaces are ignored), up to \(GrantID.maxDigits)")
        }
        let reason = String(try a.required("--reason").drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !reason.isEmpty, reason.count <= 500, !reason.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw CommandLineError.usage("--reason must be one line of 1 to 500 printable characters (it is shown to the visitor)")
        }
        let state = URL(fileURLWithPath: try a.required("--state"))
        let keyPaths = a.values("--grant-key")
        guard !keyPaths.isEmpty else { throw CommandLineError.usage("give the grant role's private key with --grant-key") }
        let keys = try SigningKeys.privateKeys(keyPaths, role: RootDocument.Role.grant, a)
        let json = try OutputFormat.json(a)
        do {
            let store = RevocationStore(state: state)
            // Keys first: a refused key leaves the state folder without even an empty ledger.
            try store.checkSigningKeys(keys)
            let known = GrantLedger.exists(in: state) ? try GrantLedger(state: state).grant(matching: typed) : nil
            let id: GrantID
            if let grant = known, let recorded = GrantID(grant.id) {
                id = recorded
            } else if try store.latest()?.document.reason(for: typed.text) != nil {
                id = typed
            } else if a.flag("--unknown-id") {
                guard typed.isWhole else {
                    throw CommandLineError.usage("\(text) is \(typed.text.count) hex digits; a whole grant id has 8 (a short code) or 32 (a long one), "
                        + "and clients compare whole ids, so a part of one would revoke nothing: give the whole id")
                }
                id = typed
            } else {
                throw CommandLineError.failure("\(text) is not a grant id in \(ShownPath.of(state))'s grant ledger; codes issued without --state are not "
                    + "recorded there: check the whole id (from the code or the app) and pass --unknown-id to revoke it anyway")
            }
            switch try store.revoke(id: id, reason: reason, keys: keys, ledger: try GrantLedger(state: state)) {
            case .alreadyRevoked(let list, let entry) where json:
                try JSONValue.object(["id": .string(id.text), "revoked": true, "written": false, "reason": .string(entry.reason),
                                      "revocationListVersion": .int(list.version)]).print()
            case .written(let list, _) where json:
                try JSONValue.object(["id": .string(id.text), "revoked": true, "written": true, "reason": .string(reason),
                                      "revocationListVersion": .int(list.version), "revokedCodes": .int(list.document.revoked.count),
                                      "file": .string(ShownPath.of(list.url))]).print()
            case .alreadyRevoked(let list, let entry):
                Output.out("\(id) was already revoked (\(entry.revoked): \(Output.escapingControls(entry.reason))) in revocation list version \(list.version); nothing written\n")
            case .written(let list, _):
                Output.out("""
                    revoked \(id): \(reason)
                      revocation list version \(list.version) (\(list.document.revoked.count) code(s) revoked): \(ShownPath.of(list.url))
                    next: publish it with `packtool renew --publish TREE --index-key INDEX.pem --state \(ShownPath.of(state))`; apps refuse the code once they update

                    """)
            }
            return 0
        } catch let e as PublishError {
            if case .io(let message) = e { throw CommandLineError.io(message + "; nothing was revoked") }
            throw CommandLineError.failure(e.description + "; nothing was revoked")
        }
    }

    /// `grant resign …`
    static func resign(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: GrantCommand.options, subcommand: "resign")
        guard a.positionals.isEmpty else { throw CommandLineError.usage("`grant resign` takes no positional arguments") }
        let state = URL(fileURLWithPath: try a.required("--state"))
        guard FileSystem.isDirectory(state.path) else { throw CommandLineError.io("\(ShownPath.of(state)): no such folder (--state names the publisher's state folder)") }
        let keyPaths = a.values("--grant-key")
        guard !keyPaths.isEmpty else { throw CommandLineError.usage("give the grant role's new private key with --grant-key") }
        let keys = try SigningKeys.privateKeys(keyPaths, role: RootDocument.Role.grant, a)
        let json = try OutputFormat.json(a)
        do {
            guard try GrantLedger.exists(in: state) || !RevocationStore(state: state).versions().isEmpty else {
                throw CommandLineError.io("\(ShownPath.of(state)): no revocation list here; nothing to sign again")
            }
            switch try RevocationStore(state: state).resign(keys: keys, ledger: try GrantLedger(state: state)) {
            case nil:
                if json { try JSONValue.object(["written": false, "revocationListVersion": .null]).print() } else { Output.out("no revocation list in \(ShownPath.of(state)); nothing to do\n") }
            case .alreadyCurrent(let list)?:
                if json { try JSONValue.object(["written": false, "revocationListVersion": .int(list.version)]).print() } else {
                    Output.out("revocation list version \(list.version) is already signed by the grant key of the newest root; nothing written\n")
                }
            case .written(let list, let previous)?:
                if json {
                    try JSONValue.object(["written": true, "revocationListVersion": .int(list.version), "previousVersion": .int(previous),
                                          "revokedCodes": .int(list.document.revoked.count), "file": .string(ShownPath.of(list.url))]).print()
                } else {
                    Output.out("""
                        signed revocation list version \(previous) again as version \(list.version) under the new grant key (\(list.document.revoked.count) code(s) revoked): \(ShownPath.of(list.url))
                        next: publish it with `packtool renew --publish TREE --index-key INDEX.pem --state \(ShownPath.of(state))`

                        """)
                }
            }
            return 0
        } catch let e as PublishError {
            if case .io(let message) = e { throw CommandLineError.io(message + "; nothing was signed") }
            throw CommandLineError.failure(e.description + "; nothing was signed")
        }
    }

    /// Records an issued grant in the state's grant ledger (`grant issue --state`), or says that it is not recorded.
    static func record(_ grant: GrantDocument, code: String, state: String?) throws {
        guard let state else {
            Output.note("note: grant \(grant.id) is not recorded (no --state): `grant list` will not show it, and revoking it needs its whole id and --unknown-id\n")
            return
        }
        do { try GrantLedger(state: URL(fileURLWithPath: state)).record(grant, code: code) } catch let e as PublishError {
            throw CommandLineError.io(e.description + "; the code was not handed out")
        }
    }

    /// `grant list …`
    static func list(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: GrantCommand.options, subcommand: "list")
        guard a.positionals.isEmpty else { throw CommandLineError.usage("`grant list` takes no positional arguments") }
        let format = a.value("--format") ?? "text"
        let state = URL(fileURLWithPath: try a.required("--state"))
        guard GrantLedger.exists(in: state) || !((try? RevocationStore(state: state).versions()) ?? []).isEmpty else {
            throw CommandLineError.io("\(ShownPath.of(state)): no grant ledger (\(GrantLedger.fileName)) here; codes issued with --state are recorded in one")
        }
        let rows: [Row]
        do {
            let grants = try GrantLedger(state: state).grants()
            let revoked = try RevocationStore(state: state).latest()?.document.revoked ?? []
            rows = Self.rows(grants: grants, revoked: revoked, now: Date())
        } catch let e as PublishError {
            throw CommandLineError.io(e.description)
        }
        if format == "json" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            // One object, as every command's --format json prints: {"grants": [...]}.
            Output.out(String(decoding: try encoder.encode(["grants": rows]), as: UTF8.self) + "\n")
            return 0
        }
        if rows.isEmpty { Output.out("no grants recorded\n") }
        for r in rows {
            var line = "\(r.id)  \(r.status)\(r.reason.map { ": \($0)" } ?? "")"
            if r.inLedger {
                line += "\n    \(r.products?.joined(separator: ", ") ?? "")  [\(r.notBefore ?? ""), \(r.notAfter ?? ""))  \(r.device.map { "device \($0)" } ?? "any device")"
                if let note = r.note, !note.isEmpty { line += "  note: \(note)" }
            } else {
                line += "\n    not in the grant ledger (issued without --state)"
            }
            Output.out(Output.escapingControls(line) + "\n")
        }
        return 0
    }

    /// One line of `grant list`, also its JSON form.
    struct Row: Encodable {
        var id: String
        var status: String
        var reason: String?
        var revoked: String?
        var inLedger: Bool
        var products: [String]?
        var notBefore: String?
        var notAfter: String?
        var device: String?
        var note: String?
    }

    /// Every ledger grant with its status at `now` (revoked wins over the time window), then revoked ids not issued here.
    /// Ids are matched in canonical form (`GrantID`), as clients match them.
    static func rows(grants: [GrantLedger.Grant], revoked: [RevocationsDocument.Entry], now: Date) -> [Row] {
        let byID = Dictionary(revoked.map { (GrantID.canonical($0.id), $0) }, uniquingKeysWith: { a, _ in a })
        var rows = grants.map { g -> Row in
            var status = "active"
            if let entry = byID[GrantID.canonical(g.id)] {
                status = "revoked"
                return Row(id: g.id, status: status, reason: entry.reason, revoked: entry.revoked, inLedger: true, products: g.products,
                           notBefore: g.notBefore, notAfter: g.notAfter, device: g.device, note: g.note)
            }
            if let from = Timestamp.parse(g.notBefore), now < from { status = "not yet valid" }
            else if let to = Timestamp.parse(g.notAfter), now >= to { status = "expired" }
            return Row(id: g.id, status: status, inLedger: true, products: g.products, notBefore: g.notBefore, notAfter: g.notAfter, device: g.device, note: g.note)
        }
        let known = Set(grants.map { GrantID.canonical($0.id) })
        rows += revoked.filter { !known.contains(GrantID.canonical($0.id)) }.map { Row(id: $0.id, status: "revoked", reason: $0.reason, revoked: $0.revoked, inLedger: false) }
        return rows
    }
}
