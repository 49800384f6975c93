#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackMedia
import PackCrypto
import PackModel
import PackTrust
import PackVerify

/// `packtool access`: the app's access decision for one scene, from a manifest, purchases, codes and a time.
enum AccessCommand: Command {
    static let name = "access"
    static let summary = "show the access decision for a scene given purchases, codes and a time"
    static let help = """
        usage: packtool access MANIFEST --root ROOT.json --scene ID [--purchase PRODUCT@TIME[@REFUNDED-TIME][#TRANSACTION]]...
                               [--code CODE]... [--revoked GRANT-ID]... [--device ID] [--at TIME] [--format text|json] [--repeat N]

        MANIFEST is a signed manifest (a published manifest.json or an install's .manifest.json), verified under
        ROOT and refused with the library's code where an install would refuse it (its expiry and creation time
        judged at --at). Prints whether the scene is open, why, with which entitlement and until when. TIME is
        RFC 3339 (or a bare date, meaning 00:00:00Z); --at defaults to now. Support staff use this to answer "why can I not open this stop?".
        --device ID is the app's device identifier, checked against codes issued for one device (grant issue --device).
        #TRANSACTION is StoreKit's transaction id: a purchase given twice with one id (or, without ids, one product and
        time) counts once, refunded if either is; one id with two purchase times is refused.
        --repeat N times N decisions and prints the time per decision on standard error (for benchmarks).

               packtool access --into DIR --pack ID --scene ID [--client-state DIR] [--purchase …]… [--code …]… [--device ID]

        With --into, decides exactly as the app does on an installed pack: the installed manifest verified under the
        client state's root (default DIR/.packtool-client, as `packtool update` uses), the revocation list accepted
        with the client's last update, and the client's clock guard (the device clock; --at is refused here).

        """
    static let options: [CommandOption] = [
        CommandOption("--root", "ROOT.json", "the root the manifest is verified under"),
        CommandOption("--scene", "ID", "the stop to decide for"),
        CommandOption("--purchase", "PRODUCT@TIME[@REFUNDED-TIME][#TRANSACTION]", "a StoreKit purchase; repeatable"),
        CommandOption("--code", "CODE", "an access code (grant issue); repeatable"),
        CommandOption("--revoked", "GRANT-ID", "a revoked grant id; repeatable"),
        CommandOption("--device", "ID", "the app's device identifier"),
        CommandOption("--at", "TIME", "decide at TIME (RFC 3339, or a date meaning 00:00Z; default now)"),
        .format("text, or one JSON object: the decision (allowed, code, reason, entitlement)"),
        CommandOption("--repeat", "N", "time N decisions and print the time per decision on standard error"),
        CommandOption("--into", "DIR", "decide on an installed pack in DIR, as the app does"),
        CommandOption("--pack", "ID", "the installed pack's id (with --into)"),
        CommandOption("--client-state", "STATEDIR", "the client state (default DIR/.packtool-client)"),
    ]
    static let examples = [
        "packtool access demo-out/cdn/packs/royal-mile/1/manifest.json --root demo-out/state/root/1.root.json --scene 01-castle-esplanade",
        "packtool access demo-out/cdn/packs/royal-mile/1/manifest.json --root demo-out/state/root/1.root.json --scene 04-tron-kirk --purchase uk.example.walks.royalmile.citypack@2026-12-01T09:00:00Z --format json",
        "packtool access --into demo-out/app --pack royal-mile --scene 04-tron-kirk --purchase uk.example.walks.royalmile.citypack@2026-12-01T09:00:00Z",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == (a.value("--into") == nil ? 1 : 0) else {
            throw CommandLineError.usage(a.value("--into") == nil ? "expected one MANIFEST (or --into DIR --pack ID)" : "with --into, give no MANIFEST")
        }
        if let into = a.value("--into"), !FileSystem.isDirectory(into) {
            throw CommandLineError.io("\(into): \(FileSystem.exists(into) ? "not a folder" : "no such folder"); --into names the folder a pack was installed into (`packtool update --into`)")
        }
        var now = Date().timeIntervalSince1970
        if let at = try a.time("--at") { now = at.timeIntervalSince1970 }
        let purchases = try a.values("--purchase").map { spec -> AccessRequest.Purchase in
            let dates = spec.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            // The command line's one time grammar: an RFC 3339 time is passed on as written, a bare date as its 00:00:00Z.
            func time(_ text: String) -> String? {
                Timestamp.parse(text) != nil ? text : Timestamp.parseDateOrDateTime(text).map(Timestamp.format)
            }
            var parts = dates[0].split(separator: "@").map(String.init)
            guard (2...3).contains(parts.count), let bought = time(parts[1]), parts.count == 2 || time(parts[2]) != nil,
                  dates.count == 1 || !dates[1].isEmpty else {
                throw CommandLineError.usage("--purchase is PRODUCT@TIME or PRODUCT@TIME@REFUNDED-TIME with RFC 3339 times or dates, optionally followed by #TRANSACTION")
            }
            parts[1] = bought
            if parts.count == 3 { parts[2] = time(parts[2])! }
            return .init(productId: parts[0], purchaseDate: parts[1], revocationDate: parts.count == 3 ? parts[2] : nil,
                         transactionId: dates.count == 2 ? String(dates[1]) : nil)
        }
        do { try AccessRequest(scene: "", purchases: purchases).validate() } catch let f as VerificationFailure {
            throw CommandLineError.usage("--purchase: " + f.message)
        }
        // A revoked id is a whole one, as clients compare them: a part of one would silently withdraw nothing.
        for text in a.values("--revoked") where GrantID(text)?.isWhole != true {
            throw CommandLineError.usage("--revoked \(text): a grant id is 8 (a short code) or 32 (a long one) hex digits; capitals, dashes and spaces are ignored")
        }
        if let into = a.value("--into") {
            guard a.value("--at") == nil, a.value("--repeat") == nil, a.value("--root") == nil else {
                throw CommandLineError.usage("--at, --root and --repeat do not apply with --into (the client's own root and clock decide)")
            }
            let folder = URL(fileURLWithPath: into)
            let state = a.value("--client-state").map { URL(fileURLWithPath: $0) } ?? folder.appendingPathComponent(".packtool-client")
            let request = AccessRequest(scene: try a.required("--scene"), purchases: purchases, codes: a.values("--code"), revokedCodes: a.values("--revoked"), device: a.value("--device"))
            do {
                let decision = try PackClient(state: state).decideAccess(pack: try a.required("--pack"), into: folder, request: request)
                return try report(decision, scene: request.scene, json: a.value("--format") == "json")
            } catch let f as VerificationFailure { throw CommandLineError(f) }
        }
        do {
            let rootFile = URL(fileURLWithPath: try a.required("--root")), manifestFile = URL(fileURLWithPath: a.positionals[0])
            let rootData = try SizeCaps.read(rootFile, cap: DocumentKind.root.sizeCap)
            let root = try VerificationFailure.about(rootFile, .root) { try RootChain().selfSigned(SignedDocument.envelope(rootData, what: "root")) }
            let data = try SizeCaps.read(manifestFile, cap: DocumentKind.manifest.sizeCap)
            // The access profile: what an install would refuse (ids, names, paths, Trip Pass length, a creation time
            // ahead of --at, an expiry before it) is refused here with the same code, never decided on.
            let manifest = try VerificationFailure.about(manifestFile, .document) {
                try SignedDocument().admit(data, as: Manifest.self, profile: .access, context: AdmissionContext(root: root, now: now))
            }
            let scene = try a.required("--scene")
            // A mistyped scene would otherwise read as "closed", which is the wrong answer to give a visitor.
            guard manifest.scenes.contains(where: { $0.id == scene }) else {
                throw CommandLineError.usage("\(manifest.pack) version \(manifest.version) has no scene \"\(scene)\"; its scenes: \(manifest.scenes.map(\.id).joined(separator: ", "))")
            }
            let request = AccessRequest(scene: scene, purchases: purchases, codes: a.values("--code"), revokedCodes: a.values("--revoked"), device: a.value("--device"))
            let decider = AccessDecider(policy: manifest.access, root: root)
            let verdict = ClockGuard.Verdict(now: now, rollbackDetected: false, offlineTooLong: false)
            let decision = decider.decide(request, clock: verdict)
            if let r = a.value("--repeat") {
                // Timing for `make bench`: the decision alone, repeated, after the manifest is verified.
                guard let n = Int(r), n >= 1 else { throw CommandLineError.usage("--repeat must be a whole number ≥ 1") }
                let started = ContinuousClock.now
                var allowed = 0
                for _ in 0..<n where decider.decide(request, clock: verdict).allowed { allowed += 1 }
                let elapsed = (ContinuousClock.now - started).components
                let micros = (Double(elapsed.seconds) * 1e6 + Double(elapsed.attoseconds) / 1e12) / Double(n)
                Output.err("\(n) decisions, \(NumberText.fixed(micros, 2)) µs each (\(allowed) allowed)\n")
            }
            return try report(decision, scene: request.scene, json: a.value("--format") == "json")
        } catch let f as VerificationFailure {
            throw CommandLineError(f)
        }
    }

    /// Prints a decision; exit 0 when the scene is open, 1 when closed.
    private static func report(_ decision: AccessDecision, scene: String, json: Bool) throws -> Int32 {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            Output.out(String(decoding: try encoder.encode(decision), as: UTF8.self) + "\n")
        } else {
            Output.out("\(scene): \(decision.allowed ? "OPEN" : "CLOSED") — \(decision.reason)"
                + (decision.entitlement.map { " (entitlement \($0))" } ?? "") + (decision.until.map { ", until \($0)" } ?? "") + "\n")
        }
        return decision.allowed ? 0 : 1
    }
}
