#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackModel
import PackSigning

/// `packtool grant issue`: a signed access code (grant role) for museums and gifts, usable offline.
enum GrantCommand: Command {
    static let name = "grant"
    static let summary = "issue, revoke and list signed access codes for products, valid between two times"
    static let help = """
        usage: packtool grant issue --key GRANT.pem --products ID[,ID...] --not-before TIME --not-after TIME
                                    [--device ID] [--note TEXT] [--out FILE] [--state DIR]

        Signs a grant {id, products, notBefore, notAfter} with the grant role's key. Prints the code as one line of
        text (PTG1.<base64url of the signed envelope>) for printing, QR codes or e-mail; --out also writes the
        envelope as JSON. TIME is RFC 3339 UTC, e.g. 2026-06-01T00:00:00Z; the code is valid in [not-before, not-after).
        Without --device a code is a bearer token: it opens on any number of devices. --device ID (the identifier the
        app passes as "device" in its access requests) makes it open on that device only. --state DIR records the
        grant in DIR's grant ledger, so `grant list` shows it and `grant revoke` finds it by id.

        """ + GrantRevokeCommand.help

    static let textPrefix = "PTG1."

    static func run(_ args: [String]) throws -> Int32 {
        if args.first == "revoke" { return try GrantRevokeCommand.revoke(Array(args.dropFirst())) }
        if args.first == "list" { return try GrantRevokeCommand.list(Array(args.dropFirst())) }
        let a = try Arguments(args, options: ["--key", "--products", "--not-before", "--not-after", "--device", "--note", "--out", "--state"], flags: [])
        guard a.positionals == ["issue"] else { throw CommandLineError.usage("expected `grant issue`") }
        let key = try SigningKeys.privateKeys([try a.required("--key")], role: RootDocument.Role.grant)[0]
        let products = try a.required("--products").split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty }
        guard !products.isEmpty else { throw CommandLineError.usage("--products needs at least one product id") }
        guard let notBefore = Timestamp.parse(try a.required("--not-before")) else { throw CommandLineError.usage("--not-before must be RFC 3339, e.g. 2026-06-01T00:00:00Z") }
        guard let notAfter = Timestamp.parse(try a.required("--not-after")) else { throw CommandLineError.usage("--not-after must be RFC 3339, e.g. 2026-06-08T00:00:00Z") }
        guard notAfter > notBefore else { throw CommandLineError.usage("--not-after must be later than --not-before") }
        let device = a.value("--device")
        if let device, device.isEmpty || device.utf8.count > 256 || device.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw CommandLineError.usage("--device must be the app's device identifier (1 to 256 printable characters)")
        }
        var random = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in random.indices { random[i] = UInt8.random(in: 0...255, using: &generator) }
        let grant = GrantDocument(id: Hex.encode(random), products: products, notBefore: Timestamp.format(notBefore), notAfter: Timestamp.format(notAfter),
                                  issued: Timestamp.now(), note: a.value("--note") ?? "", device: device)
        let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(grant), as: PayloadType.grant, with: [key])
        let compact = try CanonicalJSON.encode(envelope)
        let code = textPrefix + Data(compact).base64EncodedString().replacing("+", with: "-")
            .replacing("/", with: "_").replacing("=", with: "")
        try GrantRevokeCommand.record(grant, code: code, state: a.value("--state"))
        if let out = a.value("--out") {
            do { try AtomicFile.write(try envelope.jsonData(), to: URL(fileURLWithPath: out)) } catch { throw CommandLineError.io("\(error)") }
        }
        Output.out(code + "\n")
        Output.err("grant \(grant.id): \(products.joined(separator: ", ")) from \(grant.notBefore) until \(grant.notAfter)"
                   + (device.map { " on device \($0) only" } ?? " (any device)") + "\n")
        return 0
    }
}
