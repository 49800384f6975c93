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
import PackModel

/// Pack-wide promises: a free stop to try, well-formed products, reviewers whose keys work and include a historian,
/// and everything shipped within the size budget.
struct PackRule: LintRule {
    static let noFreeStop = RuleCode("PT0805", .warning, "no stop is free to try")
    static let productIDs = RuleCode("PT0806", .error, "the City Pack and Trip Pass use the same product id")
    static let tripPassHours = RuleCode("PT0807", .warning, "the Trip Pass is not the 72-hour pass the app sells")
    static let overBudget = RuleCode("PT0808", .error, "the pack's files exceed its size budget")
    static let badReviewerKey = RuleCode("PT0809", .error, "a reviewer's public key is not a valid Ed25519 key")
    static let duplicateReviewer = RuleCode("PT0810", .error, "two reviewers share an id or a key")
    static let noHistorian = RuleCode("PT0811", .error, "no reviewer has the historian role")
    static let exampleKey = RuleCode("PT0812", .warning, "a reviewer's key is one of the repository's public example keys")
    static let codes = [noFreeStop, productIDs, tripPassHours, overBudget, badReviewerKey, duplicateReviewer, noHistorian, exampleKey]

    func check(_ context: LintContext) -> [Diagnostic] {
        guard let document = context.pack else { return [] }
        var out: [Diagnostic] = []
        if let access = context.packAccess { out += check(access, in: document) }
        if let reviewers = context.packReviewers { out += check(reviewers, in: document) }
        if context.isWholePack, let budget = context.packSizeBudget {
            let total = Self.totalBytes(context.root)
            if total > UInt64(budget) {
                let pointer = document.root?.node(at: "/sizeBudget") == nil ? "" : "/sizeBudget"
                out.append(Self.overBudget.diagnostic("the pack is \(total) bytes, over its budget of \(budget)", at: document.location(pointer),
                                                      hint: "compress plates harder, shorten stories, or raise sizeBudget"))
            }
        }
        return out
    }

    private func check(_ access: PackDocument.Access, in document: JSONDocument) -> [Diagnostic] {
        var out: [Diagnostic] = []
        if access.freeStops.isEmpty {
            out.append(Self.noFreeStop.diagnostic("access.freeStops is empty", at: document.location("/access/freeStops"),
                                                  hint: "make the first stop free so visitors can try the pack before buying"))
        }
        if let trip = access.products.tripPass {
            if trip.productId == access.products.cityPack.productId {
                out.append(Self.productIDs.diagnostic("\"\(trip.productId)\" is both the City Pack and the Trip Pass", at: document.location("/access/products/tripPass/productId"),
                                                      hint: "each store product needs its own id"))
            }
            if trip.hours != 72 {
                out.append(Self.tripPassHours.diagnostic("the Trip Pass lasts \(trip.hours) hours", at: document.location("/access/products/tripPass/hours"),
                                                         hint: "the app's Trip Pass is 72 hours; change it only together with the store listing"))
            }
        }
        return out
    }

    private func check(_ reviewers: [PackDocument.Reviewer], in document: JSONDocument) -> [Diagnostic] {
        var out: [Diagnostic] = []
        var ids = Set<String>(), keys = Set<String>()
        for (i, reviewer) in reviewers.enumerated() {
            let at = document.location("/reviewers/\(i)/publicKey")
            let raw = Hex.decode(reviewer.publicKey)
            let key = raw.flatMap { try? Ed25519PublicKey(rawRepresentation: $0) }
            if let key, ExampleKeys.isExample(key) {
                // Its private key is in keys-example/ for anyone to read: a sign-off by it proves nothing.
                out.append(Self.exampleKey.diagnostic("the key of \"\(reviewer.id)\" is a public example key from the repository's keys-example/; anyone can sign with it",
                                                      at: at, hint: "make the reviewer's own key with `packtool key generate --role reviewer --out keys --id ID --display-name \"NAME\"`, paste the \"public key:\" it prints here, and sign the scenes again"))
            }
            if key == nil {
                let why = raw.flatMap { Ed25519Encoding.problem(withPublicKey: $0) }.map { " (\($0))" } ?? ""
                // 64 hex digits that are no usable key are most often the key's id (SHA-256 of the key), which
                // `key generate` printed first: point the author to the public key instead.
                let hint = raw?.count == 32
                    ? "this looks like the key's id, not its public key: use the \"public key:\" line `packtool key generate` printed, or run `packtool inspect REVIEWER.pub`"
                    : "copy the 64 hex digits of the reviewer's raw public key (`packtool inspect REVIEWER.pub` prints them)"
                out.append(Self.badReviewerKey.diagnostic("the key of \"\(reviewer.id)\" is not a usable Ed25519 public key\(why)", at: at, hint: hint))
            }
            if !ids.insert(reviewer.id).inserted || !keys.insert(reviewer.publicKey.lowercased()).inserted {
                out.append(Self.duplicateReviewer.diagnostic("reviewer \"\(reviewer.id)\" repeats an id or key", at: document.location("/reviewers/\(i)"),
                                                             hint: "each reviewer has their own id and key"))
            }
        }
        if !reviewers.contains(where: { $0.role == "historian" }) {
            out.append(Self.noHistorian.diagnostic("no reviewer is a historian", at: document.location("/reviewers"),
                                                   hint: "scenes ship only with a historian's sign-off; add the historian's key"))
        }
        return out
    }

    /// Bytes of every regular file under `root`, without following links.
    static func totalBytes(_ root: URL) -> UInt64 { totalBytes(atPath: root.path) }

    private static func totalBytes(atPath root: String) -> UInt64 {
        var total: UInt64 = 0
        guard let names = try? FileSystem.list(root) else { return 0 }
        for name in names {
            var info = stat()
            let path = root + "/" + name
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFREG { total += UInt64(info.st_size) } else if info.st_mode & S_IFMT == S_IFDIR { total += totalBytes(atPath: path) }
        }
        return total
    }
}
