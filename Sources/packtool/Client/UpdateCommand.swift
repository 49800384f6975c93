#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackHTTP
import PackVerify

/// `packtool update`: what the app does to stay current, from an HTTP(S) server or a folder.
enum UpdateCommand: Command {
    static let name = "update"
    static let summary = "update an installed pack from a published tree over HTTP(S) or file://, by per-scene deltas"
    static let help = """
        usage: packtool update --tree URL|DIR --into DIR --pack ID --root ROOT.json [--client-state STATEDIR] [--timeout 15] [--quiet]

        Fetches URL/index.json and the manifest it names, then for each changed scene the delta from the installed
        version (or from version 0 when that is missing or unusable; the full archive when pack-level files changed
        or nothing is installed). Downloads resume with Range requests, never exceed the signed sizes, time out on a
        stalled server (--timeout: seconds of silence, 0.1 to 3600, default 15) and are retried. The new version is
        built in staging and switched in atomically; any failure leaves the installed version intact. URL is
        http://, https:// or file://.
        A whole archive (a first install) is verified and written while it downloads, and each stop is reported the
        moment its files are verified (the free stop first, then the route). Progress goes to standard error: a bar
        on a terminal, plain lines otherwise; --quiet turns it off.

        """
    static let options: [CommandOption] = [
        CommandOption("--tree", "URL|DIR", "the published tree to read (http://, https://, file:// or a folder)", aliases: ["--from"]),
        CommandOption("--into", "DIR", "the install folder"),
        CommandOption("--pack", "ID", "the pack to update"),
        CommandOption("--root", "ROOT.json", "the root to pin on the first install"),
        CommandOption("--client-state", "STATEDIR", "the client state (default DIR/.packtool-client)", aliases: ["--state"]),
        CommandOption.timeout("15"),
        .format("text, or one JSON object: pack, the version before and after, what was downloaded"),
    ]
    static let examples = [
        "packtool update --tree file://$PWD/demo-out/cdn --into demo-out/app --pack royal-mile --root demo-out/state/root/1.root.json",
        "packtool update --tree https://cdn.example.org/royal-mile --into app --pack royal-mile --root root.json --timeout 30 --quiet --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.isEmpty else { throw CommandLineError.usage("unexpected \(a.positionals[0])") }
        let into = URL(fileURLWithPath: try a.required("--into"))
        let state = a.value("--client-state").map { URL(fileURLWithPath: $0) } ?? into.appendingPathComponent(".packtool-client")
        let from = try a.required("--tree")
        let json = try OutputFormat.json(a)
        let fetcher: Fetcher
        do { fetcher = try PublishedTreeFlags.fetcher(from, timeout: try a.timeout(default: 15)) } catch let f as VerificationFailure {
            throw CommandLineError.usage("--tree: " + f.message)
        }
        var pin = FirstPin(state: state, into: into)
        do {
            let result: Updater.Result
            let display = InstallProgressDisplay(quiet: a.flag("--quiet") || json)
            do {
                try pin.pinIfNeeded { try a.required("--root") }
                result = try PackClient(state: state).update(pack: try a.required("--pack"), into: into, from: fetcher,
                                                             onProgress: display.map { d in { @Sendable report in d.show(report) } })
            } catch {
                display?.finish()
                pin.rollBack()
                throw error
            }
            display?.finish()
            if json {
                try JSONValue.object(["pack": .string(result.pack), "fromVersion": result.fromVersion.map { .int(Int($0)) } ?? .null,
                                      "toVersion": .int(Int(result.toVersion)), "method": .string("\(result.method)"),
                                      "changedScenes": .strings(result.changedScenes), "fallbacks": .strings(result.fallbacks)]).print()
                return 0
            }
            let from = result.fromVersion.map { "version \($0)" } ?? "nothing installed"
            Output.out("\(result.pack): \(from) → version \(result.toVersion) (\(result.method))"
                + (result.changedScenes.isEmpty ? "" : "; changed: \(result.changedScenes.joined(separator: ", "))") + "\n")
            for fallback in result.fallbacks { Output.out("  fallback: \(Output.escapingControls(fallback))\n") }
            return 0
        } catch let f as VerificationFailure {
            throw CommandLineError(f, context: "; the installed version is unchanged")
        }
    }
}
