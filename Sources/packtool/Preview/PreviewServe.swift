#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackAudio
import PackAuthoring
import PackModel
import PackPreview

/// `packtool preview PACK --serve`: builds the site, serves it on loopback, and rebuilds whenever a file in the pack
/// changes; open pages reload themselves, and a failed rebuild leaves the last good site served with its error shown.
enum PreviewServe {
    static let defaultPort: UInt16 = 8024
    static let defaultHost = "127.0.0.1"
    /// How often the pack is compared with its last snapshot.
    static let pollInterval: useconds_t = 150_000

    /// `--port` and `--host` are for `--serve` only.
    static func checkOptions(serve: Bool, port: String?, host: String?) throws {
        guard !serve else { return }
        if port != nil { throw CommandLineError.usage("--port goes with --serve") }
        if host != nil { throw CommandLineError.usage("--host goes with --serve") }
    }

    static func parsePort(_ text: String?) throws -> UInt16 {
        guard let text else { return defaultPort }
        guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = UInt16(text), port > 0 else {
            throw CommandLineError.usage("--port \(text): give a port number from 1 to 65535")
        }
        return port
    }

    static func run(pack packPath: String, output: URL, port portText: String?, host: String?, plateCache: PlateCache?, quiet: Bool, open: Bool) throws -> Int32 {
        let port = try parsePort(portText)
        let listener: LoopbackListener
        do { listener = try LoopbackListener(host: host ?? defaultHost, port: port) } catch let failure as LoopbackListener.Failure {
            if case .notLoopback = failure { throw CommandLineError.usage(failure.description) }
            throw CommandLineError.io(failure.description)
        }
        _ = signal(SIGPIPE, SIG_IGN)
        PreviewInterruption.install()
        let stopping = { PreviewInterruption.received != 0 }
        var builder = PreviewBuilder(pack: URL(fileURLWithPath: packPath), output: output)
        builder.shouldStop = { PreviewInterruption.received != 0 }
        builder.plateCache = plateCache
        builder.listener = StoryVoice.standard()
        let server = PreviewServer()

        var snapshot = PackSnapshot.take(packPath)
        do {
            try rebuild(builder, into: server, quiet: quiet)
        } catch let error as PreviewError {
            switch error {
            case .usage(let m): throw CommandLineError.usage(m)
            case .io(let m): throw CommandLineError.io(m)
            case .interrupted: PreviewInterruption.endAsSignalled()
            }
        }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            listener.serve(shouldStop: stopping, respond: { server.respond(to: $0) })
            done.signal()
        }
        Output.out("serving \(Output.escapingControls(ShownPath.of(packPath))) at \(listener.url) (rebuilt when the pack changes; Ctrl-C stops)\n")
        if open, let url = URL(string: listener.url) { PreviewCommand.openInBrowser(url) }
        while !stopping() {
            usleep(pollInterval)
            let now = PackSnapshot.take(packPath)
            guard now != snapshot, !stopping() else { continue }
            snapshot = now
            do {
                try rebuild(builder, into: server, quiet: quiet)
            } catch PreviewError.interrupted {
                break
            } catch {
                let message = Self.message(error)
                server.fail(message)
                Output.err("packtool preview: the rebuild failed; still serving the last good preview: \(Output.escapingControls(message))\n")
            }
        }
        done.wait()
        Output.err("packtool preview: stopped\n")
        return 0
    }

    /// Builds the site and serves it from now on.
    static func rebuild(_ builder: PreviewBuilder, into server: PreviewServer, quiet: Bool) throws {
        let summary = try builder.build()
        let site = summary.index.deletingLastPathComponent().path
        let folder: RootedFolder
        do { folder = try RootedFolder(opening: site) } catch { throw PreviewError.io("\(site): cannot open the site just written: \(error)") }
        server.publish(folder)
        for failure in summary.failedPlates {
            Output.err("packtool preview: \(Output.escapingControls("\(failure.file): cannot show this plate: \(failure.message)"))\n")
        }
        if !quiet {
            Output.err("packtool preview: built \(summary.stops) stop\(summary.stops == 1 ? "" : "s"), \(summary.decoded) plate\(summary.decoded == 1 ? "" : "s") decoded, \(summary.reused) reused; lint: \(summary.errors) error\(summary.errors == 1 ? "" : "s"), \(summary.warnings) warning\(summary.warnings == 1 ? "" : "s")\n")
        }
    }

    static func message(_ error: Error) -> String {
        switch error {
        case PreviewError.usage(let m), PreviewError.io(let m): return m
        default: return "\(error)"
        }
    }
}
