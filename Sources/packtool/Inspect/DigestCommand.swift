#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackModel

/// `packtool digest FOLDER`: prints the tree digest of DESIGN.md §3, optionally with its listing.
enum DigestCommand: Command {
    static let name = "digest"
    static let summary = "print the tree digest of a folder (as a sign-off or manifest records it)"
    static let help = """
        usage: packtool digest FOLDER [--content] [--listing]

        Prints sha256:<hex> over every regular file under FOLDER, equal to
        `find . -type f | LC_ALL=C sort | xargs sha256sum | sed 's|  \\./|  |' | sha256sum`.

        """
    static let options: [CommandOption] = [
        .flag("--content", "leave out signoff.json (the digest a sign-off covers)"),
        .flag("--listing", "also print the sha256sum-style lines the digest is taken over"),
        .format("text, or one JSON object: folder, digest, files (and the listing with --listing)"),
    ]
    static let examples = [
        "packtool digest scenes/royal-mile/stops/01-castle-esplanade --content",
        "packtool digest scenes/royal-mile --listing --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == 1 else { throw CommandLineError.usage("expected one FOLDER") }
        let digest: TreeDigest
        do {
            digest = try TreeDigest(folder: URL(fileURLWithPath: a.positionals[0]),
                                    excluding: a.flag("--content") ? [PackFolder.signoffFile] : [])
        } catch { throw CommandLineError.io("\(error)") }
        if try OutputFormat.json(a) {
            var report: [String: JSONValue] = ["folder": .string(ShownPath.of(a.positionals[0])), "digest": .string(digest.prefixed),
                                               "content": .bool(a.flag("--content"))]
            if a.flag("--listing") { report["listing"] = .strings(digest.listing.split(separator: "\n").map(String.init)) }
            try JSONValue.object(report).print()
            return 0
        }
        if a.flag("--listing") { Output.out(digest.listing) }
        Output.out(digest.prefixed + "\n")
        return 0
    }
}
