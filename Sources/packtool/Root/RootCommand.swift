#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackCrypto
import PackLint
import PackModel
import PackPublish
import PackSigning
import PackVerify

/// `packtool root init | rotate | show`: the trust root clients pin.
enum RootCommand: Command {
    static let name = "root"
    static let summary = "create, rotate or show the signed trust root (root.json)"
    static let help = """
        usage: packtool root init --state DIR --root-key K.pem... --manifest-pub K.pub... --index-pub K.pub... --grant-pub K.pub...
                                  [--root-threshold N] [--manifest-threshold N] [--index-threshold N] [--grant-threshold N]
                                  [--expires-days 365]
               packtool root rotate --state DIR --sign-with OLDROOT.pem... [--root-key NEWROOT.pem...]
                                  [--manifest-pub K.pub...] [--index-pub K.pub... | --index-key K.pem...] [--grant-pub K.pub...]
                                  [--*-threshold N] [--expires-days 365]
                                  [--publish DEST|s3://BUCKET/PREFIX]
               packtool root show [FILE | --state DIR]
               packtool root … [--format text|json]

        init writes DIR/root/1.root.json, signed by the root keys. Role keys are given as public files (--<role>-pub
        K.pub) or as private ones (--<role>-key K.pem, whose public key is listed); thresholds default to 1. rotate writes version N+1: it must be signed by a threshold of
        version N's root keys (--sign-with) and a threshold of its own root keys (--root-key, private; default: the
        same keys). Roles not named keep their keys, and every role keeps its threshold unless --<role>-threshold
        says otherwise; a rotation that names keys but would list exactly the keys it has is refused (a drill given
        the stolen key). show prints a root and checks its signatures.
        rotate --publish DEST also puts the new root into the published tree. When the rotation changes the index
        keys, the index must be signed by the new key at once (clients that follow the new root refuse the old
        key's index): give the new index key as a private key (--index-key NEW.pem) and rotate renews the index
        right after publishing the root; otherwise it publishes nothing and prints the renew command to run.
        Example (a stolen index key): packtool root rotate --state DIR --sign-with root.pem --index-key new-index.pem --publish s3://packs/royal-mile

        """
    static let options: [CommandOption] = [
        CommandOption("--state", "DIR", "the publisher's state folder (DIR/root/)"),
        CommandOption("--root-key", "K.pem", "a root private key; repeatable (rotate: the new root keys)", only: ["init", "rotate"]),
        PassphraseFlags.option.only(["init", "rotate"]),
    ] + ["manifest", "index", "grant"].flatMap { role in [
        CommandOption("--\(role)-key", "K.pem", "a private key of the \(role) role (its public key is listed); repeatable", only: ["init", "rotate"]),
        CommandOption("--\(role)-pub", "K.pub", "a public key of the \(role) role; repeatable", only: ["init", "rotate"]),
    ] } + RootDocument.roles.map { role in
        CommandOption("--\(role)-threshold", "N", "how many \(role) keys must sign (default 1; rotate keeps the current one)", only: ["init", "rotate"])
    } + [
        CommandOption("--sign-with", "OLDROOT.pem", "the current root's private keys; repeatable", only: ["rotate"]),
        CommandOption("--expires-days", "N", "the root expires N days from now (default 365)", only: ["init", "rotate"]),
        CommandOption("--publish", "DEST|s3://BUCKET/PREFIX", "also put the new root into the published tree", only: ["rotate"]),
        CommandOption.timeout("30").only(["rotate"]),
        .format("text, or one JSON object: the root's file, version, expiry and roles"),
    ] + CommandOption.objectStore.map { $0.only(["rotate"]) }
    static let examples = [
        "packtool root init --state demo-out/state --root-key keys-example/root.pem --manifest-pub keys-example/manifest.pub --index-pub keys-example/index.pub --grant-pub keys-example/grant.pub",
        "packtool root show --state demo-out/state --format json",
        "packtool root rotate --state DIR --sign-with root.pem --index-key new-index.pem --publish s3://packs/royal-mile",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        switch a.positionals.first {
        case "init": return try initRoot(a)
        case "rotate": return try rotate(a)
        case "show": return try show(a)
        default: throw CommandLineError.usage("expected `root init`, `root rotate` or `root show`")
        }
    }

    private static func roles(_ a: Arguments, previous: RootDocument?) throws -> [String: (keys: [Ed25519PublicKey], threshold: Int)] {
        var out: [String: (keys: [Ed25519PublicKey], threshold: Int)] = [:]
        for role in RootDocument.roles {
            // `--<role>-key` is a private key and `--<role>-pub` a public one (DESIGN.md §8.1); a public key given as
            // --<role>-key, as before, still works with a notice.
            for path in a.values("--\(role)-key") where role != RootDocument.Role.root && FileSystem.exists(path) && !SigningKeys.isPrivateKeyFile(path) {
                Output.err("note: \(path) is a public key: give it with --\(role)-pub (--\(role)-key is for private keys); the old use still works\n")
            }
            let given = a.values("--\(role)-key") + a.values("--\(role)-pub")
            var keys = try given.map { try SigningKeys.publicKey($0, a) }
            if keys.isEmpty, let spec = previous?.roles[role] {
                keys = try spec.keyids.compactMap { id in try previous?.keys[id].flatMap { Hex.decode($0.public) }.map { try Ed25519PublicKey(rawRepresentation: $0) } }
            }
            guard !keys.isEmpty else {
                throw CommandLineError.usage(role == RootDocument.Role.root ? "give at least one --root-key" : "give at least one --\(role)-pub (or --\(role)-key)")
            }
            let threshold = try a.value("--\(role)-threshold").map { text -> Int in
                guard let n = Int(text), n >= 1 else { throw CommandLineError.usage("--\(role)-threshold must be a whole number ≥ 1") }
                return n
            } ?? previous?.roles[role]?.threshold ?? 1
            // A rotation keeps each role's threshold unless told otherwise: new keys for a 2-of-3 root make a 2-of-3
            // root, never silently a 1-of-3 one (outside attack on issue 41's root drill).
            guard threshold <= keys.count else {
                throw CommandLineError.usage("the \(role) role would need \(threshold) signatures from \(keys.count) key\(keys.count == 1 ? "" : "s")"
                    + (a.value("--\(role)-threshold") == nil ? " (its threshold now)" : "") + ": give more keys, or set --\(role)-threshold")
            }
            out[role] = (keys, threshold)
        }
        warnAboutSharedKeys(out)
        return out
    }

    /// A rotation that names role keys yet lists exactly the keys and thresholds the current root has — the old,
    /// stolen key given by mistake — would publish a new root that still trusts that key, and say nothing (outside
    /// attack on issue 41's index drill). It is refused; a rotation that only extends the root's expiry names no keys.
    /// (`--index-key` alone may name the unchanged index key: the one-step drills renew with it.)
    private static func refuseDrillThatChangesNothing(_ a: Arguments, _ roles: [String: (keys: [Ed25519PublicKey], threshold: Int)], previous: RootDocument) throws {
        let named = RootDocument.roles.filter { !a.values("--\($0)-key").isEmpty || !a.values("--\($0)-pub").isEmpty }
        guard !named.isEmpty else { return }
        let unchanged = RootDocument.roles.allSatisfy { role in
            guard let spec = previous.roles[role], let now = roles[role] else { return false }
            return Set(now.keys.map(\.keyID)) == Set(spec.keyids) && now.threshold == spec.threshold
        }
        guard unchanged else { return }
        throw CommandLineError.usage("the keys given (\(named.map { "--\($0)-key/-pub" }.joined(separator: ", "))) are the ones root version \(previous.version) already lists, "
            + "so the new root would trust exactly the same keys: to replace a stolen key, make a new one (`packtool key generate --role ROLE --out DIR`) "
            + "and give that; to extend the root's expiry alone, give no role keys. (If root version \(previous.version) is a rotation made here that a refusal "
            + "left unpublished, `packtool renew --state DIR --index-key INDEX.pem --publish TREE` publishes it, or names what must come first.)")
    }

    /// One key in several roles is allowed (DSSE payload types keep an index signature from passing as a manifest),
    /// but it gives up what separate roles are for: a leaked key then signs for all of them.
    private static func warnAboutSharedKeys(_ roles: [String: (keys: [Ed25519PublicKey], threshold: Int)]) {
        var rolesByKey: [String: [String]] = [:]
        for role in RootDocument.roles { for key in roles[role]?.keys ?? [] { rolesByKey[key.keyID, default: []].append(role) } }
        for (id, shared) in rolesByKey.sorted(by: { $0.key < $1.key }) where Set(shared).count > 1 {
            Output.err("warning: key \(id.prefix(16))… is listed for the \(shared.joined(separator: ", ")) roles; with a key per role, a leaked key can sign for one role only\n")
        }
    }

    private static func state(_ a: Arguments) throws -> URL { URL(fileURLWithPath: try a.required("--state")) }

    /// Roots expire relative to the real clock (not SOURCE_DATE_EPOCH): they are made once, not rebuilt.
    private static func expiry(_ a: Arguments) throws -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)).addingTimeInterval(try a.days("--expires-days", default: 365))
    }

    private static func initRoot(_ a: Arguments) throws -> Int32 {
        let store = RootStore(state: try state(a))
        if try store.latest() != nil { throw CommandLineError.failure("\(ShownPath.of(store.folder)) already holds a root; use `packtool root rotate`") }
        let rootKeys = try SigningKeys.privateKeys(a.values("--root-key"), role: RootDocument.Role.root, a)
        guard !rootKeys.isEmpty else { throw CommandLineError.usage("give at least one --root-key (private key file)") }
        do {
            let document = try RootStore.document(version: 1, expires: try expiry(a), roles: try roles(a, previous: nil))
            let url = try store.write(document, signers: rootKeys)
            if try OutputFormat.json(a) { try JSONValue.object(report(ShownPath.of(url), document)).print(); return 0 }
            Output.out("wrote \(ShownPath.of(url)): root version 1, expires \(document.expires)\n")
            return 0
        } catch let e as PublishError { throw CommandLineError.failure(e.description) }
    }

    private static func rotate(_ a: Arguments) throws -> Int32 {
        let folder = try state(a)
        guard FileSystem.isDirectory(folder.path) else {
            throw CommandLineError.io("\(ShownPath.of(folder)): no such folder (--state names the publisher's state folder, made by `packtool root init`)")
        }
        // Checked before the new root is written: a mistyped tree must not leave a rotation half made.
        if let destination = a.value("--publish"), !destination.contains("://"), !FileSystem.isDirectory(destination) {
            throw CommandLineError.io("\(destination): \(FileSystem.exists(destination) ? "not a folder" : "no such folder"); --publish names the published tree")
        }
        let store = RootStore(state: folder)
        guard let current = try store.latest() else { throw CommandLineError.failure("no root in \(ShownPath.of(store.folder)); run `packtool root init`") }
        let oldSigners = try SigningKeys.privateKeys(a.values("--sign-with"), role: RootDocument.Role.root, a)
        guard !oldSigners.isEmpty else { throw CommandLineError.usage("give the current root keys with --sign-with") }
        let newRootKeys = a.values("--root-key").isEmpty ? oldSigners : try SigningKeys.privateKeys(a.values("--root-key"), role: RootDocument.Role.root, a)
        var roleArgs = try roles(a, previous: current.document)
        if !a.values("--root-key").isEmpty { roleArgs["root"] = (newRootKeys.map(\.publicKey), roleArgs["root"]!.threshold) }
        try refuseDrillThatChangesNothing(a, roleArgs, previous: current.document)
        do {
            let document = try RootStore.document(version: current.version + 1, expires: try expiry(a), roles: roleArgs)
            // Check before writing that clients will accept it: old threshold and new threshold both met.
            let signers = Dictionary(oldSigners.map { ($0.publicKey.keyID, $0) } + newRootKeys.map { ($0.publicKey.keyID, $0) }, uniquingKeysWith: { a, _ in a })
            let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(document), as: PayloadType.root, with: Array(signers.values).sorted { $0.publicKey.keyID < $1.publicKey.keyID })
            do { _ = try RootChain().next(after: current.document, envelope) } catch let f as VerificationFailure {
                throw CommandLineError.failure("the new root would not be accepted by clients: \(f.message)")
            }
            let url = try store.write(document, signers: Array(signers.values).sorted { $0.publicKey.keyID < $1.publicKey.keyID })
            let json = try OutputFormat.json(a)
            if !json { Output.out("wrote \(ShownPath.of(url)): root version \(document.version), expires \(document.expires)\n") }
            return try publishRotation(a, state: store.folder.deletingLastPathComponent(), from: current.document, to: document,
                                       json: json ? report(ShownPath.of(url), document) : nil)
        } catch let e as PublishError { throw CommandLineError.failure(e.description) }
    }

    /// Puts a rotated root into the published tree (`--publish`) together with everything the rotation makes clients
    /// refuse until it is signed again — so after a key-compromise drill every client keeps updating (docs/operations.md):
    /// - grant keys changed: the revocation list is signed again under the new grant key (`--grant-key NEW.pem`) as
    ///   the next version, and the renewed index binds it;
    /// - manifest keys changed: every pack is re-released from the ledger under the new key (`--manifest-key NEW.pem`);
    /// - index keys changed: the index is renewed with the new key (`--index-key NEW.pem`);
    /// - then, whenever any of these happened, the index is renewed from the state.
    /// What cannot be done here (a role given only as a public key) publishes nothing and prints exactly what to run.
    private static func publishRotation(_ a: Arguments, state: URL, from old: RootDocument, to new: RootDocument,
                                        json: [String: JSONValue]?) throws -> Int32 {
        func changed(_ role: String) -> Bool { Rollback.keysChanged(role: role, from: old, to: new) }
        func privateKeys(_ role: String) throws -> [Ed25519PrivateKey] {
            let paths = a.values("--\(role)-key").filter(SigningKeys.isPrivateKeyFile)
            guard !paths.isEmpty else { return [] }
            let keys = try SigningKeys.privateKeys(paths, role: role, a)
            return (try? new.checkSigningKeys(role: role, keys)) == nil ? [] : keys
        }
        let destination = a.value("--publish")
        let tree = destination.map { "--publish \($0)" } ?? "--publish TREE"
        let statePath = ShownPath.of(state)
        let store = RevocationStore(state: state)
        let hasList = try store.latest() != nil
        let grantKeys = changed(RootDocument.Role.grant) && hasList ? try privateKeys(RootDocument.Role.grant) : []
        let manifestKeys = changed(RootDocument.Role.manifest) ? try privateKeys(RootDocument.Role.manifest) : []
        let indexKeys = try privateKeys(RootDocument.Role.index)
        let packs = FileSystem.exists(state.appendingPathComponent(Ledger.fileName).path) ? try Ledger(state: state, createIfMissing: false).latestReleases() : []
        let indexPart = "--index-key \(changed(RootDocument.Role.index) ? "NEW-INDEX.pem" : "INDEX.pem")"

        let needsRenew = changed(RootDocument.Role.index) || (changed(RootDocument.Role.grant) && hasList) || (changed(RootDocument.Role.manifest) && !packs.isEmpty)
        let steps = stepsLeft(changed, needsRenew: needsRenew, hasList: hasList, hasPacks: !packs.isEmpty, grantKeys: grantKeys,
                              manifestKeys: manifestKeys, indexKeys: indexKeys, statePath: statePath, indexPart: indexPart, tree: tree)
        guard let destination else {
            return try reportUnpublished(json: json, steps: steps, statePath: statePath, indexPart: indexPart, store: store, grantKeys: grantKeys)
        }
        guard steps.isEmpty else {
            throw CommandLineError.failure("root version \(new.version) is in \(ShownPath.of(state.appendingPathComponent("root"))) but not published: clients that follow it would refuse "
                + whatBreaks(changed) + ", so it goes out only with them. Run, in this order:\n" + steps.map { "  \($0)\n" }.joined())
        }
        let published = try PublishedTreeFlags.open(destination, a, writable: true)
        do {
            var lines: [String] = []
            // New versioned names go above every name the tree holds, whoever wrote it: a thief holding the retired
            // key may have taken the next ones.
            let roots = try CatalogueRoots.load(state: state, tree: published)
            let listed = try? IndexCommit(tree: published, roots: roots, keys: []).current()?.trusted
            try TreeFloor.requireNoForeignNames(tree: published, roots: roots, listed: listed)
            if !grantKeys.isEmpty {
                let above = try TreeFloor.highestName(in: published, folder: "revocations", suffix: ".json", probeAbove: listed?.revocations?.version ?? 0) {
                    PublishLayout.revocations(version: $0)
                }
                if let resigned = try resignList(store, grantKeys, above: above) { lines.append(resigned) }
            }
            if changed(RootDocument.Role.manifest) && !packs.isEmpty {
                // Every pack first, without an index; the renewal below lists them all beside the new root at once.
                let above = try RenewCommand.namesTaken(by: packs.map(\.pack), in: published, state: state)
                lines += try RenewCommand.rerelease(packs.map { ($0.pack, $0.version, "") }, a, publishIndex: false, above: above).map { "re-released \($0)" }
            }
            var report: [String: JSONValue] = json ?? [:]
            report["published"] = .string(published.describe(PublishLayout.root(version: new.version)))
            if needsRenew {
                var options = Renewal.Options(tree: published, state: state, indexKeys: indexKeys)
                options.waiting = { Output.note("\($0)\n") }
                if changed(RootDocument.Role.manifest) { options.rereleased = Set(packs.map(\.pack)) }
                let renewal = try Renewal(options: options).run()
                report["indexVersion"] = .int(renewal.index.version)
                lines.append("published root version \(new.version) and renewed \(published.describe(PublishLayout.index)) (version \(renewal.index.version))"
                    + (changed(RootDocument.Role.index) ? " with the new index key" : ""))
                for problem in renewal.critical { Output.err("CRITICAL: \(problem)\n") }
            } else {
                // Nothing clients need signed again (the root keys or a threshold changed): the root goes in beside the
                // index there now, once clients following it are known to admit that index and every pack.
                let bytes = try RootStore(state: state).all().last { $0.version == new.version }!.bytes
                var commit = IndexCommit(tree: published, roots: try CatalogueRoots.load(state: state, tree: published), keys: [])
                commit.staged = [(PublishLayout.root(version: new.version), bytes)]
                try commit.publishStagedBesideCurrent(at: Date())
                lines.append("published \(published.describe(PublishLayout.root(version: new.version)))")
            }
            if json != nil { try JSONValue.object(report).print() } else { Output.out(lines.map { $0 + "\n" }.joined()) }
            return 0
        } catch let e as PublishError {
            throw CommandLineError.io("\(e); root version \(new.version) is in \(ShownPath.of(state.appendingPathComponent("root"))) but not published (clients keep following root version \(old.version)): "
                + "when the cause is fixed, `packtool renew --state \(statePath) \(indexPart) --publish \(destination)` publishes it")
        }
    }

    /// What a rotation run cannot do itself (a role's new key given only as a public key), as the exact commands that
    /// do it, in the order they must run.
    private static func stepsLeft(_ changed: (String) -> Bool, needsRenew: Bool, hasList: Bool, hasPacks: Bool, grantKeys: [Ed25519PrivateKey],
                                  manifestKeys: [Ed25519PrivateKey], indexKeys: [Ed25519PrivateKey], statePath: String, indexPart: String,
                                  tree: String) -> [String] {
        var steps: [String] = []
        if changed(RootDocument.Role.grant) && hasList && grantKeys.isEmpty {
            steps.append("packtool grant resign --state \(statePath) --grant-key NEW-GRANT.pem")
        }
        if changed(RootDocument.Role.manifest) && hasPacks && (manifestKeys.isEmpty || indexKeys.isEmpty) {
            steps.append("packtool renew --state \(statePath) --manifest-key NEW-MANIFEST.pem \(indexPart) \(tree)")
        }
        if needsRenew && indexKeys.isEmpty && !steps.contains(where: { $0.hasPrefix("packtool renew") }) {
            steps.append("packtool renew --state \(statePath) \(indexPart) \(tree)")
        } else if needsRenew && !steps.isEmpty && !steps.contains(where: { $0.hasPrefix("packtool renew") }) {
            steps.append("packtool renew --state \(statePath) \(indexPart) \(tree)")
        }
        return steps
    }

    /// `root rotate` without `--publish`: the root stays in the state, and what to run next is printed in order. The
    /// grant list can still be signed again now (with its new key given), so the later renew has it.
    private static func reportUnpublished(json: [String: JSONValue]?, steps: [String], statePath: String, indexPart: String,
                                          store: RevocationStore, grantKeys: [Ed25519PrivateKey]) throws -> Int32 {
        if var json {
            json["published"] = .null
            json["next"] = .strings(steps.isEmpty ? ["packtool renew --state \(statePath) \(indexPart) --publish DEST"] : steps)
            try JSONValue.object(json).print()
        }
        // Without --publish the grant list can still be signed again now, so the later renew has it.
        if let resigned = try resignList(store, grantKeys) { Output.note(resigned) }
        let next = steps.isEmpty ? ["packtool renew --state \(statePath) \(indexPart) --publish DEST"] : steps.filter { !(grantKeys.isEmpty == false && $0.hasPrefix("packtool grant resign")) }
        Output.note("next: publish it to the tree clients read, in this order:\n" + next.map { "  \($0)\n" }.joined())
        return 0
    }

    /// What clients following the new root would refuse until it is signed again, for the refusal's message.
    private static func whatBreaks(_ changed: (String) -> Bool) -> String {
        var parts: [String] = []
        if changed(RootDocument.Role.grant) { parts.append("the revocation list signed by the old grant key") }
        if changed(RootDocument.Role.manifest) { parts.append("every manifest signed by the old manifest key") }
        if changed(RootDocument.Role.index) { parts.append("the index signed by the old index key") }
        return parts.joined(separator: " and ")
    }

    /// Signs the state's revocation list again under the new grant key (when one was given and it needs it).
    private static func resignList(_ store: RevocationStore, _ keys: [Ed25519PrivateKey], above: Int = 0) throws -> String? {
        guard !keys.isEmpty, case .written(let list, let previous)? = try store.resign(keys: keys, ledger: try GrantLedger(state: store.state), above: above) else { return nil }
        return "signed revocation list version \(previous) again as version \(list.version) under the new grant key"
    }

    /// The facts `--format json` gives about a root: its file, version, expiry and each role's threshold and key ids.
    private static func report(_ path: String, _ document: RootDocument) -> [String: JSONValue] {
        var roles: [String: JSONValue] = [:]
        for role in RootDocument.roles {
            guard let spec = document.roles[role] else { continue }
            roles[role] = ["threshold": .int(spec.threshold), "keyIds": .strings(spec.keyids)]
        }
        return ["file": .string(path), "version": .int(document.version), "expires": .string(document.expires), "roles": .object(roles)]
    }

    private static func show(_ a: Arguments) throws -> Int32 {
        let data: Data, path: String
        if a.positionals.count == 2 {
            path = a.positionals[1]
            guard let d = FileManager.default.contents(atPath: path) else { throw CommandLineError.io("\(path): cannot read") }
            data = d
        } else if let latest = try RootStore(state: try state(a)).latest() {
            path = ShownPath.of(try state(a).appendingPathComponent(PublishLayout.root(version: latest.version)))
            data = latest.bytes
        } else {
            throw CommandLineError.failure("no root in \(ShownPath.of(try state(a).appendingPathComponent("root"))); run `packtool root init` first")
        }
        let envelope: DSSEEnvelope
        do { envelope = try DSSEEnvelope.parse(data) } catch { throw CommandLineError.failure("\(path): \(error)") }
        let document: RootDocument
        do { document = try RootChain().selfSigned(envelope) } catch let f as VerificationFailure {
            throw CommandLineError.failure("\(path): \(f.message)")
        } catch { throw CommandLineError.failure("\(path): \(error)") }
        if try OutputFormat.json(a) {
            var facts = report(path, document)
            facts["verified"] = true
            try JSONValue.object(facts).print()
            return 0
        }
        var text = "\(path): root version \(document.version), expires \(document.expires), signatures verify\n"
        for role in RootDocument.roles {
            guard let spec = document.roles[role] else { continue }
            text += "  \(role): \(spec.threshold) of \(spec.keyids.count)\n" + spec.keyids.map { "    \($0)\(ExampleKeys.keyIDs.contains($0) ? "  (public example key)" : "")\n" }.joined()
        }
        Output.out(text)
        return 0
    }
}
