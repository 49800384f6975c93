#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackCrypto
import PackModel
import PackPublish
import PackQR
import PackSigning
import PackVerify

/// `packtool grant issue`: signs a grant and prints it short (`CompactGrant`) when it fits, else long (`PTG1.`).
extension GrantCommand {
    static func issue(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options, subcommand: "issue")
        guard a.positionals == ["issue"] else { throw CommandLineError.usage("expected `grant issue`") }
        let (format, json) = try forms(a)
        // A mistyped --state must not become a new folder with a ledger nobody will look in.
        if let state = a.value("--state"), !FileSystem.isDirectory(state) {
            throw CommandLineError.io("\(state): no such folder; --state names the publisher's state folder (`packtool root init --state DIR` makes one)")
        }
        let key = try SigningKeys.privateKeys([try a.required("--grant-key")], role: RootDocument.Role.grant, a)[0]
        let products = try a.required("--products").split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty }
        guard !products.isEmpty else { throw CommandLineError.usage("--products needs at least one product id") }
        if let pack = a.value("--pack-dir") {
            try checkProducts(products, pack: URL(fileURLWithPath: pack))
        } else {
            Output.err("warning: products were not checked against a pack (--pack-dir PACKDIR checks them)\n")
        }
        Output.err(inAppPurchaseNotice(products))
        let notBefore = try time(a, "--not-before", example: "2026-06-01T09:00:00Z or 2026-06-01")
        let notAfter = try time(a, "--not-after", example: "2026-06-08T09:00:00Z or 2026-06-08")
        guard notAfter > notBefore else { throw CommandLineError.usage("--not-after must be later than --not-before") }
        let device = a.value("--device")
        if let device, device.isEmpty || device.utf8.count > 256 || device.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw CommandLineError.usage("--device must be the app's device identifier (1 to 256 printable characters)")
        }
        let (rootFile, unchecked) = try thresholdRoot(a)
        let threshold = try rootFile.map { try grantThreshold(root: $0, key: key) }

        // The short form when the claims fit it, else the long one and why.
        var generator = SystemRandomNumberGenerator()
        let (compact, why) = try shortForm(format: format, products: products, threshold: threshold, device: device,
                                           notBefore: notBefore, notAfter: notAfter, generator: &generator)
        let id = compact?.idText ?? Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let grant = GrantDocument(id: id, products: products, notBefore: Timestamp.format(notBefore), notAfter: Timestamp.format(notAfter),
                                  issued: Timestamp.now(), note: a.value("--note") ?? "", device: device)
        let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(grant), as: PayloadType.grant, with: [key])
        let code: String
        if let compact {
            code = try compact.text(signature: key.signature(for: compact.signedMessage(product: products[0], device: device)))
        } else {
            code = textPrefix + Data(try CanonicalJSON.encode(envelope)).base64EncodedString().replacing("+", with: "-")
                .replacing("/", with: "_").replacing("=", with: "")
        }
        // Everything is made in memory first, so a failure writes nothing.
        let qr: [UInt8]?
        do { qr = try a.value("--qr").map { _ in try QRCode(code).png(moduleSize: 8, quietZone: 4) } } catch { throw CommandLineError.io("--qr: \(error)") }
        // The files first, then the ledger: a code whose files could not be written is not handed out, so it must
        // not be recorded as active either; a ledger that refuses takes the files back.
        let written = try writeFiles(out: a.value("--out").map { ($0, try envelope.jsonData()) }, qr: a.value("--qr").flatMap { path in qr.map { (path, Data($0)) } })
        do { try GrantRevokeCommand.record(grant, code: code, state: a.value("--state")) } catch {
            for url in written { FileSystem.removeFile(url.path) }
            throw error
        }
        if let why { Output.note("note: printing the long code: \(why)\n") }
        if threshold == nil, compact != nil {
            Output.note("note: the root was not checked \(unchecked): a short code opens only where the root's grant threshold is 1\n")
        }
        if json {
            try JSONValue.object([
                "code": .string(code), "id": .string(grant.id), "form": compact == nil ? "long" : "compact", "products": .strings(products),
                "notBefore": .string(grant.notBefore), "notAfter": .string(grant.notAfter), "device": .optional(device),
                "note": .string(grant.note), "recorded": .bool(a.value("--state") != nil), "envelopeFile": .optional(a.value("--out").map(ShownPath.of)),
                "qrFile": .optional(a.value("--qr")), "longBecause": .optional(why),
            ]).print()
            return 0
        }
        Output.out(code + "\n")
        Output.note("grant \(grant.id): \(products.joined(separator: ", ")) from \(grant.notBefore) until \(grant.notAfter)"
                   + (device.map { " on device \($0) only" } ?? " (any device)") + "\n")
        return 0
    }

    /// `--code-form` and `--format` (text or json). `--format auto|compact|long` was the code's form before --format
    /// meant text|json everywhere (DESIGN.md §8.1): the old spelling still works, with a note.
    private static func forms(_ a: Arguments) throws -> (format: String, json: Bool) {
        var format = a.value("--code-form") ?? "auto"
        var json = false
        switch a.value("--format") {
        case nil, "text": break
        case "json": json = true
        case let old? where ["auto", "compact", "long"].contains(old):
            Output.err("note: --format \(old) is now spelled --code-form \(old); the old spelling still works\n")
            format = old
        case let other?: throw CommandLineError.usage("--format \(other): expected text or json (the code's form is --code-form auto|compact|long)")
        }
        guard ["auto", "compact", "long"].contains(format) else { throw CommandLineError.usage("--code-form is auto, compact or long, not \(format)") }
        return (format, json)
    }

    /// The root that decides the grant threshold: --root, else the state's newest; when there is none, the words that
    /// say why it was not checked.
    private static func thresholdRoot(_ a: Arguments) throws -> (URL?, String) {
        var rootFile = a.value("--root").map { URL(fileURLWithPath: $0) }
        var unchecked = "(--root ROOT.json or --state DIR)"
        if rootFile == nil, let state = a.value("--state") {
            do {
                if let latest = try RootStore(state: URL(fileURLWithPath: state)).latest() {
                    rootFile = URL(fileURLWithPath: state).appendingPathComponent(PublishLayout.root(version: latest.version))
                } else {
                    unchecked = "(\(state) holds no root; --root ROOT.json names one)"
                }
            } catch let e as PublishError { throw CommandLineError.io(e.description) }
        }
        return (rootFile, unchecked)
    }

    /// The short form (`CompactGrant`) when the claims fit it — one product, a grant threshold of 1 — else nil and
    /// why, for the note; `--code-form compact` makes a misfit a usage error.
    private static func shortForm(format: String, products: [String], threshold: Int?, device: String?, notBefore: Date, notAfter: Date,
                                  generator: inout SystemRandomNumberGenerator) throws -> (CompactGrant?, String?) {
        var compact: CompactGrant?
        var why: String?
        if format != "long" {
            do {
                guard products.count == 1 else { throw CompactGrant.Problem("a short code names one product, and this grant has \(products.count)") }
                if let threshold, threshold != 1 {
                    throw CompactGrant.Problem("a short code carries one signature, and the root requires \(threshold) on access codes")
                }
                compact = try CompactGrant(id: UInt32.random(in: 0...UInt32.max, using: &generator), deviceBound: device != nil, notBefore: notBefore, notAfter: notAfter)
            } catch let problem as CompactGrant.Problem {
                if format == "compact" { throw CommandLineError.usage("cannot print a short code: \(problem.message)") }
                why = problem.message
            }
        }
        return (compact, why)
    }

    /// A time option in the one time grammar (RFC 3339, or a bare date meaning 00:00:00Z).
    static func time(_ a: Arguments, _ name: String, example: String) throws -> Date {
        _ = try a.required(name)
        return try a.time(name)!
    }

    /// Refuses a product the pack does not sell, listing the products it does: a misspelt id would make a code that opens
    /// nothing, and a visitor would find out at the door.
    static func checkProducts(_ products: [String], pack: URL) throws {
        let document: PackDocument
        do { document = try DocumentLoader.load(PackDocument.self, from: pack.appendingPathComponent("pack.json")) } catch {
            throw CommandLineError.io("--pack: \(error)")
        }
        let sold = [(document.access.products.cityPack.productId, "City Pack")]
            + (document.access.products.tripPass.map { [($0.productId, "Trip Pass")] } ?? [])
        for product in products where !sold.contains(where: { $0.0 == product }) {
            throw CommandLineError.usage("\(document.id) does not sell \"\(product)\"; did you mean "
                                         + sold.map { "\($0.0) (\($0.1))" }.joined(separator: " or ") + "?")
        }
    }

    /// Every product a code can open is one the app sells through In-App Purchase: App Review Guideline 3.1.1 does not
    /// let an app unlock what it sells with its own mechanisms ("license keys, augmented reality markers, QR codes").
    /// Said each time a code is issued, so a museum desk's paid unlock becomes an App Store offer code instead.
    static func inAppPurchaseNotice(_ products: [String]) -> String {
        "warning: \(products.joined(separator: ", ")) \(products.count == 1 ? "is" : "are") sold in the app through In-App Purchase; "
            + "App Review Guideline 3.1.1 does not allow unlocking paid content with the app's own codes. For a paid unlock "
            + "(a museum desk), hand out an App Store offer code the visitor redeems and pays Apple for; give signed access codes only where nothing is sold: press, staff, "
            + "schools, partners' free access (docs/operations.md, \"Selling access at a desk, and giving it away\")\n"
    }

    /// The grant threshold of a published root (`root/N.root.json`), after checking it is self-signed and that `key` is
    /// one of its grant keys (a code signed by another key would open nothing).
    static func grantThreshold(root url: URL, key: Ed25519PrivateKey) throws -> Int {
        let root: RootDocument
        do {
            let data = try SizeCaps.read(url, cap: SizeCaps.root)
            root = try VerificationFailure.about(url, .root) { try RootChain().selfSigned(SignedDocument.envelope(data, what: "root")) }
        } catch let f as VerificationFailure {
            throw CommandLineError(f)
        }
        guard let role = root.roles[RootDocument.Role.grant] else { throw CommandLineError.failure("\(ShownPath.of(url)): root version \(root.version) has no grant role") }
        guard role.keyids.contains(key.publicKey.keyID) else {
            throw CommandLineError.failure("the grant key (key id \(key.publicKey.keyID)) is not one of root version \(root.version)'s grant keys")
        }
        return role.threshold
    }

    /// Writes the envelope (--out) and the QR code (--qr), each atomically; when the second fails the first is removed,
    /// so a failed run leaves no file behind.
    @discardableResult
    static func writeFiles(out: (String, Data)?, qr: (String, Data)?) throws -> [URL] {
        var written: [URL] = []
        do {
            for (path, data) in [out, qr].compactMap({ $0 }) {
                let url = URL(fileURLWithPath: path)
                try AtomicFile.write(data, to: url)
                written.append(url)
            }
        } catch {
            for url in written { FileSystem.removeFile(url.path) }
            throw CommandLineError.io("\(error)")
        }
        return written
    }
}
