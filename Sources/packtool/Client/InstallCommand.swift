#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackVerify

/// `packtool install`: what the app does with a downloaded pack archive, for support and testing.
enum InstallCommand: Command {
    static let name = "install"
    static let summary = "verify and install a pack archive the way the app does (atomic; refuses unsafe archives)"
    static let help = """
        usage: packtool install ARCHIVE --into DIR --root ROOT.json [--client-state STATEDIR] [--quiet]
               packtool install --verify --into DIR --pack ID [--client-state STATEDIR] [--threads N]

        Verifies ARCHIVE with PackVerify — manifest signature under the pinned root, expiry, rollback, and every
        entry (regular files only; no .., absolute paths, links, devices, duplicates or case/Unicode twins; exact
        sizes and hashes) — into a staging folder, then switches DIR/<pack>/current to it atomically. STATEDIR
        (default DIR/.packtool-client) holds the client state; the first install pins ROOT there.
        Progress goes to standard error (a bar on a terminal, a line per verified stop otherwise; --quiet: none).
        --verify checks an installed pack at rest and lists every missing, changed or extra file.
        Exit codes: 0 installed / intact, 1 refused / damaged (the previous install is untouched), 2 usage or I/O.

        """
    static let options: [CommandOption] = [
        CommandOption("--into", "DIR", "the install folder (DIR/<pack>/current)"),
        CommandOption("--root", "ROOT.json", "the root to pin on the first install"),
        CommandOption("--client-state", "STATEDIR", "the client state (default DIR/.packtool-client)", aliases: ["--state"]),
        CommandOption("--pack", "ID", "the installed pack to check (with --verify)"),
        CommandOption("--threads", "N", "how many files to hash at once (with --verify)"),
        .flag("--verify", "check an installed pack at rest"),
        .format("text, or one JSON object: pack, version, scenes (install) or the missing, changed and extra files (--verify)"),
    ]
    static let examples = [
        "packtool install demo-out/cdn/packs/royal-mile/1/royal-mile-1.tar --into demo-out/app --root demo-out/state/root/1.root.json",
        "packtool install --verify --into demo-out/app --pack royal-mile --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        let into = URL(fileURLWithPath: try a.required("--into"))
        let state = a.value("--client-state").map { URL(fileURLWithPath: $0) } ?? into.appendingPathComponent(".packtool-client")
        let json = try OutputFormat.json(a)
        do {
            if a.flag("--verify") {
                var threads: Int?
                if let t = a.value("--threads") {
                    guard let n = Int(t), n >= 1 else { throw CommandLineError.usage("--threads must be a whole number ≥ 1") }
                    threads = n
                }
                let report = try PackClient(state: state).verifyInstalled(pack: try a.required("--pack"), into: into, threads: threads)
                var text = "\(report.pack) version \(report.version): \(report.checkedFiles) files checked, \(report.isIntact ? "intact" : "DAMAGED")\n"
                text += report.missing.map { "  missing: \($0)\n" }.joined() + report.changed.map { "  changed: \($0)\n" }.joined() + report.extra.map { "  extra: \($0)\n" }.joined()
                if json {
                    try JSONValue.object(["pack": .string(report.pack), "version": .int(Int(report.version)), "checkedFiles": .int(report.checkedFiles),
                                          "intact": .bool(report.isIntact), "missing": .strings(report.missing), "changed": .strings(report.changed),
                                          "extra": .strings(report.extra)]).print()
                } else {
                    Output.out(text)
                }
                return report.isIntact ? 0 : 1
            }
            guard a.positionals.count == 1 else { throw CommandLineError.usage("expected one ARCHIVE") }
            var pin = FirstPin(state: state, into: into)
            let result: Installer.Result
            let display = InstallProgressDisplay(quiet: a.flag("--quiet") || json)
            do {
                try pin.pinIfNeeded { try a.required("--root") }
                result = try PackClient(state: state).install(archive: URL(fileURLWithPath: a.positionals[0]), into: into,
                                                              progress: display.map { d in { @Sendable report in d.show(report) } })
            } catch {
                display?.finish()
                pin.rollBack()
                throw error
            }
            display?.finish()
            if json {
                try JSONValue.object(["pack": .string(result.pack), "version": .int(Int(result.version)), "files": .int(Int(result.files)),
                                      "bytes": .int(Int(result.bytes)), "installed": true, "into": .string(ShownPath.of(into))]).print()
                return 0
            }
            Output.out("installed \(result.pack) version \(result.version): \(result.files) files, \(result.bytes) bytes, verified\n")
            return 0
        } catch let f as VerificationFailure {
            throw CommandLineError(f)
        }
    }
}
