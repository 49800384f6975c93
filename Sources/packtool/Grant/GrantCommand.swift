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
    static let summary = "issue, revoke and list signed access codes for products, valid between two times; re-sign the revocation list"
    static let help = """
        usage: packtool grant issue --grant-key GRANT.pem --products ID[,ID...] --not-before TIME --not-after TIME
                                    [--pack-dir PACKDIR] [--root ROOT.json] [--device ID] [--note TEXT]
                                    [--code-form auto|compact|long] [--out FILE] [--qr FILE.png] [--state DIR] [--format text|json]

        Signs a grant {id, products, notBefore, notAfter} with the grant role's key and prints it as an access code,
        usable offline. The code is valid in [not-before, not-after). TIME is RFC 3339 (2026-06-01T09:00:00Z) or a bare
        date (2026-06-01, meaning 00:00:00Z that day).
        A code for one product with whole-hour times is printed short, for people to type: 117 characters in groups of
        five (e.g. 1N2Q4-…-5Z), any case, dashes optional. Otherwise, or with --code-form long, it is printed long
        (PTG1.<base64url of the signed envelope>, about 740 characters), with a note saying why. A short code carries one
        signature, so it opens only where the root's grant threshold is 1: --root checks that (and that the key is one
        of the root's grant keys); --code-form compact refuses to print anything else.
        --pack-dir PACKDIR checks each product against the pack's City Pack and Trip Pass ids (pack.json); without it the
        products are not checked. Without --device a code is a bearer token: it opens on any number of devices.
        --device ID (the identifier the app passes as "device" in its access requests) makes it open on that device only.
        --out also writes the signed envelope as JSON; --qr writes the code as a QR code PNG.
        --state DIR records the grant in DIR's grant ledger, so `grant list` shows it and `grant revoke` finds it by id;
        without --root, the root is DIR's newest.
        (--key is the old spelling of --grant-key, --pack of --pack-dir, --format auto|compact|long of --code-form.)

        """ + GrantRevokeCommand.help
    static let options: [CommandOption] = [
        CommandOption("--grant-key", "GRANT.pem", "a private key of the grant role (repeatable for revoke)", aliases: ["--key"], only: ["issue", "revoke", "resign"]),
        PassphraseFlags.option.only(["issue", "revoke", "resign"]),
        CommandOption("--products", "ID[,ID...]", "the store product ids the code opens", only: ["issue"]),
        CommandOption("--not-before", "TIME", "valid from TIME (RFC 3339, or a date meaning 00:00Z)", only: ["issue"]),
        CommandOption("--not-after", "TIME", "valid until just before TIME (RFC 3339, or a date meaning 00:00Z)", only: ["issue"]),
        CommandOption("--pack-dir", "PACKDIR", "check each product against the pack's pack.json", aliases: ["--pack"], only: ["issue"]),
        CommandOption("--root", "ROOT.json", "check the key and that the root's grant threshold allows a short code", only: ["issue"]),
        CommandOption("--device", "ID", "open on this device only", only: ["issue"]),
        CommandOption("--note", "TEXT", "a note kept in the grant ledger", only: ["issue"]),
        CommandOption("--code-form", "auto|compact|long", "the code's form: short when it can be (auto, default), short or refuse\n(compact), or always long", only: ["issue"]),
        CommandOption("--out", "FILE", "also write the signed envelope as JSON", only: ["issue"]),
        CommandOption("--qr", "FILE.png", "also write the code as a QR code PNG", only: ["issue"]),
        CommandOption("--state", "DIR", "the publisher's state folder (its grant ledger and revocation lists)"),
        CommandOption("--reason", "TEXT", "why the code is revoked (shown to the visitor)", only: ["revoke"]),
        .flag("--unknown-id", "revoke an id the grant ledger does not know", only: ["revoke"]),
        .format("text, or one JSON object: the code and grant (issue), the revocation list written (revoke),\nthe grants (list)"),
    ]
    static let examples = [
        "packtool grant issue --grant-key keys-example/grant.pem --pack-dir scenes/royal-mile --root demo-out/state/root/1.root.json --products uk.example.walks.royalmile.citypack --not-before 2026-12-01 --not-after 2026-12-08 --qr desk.png",
        "packtool grant revoke 1a2b3c4d --reason \"lost at the museum desk\" --state demo-out/state --grant-key keys-example/grant.pem --unknown-id",
        "packtool grant list --state demo-out/state --format json",
    ]

    static let textPrefix = "PTG1."

    static func run(_ args: [String]) throws -> Int32 {
        if args.first == "revoke" { return try GrantRevokeCommand.revoke(Array(args.dropFirst())) }
        if args.first == "list" { return try GrantRevokeCommand.list(Array(args.dropFirst())) }
        if args.first == "resign" { return try GrantRevokeCommand.resign(Array(args.dropFirst())) }
        return try issue(args)
    }
}
