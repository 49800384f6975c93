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
import PackAuthoring
import PackFiles
import PackModel

/// `lint --fix`: makes the mechanical fixes lint's findings carry (DESIGN.md §8.9). Edits are byte ranges of the bytes
/// lint read, so every other byte stays as the author wrote it; each file is written whole and atomically through the
/// rooted layer opened at the pack; signoff.json is never written (a signature is the historian's, not lint's); a file
/// that changed since lint read it is left alone. It says which sign-offs the edits make stale.
public struct LintFixer {
    /// What one round of fixing did.
    public struct Outcome: Equatable, Sendable {
        /// The findings whose fixes were written.
        public var fixed: [Diagnostic] = []
        /// The files written, as diagnostics name them.
        public var files: [String] = []
        /// Stop folders (as diagnostics name them) with a signoff.json whose scene the fixes changed.
        public var staleSignoffs: [String] = []
        /// Findings with a fix that was not made, and why (another fix edits the same bytes; the file changed).
        public var notFixed: [(diagnostic: Diagnostic, reason: String)] = []
        /// Each file's bytes before and after the fixes, for a dry run (`dryRun`) to show as a diff.
        public var changes: [Change] = []

        public init() {}

        /// Adds another round's (or another path's) outcome: files and stale sign-offs once each; what was not fixed
        /// replaced by the later round's (`replacingNotFixed`: an earlier round's refusal may be fixed since) or added.
        public mutating func add(_ other: Outcome, replacingNotFixed: Bool = false) {
            fixed += other.fixed
            changes += other.changes
            for file in other.files where !files.contains(file) { files.append(file) }
            for stop in other.staleSignoffs where !staleSignoffs.contains(stop) { staleSignoffs.append(stop) }
            notFixed = replacingNotFixed ? other.notFixed : notFixed + other.notFixed
        }

        public static func == (a: Outcome, b: Outcome) -> Bool {
            a.fixed == b.fixed && a.files == b.files && a.staleSignoffs == b.staleSignoffs
                && a.notFixed.map(\.diagnostic) == b.notFixed.map(\.diagnostic) && a.notFixed.map(\.reason) == b.notFixed.map(\.reason)
        }
    }

    /// One file as a fix round would write it: its name as diagnostics give it, and its bytes before and after.
    public struct Change: Equatable, Sendable {
        public var file: String
        public var before: [UInt8]
        public var after: [UInt8]
    }

    /// How stories are heard, for the voice's fixes (a transcript shifted onto the voice); nil: none of those.
    public var listener: (any VoiceListening)?
    /// Work out the fixes and keep them in `Outcome.changes` without writing anything (one round: what the first
    /// round's fixes would uncover is found by the next real run).
    public var dryRun: Bool

    public init(listener: (any VoiceListening)? = nil, dryRun: Bool = false) {
        self.listener = listener
        self.dryRun = dryRun
    }

    /// Lints `url` (a pack or a stop) and applies its fixes, again while a round fixes something (a fix can uncover
    /// a finding a syntax slip hid), at most `rounds` times. What is left not fixed is what the last round left.
    public func fix(_ url: URL, rounds: Int = 5) throws -> Outcome {
        var total = Outcome()
        for _ in 0..<(dryRun ? 1 : max(1, rounds)) {
            let context = LintContext(path: url, listener: listener)
            let round = try apply(Linter(listener: listener).run(context).diagnostics, in: context)
            total.add(round, replacingNotFixed: true)
            if round.fixed.isEmpty { break }
        }
        // A fix may put back bytes a historian signed (a slip made after signing, mended): only the sign-offs that
        // no longer cover their scene once the fixes are in are stale.
        if !total.staleSignoffs.isEmpty, !dryRun {
            let after = Linter(listener: listener).run(url).diagnostics
            let uncovered = [SignoffRule.missing.code, SignoffRule.stale.code]
            total.staleSignoffs.removeAll { stop in !after.contains { uncovered.contains($0.code) && ($0.location.file == stop || $0.location.file.hasPrefix(stop + "/")) } }
        }
        return total
    }

    /// Applies the fixes among `diagnostics` (found in `context`) to the pack `context` read.
    public func apply(_ diagnostics: [Diagnostic], in context: LintContext) throws -> Outcome {
        var outcome = Outcome()
        let documents = Self.documents(in: context)
        var byFile: [String: [Diagnostic]] = [:]
        // Given one stop, only that stop's files are written (pack.json was read for its limits and reviewers).
        let scope = context.isWholePack ? nil : context.scenes.first.map { "stops/\($0.stop)/" }
        for d in diagnostics {
            guard let fix = d.fix, let file = fix.edits.first?.file else { continue }
            // One file per fix, and one lint read: anything else is not a fix this writer makes.
            guard fix.edits.allSatisfy({ $0.file == file }), let document = documents[file] else {
                outcome.notFixed.append((d, "its edits are not in one document lint read"))
                continue
            }
            if let scope, !document.relative.hasPrefix(scope) {
                outcome.notFixed.append((d, "\(file) is outside the stop given; run lint --fix on the pack"))
                continue
            }
            byFile[file, default: []].append(d)
        }
        guard !byFile.isEmpty else { return outcome }
        let pack = try RootedFolder(opening: context.root.path, followingLinkAtRoot: true)
        for file in byFile.keys.sorted() {
            guard let (original, relative) = documents[file] else { continue }
            let planned = byFile[file] ?? []
            if relative.hasSuffix("/" + PackFolder.signoffFile) || relative == PackFolder.signoffFile {
                outcome.notFixed += planned.map { ($0, "lint never writes signoff.json; sign again with packtool review sign") }
                continue
            }
            // The author may have saved the file since lint read it: their bytes win.
            let now: Data
            do { now = try pack.read(relative, cap: max(JSONDocument.maxBytes, 4 << 20)) } catch {
                // A link on the way (a stop folder that is a symbolic link), or the file gone: nothing is written.
                outcome.notFixed += planned.map { ($0, "\(file) cannot be written safely: \(error)") }
                continue
            }
            guard [UInt8](now) == original else {
                outcome.notFixed += planned.map { ($0, "\(file) changed after lint read it; lint again") }
                continue
            }
            var accepted: [Diagnostic] = []
            var taken: [Range<Int>] = []
            for d in planned {
                let ranges = d.fix!.edits.map(\.range)
                let fits = ranges.allSatisfy { r in r.upperBound <= original.count && !taken.contains { Self.collide($0, r) } }
                guard fits else {
                    outcome.notFixed.append((d, "another fix edits the same place; lint --fix again"))
                    continue
                }
                taken += ranges
                accepted.append(d)
            }
            guard !accepted.isEmpty else { continue }
            var bytes = original
            let edits = accepted.flatMap { $0.fix!.edits }.enumerated()
                .sorted { ($0.element.offset, $0.offset) > ($1.element.offset, $1.offset) }.map(\.element)
            for edit in edits { bytes.replaceSubrange(edit.range, with: Array(edit.replacement.utf8)) }
            if dryRun {
                outcome.changes.append(Change(file: file, before: original, after: bytes))
            } else {
                try pack.rewriteAuthored(Data(bytes), to: relative)
            }
            outcome.fixed += accepted
            outcome.files.append(file)
            if let stop = Self.stop(of: relative), let scene = context.scenes.first(where: { $0.stop == stop }), scene.signoff != nil,
               !outcome.staleSignoffs.contains(scene.path) {
                outcome.staleSignoffs.append(scene.path)
            }
        }
        return outcome
    }

    /// Two edits collide when their ranges overlap, or an insertion falls at the start of or inside the other's
    /// range (which goes first would be a guess). An insertion right after a replaced value is fine.
    static func collide(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        if a.overlaps(b) || a.lowerBound == b.lowerBound { return true }
        func inserts(_ x: Range<Int>, into y: Range<Int>) -> Bool { x.isEmpty && y.lowerBound < x.lowerBound && x.lowerBound < y.upperBound }
        return inserts(a, into: b) || inserts(b, into: a)
    }

    /// Every file lint read that a fix may edit — the JSON documents and the transcripts — by the name diagnostics give
    /// it, with the bytes lint read and its path inside the pack.
    static func documents(in context: LintContext) -> [String: (bytes: [UInt8], relative: String)] {
        var all: [(name: String, url: URL, bytes: [UInt8])] = []
        var json: [JSONDocument] = [context.pack].compactMap { $0 }
        for scene in context.scenes {
            json += [scene.scene, scene.mask, scene.signoff].compactMap { $0 }
            if let story = scene.story, let url = scene.inside(story.transcript), let bytes = context.vttBytes[url.path] {
                all.append((scene.display(story.transcript), url, bytes))
            }
        }
        all += json.compactMap { d in d.data.map { (d.path, d.url, [UInt8]($0)) } }
        let root = context.root.standardizedFileURL.path
        var out: [String: (bytes: [UInt8], relative: String)] = [:]
        for file in all {
            let path = file.url.standardizedFileURL.path
            guard path.hasPrefix(root + "/") else { continue }
            out[file.name] = (file.bytes, String(path.dropFirst(root.count + 1)))
        }
        return out
    }

    /// The stop a pack-relative path lies in (`stops/NAME/…`).
    static func stop(of relative: String) -> String? {
        let parts = PathParts.split(relative, omittingEmpty: true)
        return parts.count >= 3 && parts[0] == "stops" ? String(parts[1]) : nil
    }
}
