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
        usage: packtool grant issue --grant-key GRANT.pem --products ID[,ID...] --not-before TIME --not-after TIME
                                    [--pack PACKDIR] [--root ROOT.json] [--device ID] [--note TEXT]
                                    [--format auto|compact|long] [--out FILE] [--qr FILE.png] [--state DIR]

        Signs a grant {id, products, notBefore, notAfter} with the grant role's key and prints it as an access code,
        usable offline. The code is valid in [not-before, not-after). TIME is RFC 3339 (2026-06-01T09:00:00Z) or a bare
        date (2026-06-01, meaning 00:00:00Z that day).
        A code for one product with whole-hour times is printed short, for people to type: 117 characters in groups of
        five (e.g. 1N2Q4-…-5Z), any case, dashes optional. Otherwise, or with --format long, it is printed long
        (PTG1.<base64url of the signed envelope>, about 740 characters), with a note saying why. A short code carries one
        signature, so it opens only where the root's grant threshold is 1: --root checks that (and that the key is one
        of the root's grant keys); --format compact refuses to print anything else.
        --pack PACKDIR checks each product against the pack's City Pack and Trip Pass ids (pack.json); without it the
        products are not checked. Without --device a code is a bearer token: it opens on any number of devices.
        --device ID (the identifier the app passes as "device" in its access requests) makes it open on that device only.
        --out also writes the signed envelope as JSON; --qr writes the code as a QR code PNG.
        --state DIR records the grant in DIR's grant ledger, so `grant list` shows it and `grant revoke` finds it by id;
        without --root, the root is DIR's newest.
        (--key is the old spelling of --grant-key.)

        example:
          packtool grant issue --grant-key keys/grant.pem --pack scenes/royal-mile --root pub/root/1.root.json \\
              --products uk.example.walks.royalmile.citypack --not-before 2026-12-01 --not-after 2026-12-08 --qr desk.png

        """ + GrantRevokeCommand.help

    static let textPrefix = "PTG1."

    static func run(_ args: [String]) throws -> Int32 {
        if args.first == "revoke" { return try GrantRevokeCommand.revoke(Array(args.dropFirst())) }
        if args.first == "list" { return try GrantRevokeCommand.list(Array(args.dropFirst())) }
        return try issue(args)
    }
}
