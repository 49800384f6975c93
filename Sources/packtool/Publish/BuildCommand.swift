#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackAudio
import PackAuthoring
import PackMedia
import PackCrypto
import PackModel
import PackLint
import PackPublish

/// `packtool build`: what `sign` would publish, without keys and without writing anything.
enum BuildCommand: Command {
    static let name = "build"
    static let summary = "show what sign would publish: lint gate, versions, changed scenes, sizes (writes nothing)"
    static let help = """
        usage: packtool build PACKDIR --state DIR [--allow-warnings]

        Runs the same lint gate and versioning as `packtool sign` against the ledger in DIR and prints the plan:
        the next pack version, each scene's version and whether it changed, and the archive's content size.

        """
    static let options: [CommandOption] = [
        CommandOption("--state", "DIR", "the publisher's state folder (its ledger decides the versions)"),
        .flag("--allow-warnings", "plan even when lint finds warnings (errors always stop)"),
        .format("text, or one JSON object: pack, version, previous version, scenes and sizes"),
    ]
    static let examples = [
        "packtool build scenes/royal-mile --state demo-out/state",
        "packtool build scenes/royal-mile --state demo-out/state --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == 1 else { throw CommandLineError.usage("expected one PACKDIR") }
        var options = Publisher.Options(pack: URL(fileURLWithPath: a.positionals[0]), state: URL(fileURLWithPath: try a.required("--state")),
                                        output: URL(fileURLWithPath: "/nonexistent"), manifestKeys: [], indexKeys: [])
        options.allowWarnings = a.flag("--allow-warnings")
        options.listener = StoryVoice.standard()
        options.digestMemory = DigestMemory.standard()
        do {
            let plan = try Publisher(options: options).plan()
            let m = plan.manifest
            var text = "\(m.pack): version \(m.version)\(plan.previousVersion.map { " (previous \($0))" } ?? " (first release)")\(plan.unchanged ? ", unchanged: nothing to publish" : "")\n"
            for s in m.scenes { text += "  \(s.id) version \(s.version)\(plan.changedScenes.contains(s.id) ? " (changed)" : "")  \(s.files.count) files\n" }
            text += "  \(m.archiveEntries.count) files, \(plan.totalBytes) bytes\n"
            if !plan.warnings.isEmpty { text += "  \(plan.warnings.count) lint warning(s) allowed\n" }
            if try OutputFormat.json(a) {
                try JSONValue.object([
                    "pack": .string(m.pack), "version": .int(Int(m.version)), "previousVersion": plan.previousVersion.map { .int(Int($0)) } ?? .null,
                    "unchanged": .bool(plan.unchanged), "files": .int(m.archiveEntries.count), "bytes": .int(Int(plan.totalBytes)),
                    "warningsAllowed": .int(plan.warnings.count),
                    "scenes": .array(m.scenes.map { s in
                        ["id": .string(s.id), "version": .int(Int(s.version)), "changed": .bool(plan.changedScenes.contains(s.id)), "files": .int(s.files.count)]
                    }),
                ]).print()
                return 0
            }
            Output.out(text)
            return 0
        } catch let e as PublishError {
            if case .lint(let d) = e { Output.err(TextRenderer(color: false).render(d)) }
            throw CommandLineError.failure(e.description)
        }
    }
}
