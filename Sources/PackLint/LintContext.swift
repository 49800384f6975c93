#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PackAuthoring
import PackFiles
import PackMedia
import PackModel

/// Everything rules look at, read once: the pack's documents with positions, decoded models, limits, and cached
/// media probes (so a plate is probed once however many rules ask about it).
public final class LintContext {
    public let root: URL
    /// False when linting a single scene: route and pack-wide rules then stay quiet.
    public let isWholePack: Bool
    public let pack: JSONDocument?
    /// pack.json's sections, each decoded on its own when it parsed and met the schema (as for scene.json), so a
    /// mistake in one does not switch off the route, access, reviewer, sign-off, language, area or limit checks.
    public let packReviewers: [PackDocument.Reviewer]?
    public let packLanguage: String?
    public let packArea: PackDocument.Area?
    public let packRoute: [String]?
    public let packAccess: PackDocument.Access?
    public let packGeofenceRadius: Double?
    /// The size budget pack.json sets, or the default when it sets none; nil when the field is there but broken.
    public let packSizeBudget: Int?
    public let limits: ResolvedLimits
    /// pack.json's sections that are there but could not be read, so the checks that need them did not run.
    public let packSkipped: [String]
    public let scenes: [SceneSource]
    /// The current year, for "not in the future" (injectable for tests).
    public let currentYear: Int

    private var heifCache: [String: HEIFInfo] = [:]
    private var audioCache: [String: MP4AudioInfo] = [:]
    private var vttCache: [String: WebVTTFile] = [:]
    /// The bytes of each transcript as lint read them, for `lint --fix` (which writes only over the bytes it read).
    private(set) var vttBytes: [String: [UInt8]] = [:]
    private var voiceCache: [String: Result<VoiceActivity, VoiceNotHeard>] = [:]
    /// How lint hears a story (packtool gives PackAudio's `StoryVoice`); nil: the voice is not checked.
    public let listener: (any VoiceListening)?
    private var signoffCache: [String: SignoffAssessment] = [:]
    /// Guards the caches and counts, which `readAhead` fills from every core; what is cached is worked out outside it.
    private let cacheLock = Lock()
    private lazy var reviewerKeys = packReviewers.map(SignoffAssessment.reviewerKeys)
    /// Bytes the media probes read, and the total size of the media they looked at.
    /// Conjecture coverage by stop and era year, filled by MaskRule for the report.
    public var conjectureCoverage: [String: [String: Double]] = [:]
    public private(set) var mediaBytesRead: UInt64 = 0
    public private(set) var mediaBytesProbed: UInt64 = 0

    /// Full tree digests already computed by the caller (a publish hashes every file once and shares it), by stop.
    private let knownDigests: [String: TreeDigest]
    /// Where digests of unchanged files are remembered between runs (`DigestMemory`); nil: every file is hashed.
    public var digestMemory: DigestMemory?
    /// Content digests lint computed itself (see `contentDigest`), by stop.
    private var computedDigests: [String: Result<TreeDigest, Error>]?

    /// Lints the pack at `root`, or — when `root` is a stop folder (it holds a scene.json, or is in a pack's stops/;
    /// `LintTarget`) — that one scene of the pack two levels up.
    public init(path: URL, currentYear: Int = Calendar(identifier: .gregorian).component(.year, from: Date()),
                sceneDigests: [String: TreeDigest] = [:], listener: (any VoiceListening)? = nil) {
        self.currentYear = currentYear
        self.listener = listener
        knownDigests = sceneDigests
        let isScene = LintTarget.kind(of: path) == .stop
        let packRoot = isScene ? LintTarget.packRoot(ofStop: path) : path
        root = packRoot
        isWholePack = !isScene
        let packURL = packRoot.appendingPathComponent("pack.json")
        pack = JSONDocument(url: packURL, path: Self.display(packURL), schema: "pack.schema.json")
        packReviewers = pack?.decode([PackDocument.Reviewer].self, at: "/reviewers")
        packLanguage = pack?.decode(String.self, at: "/language")
        packArea = pack?.decode(PackDocument.Area.self, at: "/area")
        packRoute = pack?.decode([String].self, at: "/route")
        packAccess = pack?.decode(PackDocument.Access.self, at: "/access")
        packGeofenceRadius = pack?.decode(Double.self, at: "/geofenceRadius")
        packSizeBudget = pack?.root?.node(at: "/sizeBudget") == nil ? PackDocument.defaultSizeBudget : pack?.decode(Int.self, at: "/sizeBudget")
        let lintLimits = pack?.decode(LintLimits.self, at: "/lint")
        limits = ResolvedLimits(lintLimits)
        packSkipped = Self.skipped(pack, [("route", packRoute != nil), ("access", packAccess != nil), ("reviewers", packReviewers != nil),
                                          ("area", packArea != nil), ("language", packLanguage != nil), ("geofenceRadius", packGeofenceRadius != nil),
                                          ("sizeBudget", packSizeBudget != nil), ("lint", lintLimits != nil)])
        if isScene {
            scenes = [SceneSource(stop: path.lastPathComponent, url: path)]
        } else {
            let stopsURL = packRoot.appendingPathComponent("stops")
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: stopsURL.path)) ?? []).sorted()
            scenes = Self.readScenes(names.compactMap { name in
                let url = stopsURL.appendingPathComponent(name)
                // A folder, not a link to one: a stop that is a symbolic link is reported (FilesRule) and not read
                // through, as nothing else of a pack is.
                var info = stat()
                return lstat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? (name, url) : nil
            })
        }
    }

    /// Each stop's documents read and held to their schemas on every core, in stop order: one stop after another this
    /// was a sixth of linting the example pack. A `SceneSource` reads only its own folder; the schema patterns it
    /// compiles are shared under their lock.
    private static func readScenes(_ folders: [(stop: String, url: URL)]) -> [SceneSource] {
        var read = [SceneSource?](repeating: nil, count: folders.count)
        let lock = Lock()
        DispatchQueue.concurrentPerform(iterations: folders.count) { i in
            let scene = SceneSource(stop: folders[i].stop, url: folders[i].url)
            lock.withLock { read[i] = scene }
        }
        return read.map { $0! }
    }

    /// A path as diagnostics print it: packtool's one rule for paths in output (`ShownPath`), so a finding names a
    /// file as every other command does.
    public static func display(_ url: URL) -> String { ShownPath.of(url) }

    public var packPath: String { pack?.path ?? Self.display(root.appendingPathComponent("pack.json")) }

    /// The digest a sign-off covers (the scene without signoff.json), derived from a known full digest when the
    /// caller supplied one. Otherwise the first request hashes every signed-off scene at once, on every core, and
    /// keeps the results for the others.
    public func contentDigest(_ scene: SceneSource) throws -> TreeDigest {
        if let full = knownDigests[scene.stop] { return full.excluding([PackFolder.signoffFile]) }
        // Held while hashing: a second asker waits for the one hashing of every signed-off scene, not a second one.
        let computed = cacheLock.withLock { () -> Result<TreeDigest, Error>? in
            if computedDigests == nil {
                let signed = scenes.filter { $0.signoff != nil && knownDigests[$0.stop] == nil }
                let results = TreeDigest.of(folders: signed.map(\.url), excluding: [PackFolder.signoffFile], memory: digestMemory)
                computedDigests = Dictionary(zip(signed.map(\.stop), results), uniquingKeysWith: { first, _ in first })
            }
            return computedDigests?[scene.stop]
        }
        if let computed { return try computed.get() }
        return try PackFolder.contentDigest(ofScene: scene.url)
    }

    /// Works out, for every stop at once on every core, what the rules will ask of it — its sign-offs verified, its
    /// transcript and chapters parsed, its story and plates probed — so the rules, which then run one after another
    /// in a fixed order, find it cached (lint of the example pack did all of this on one core). Each stop's files
    /// are its own, so no two threads work out the same thing, and every count is what the rules alone would count.
    /// The voice is heard where VoiceRule would listen (a transcript with cues, audio the probe measures): a first
    /// run decodes the stories side by side, a later one reads their cached voices.
    public func readAhead() {
        _ = reviewerKeys  // made once, here, before any thread asks for it
        let scenes = self.scenes
        DispatchQueue.concurrentPerform(iterations: scenes.count) { i in
            let source = scenes[i]
            _ = signoff(source)
            if let story = source.story {
                _ = story.chapters.flatMap(source.inside).map(vtt)
                let transcript = source.inside(story.transcript).flatMap(vtt), audioURL = source.inside(story.audio)
                if let transcript, transcript.isWebVTT, !transcript.cues.isEmpty, let audioURL, (audio(audioURL)?.duration ?? 0) > 0 {
                    _ = voice(audioURL)
                } else {
                    _ = audioURL.map(audio)
                }
            }
            // PlatesRule probes a plate unless it is a placeholder; so here (that check reads a few bytes, uncounted).
            for (_, era) in source.eraItems {
                for path in [era.layers.landscape, era.layers.portrait] where !path.hasPrefix("/") {
                    guard let url = source.inside(path), let bytes = try? ByteSource(fileAt: url),
                          !(bytes.read(at: 0, count: min(Int(bytes.size), Placeholder.plateMarker.utf8.count)).map(Placeholder.isPlate) ?? false)
                    else { continue }
                    _ = heif(url)
                }
            }
        }
    }

    // MARK: - Media, probed once

    public func heif(_ url: URL) -> HEIFInfo? {
        if let cached = cacheLock.withLock({ heifCache[url.path] }) { return cached }
        guard let source = try? ByteSource(fileAt: url) else { return nil }
        let info = HEIFProbe().probe(source)
        cacheLock.withLock {
            count(source)
            heifCache[url.path] = info
        }
        return info
    }

    /// Whether the file is a placeholder plate `packtool new stop` wrote (`Placeholder.plateMarker`).
    public func isPlaceholderPlate(_ url: URL) -> Bool {
        guard let source = try? ByteSource(fileAt: url) else { return false }
        defer { cacheLock.withLock { mediaBytesRead += source.bytesRead } }
        let count = min(Int(source.size), Placeholder.plateMarker.utf8.count)
        return source.read(at: 0, count: count).map { Placeholder.isPlate(firstBytes: $0) } ?? false
    }

    /// What the file is by its first bytes (`FileSignature`), for naming the format of a file that did not parse.
    public func signature(_ url: URL) -> FileSignature.Format? {
        guard let source = try? ByteSource(fileAt: url) else { return nil }
        defer { cacheLock.withLock { mediaBytesRead += source.bytesRead } }  // its size was counted when it was probed
        return FileSignature.format(of: source)
    }

    public func audio(_ url: URL) -> MP4AudioInfo? {
        if let cached = cacheLock.withLock({ audioCache[url.path] }) { return cached }
        guard let source = try? ByteSource(fileAt: url) else { return nil }
        let info = MP4AudioProbe().probe(source)
        cacheLock.withLock {
            count(source)
            audioCache[url.path] = info
        }
        return info
    }

    /// The scene's sign-offs assessed once (signatures verified, the content digest compared), for lint's rule and the
    /// preview alike; nil when pack.json's reviewers cannot be read.
    public func signoff(_ scene: SceneSource) -> SignoffAssessment? {
        guard let reviewers = reviewerKeys else { return nil }
        if let cached = cacheLock.withLock({ signoffCache[scene.stop] }) { return cached }
        let assessment = SignoffAssessment.assess(scene, in: self, reviewers: reviewers)
        cacheLock.withLock { signoffCache[scene.stop] = assessment }
        return assessment
    }

    /// Parses a WebVTT file, refusing files above 4 MB (a two-minute transcript is a few kilobytes).
    public func vtt(_ url: URL) -> WebVTTFile? {
        if let cached = cacheLock.withLock({ vttCache[url.path] }) { return cached }
        let file: WebVTTFile
        // The one capped read (PackFiles); a link, FIFO or device is no transcript.
        do {
            let bytes = try RegularFile.read(url.path, path: url.path, cap: 4 << 20, extraFlags: O_NOFOLLOW)
            cacheLock.withLock { vttBytes[url.path] = [UInt8](bytes) }
            file = WebVTTParser().parse(bytes)
        } catch let error as FileError {
            guard case .tooLarge(let size) = error.kind else { return nil }
            file = WebVTTFile(isWebVTT: false, issues: [.init(severity: .error, line: 1, column: 1,
                                                              message: "the file is \(size) bytes; a transcript over 4 MB is not plausible")])
        } catch { return nil }
        cacheLock.withLock { vttCache[url.path] = file }
        return file
    }

    /// Where the voice is in a story's audio, decoded once per run (and once per distinct audio across runs, through
    /// the listener's cache); the decoder's complaint when it cannot be heard; nil when lint was given no listener.
    public func voice(_ url: URL) -> Result<VoiceActivity, VoiceNotHeard>? {
        guard let listener else { return nil }
        if let cached = cacheLock.withLock({ voiceCache[url.path] }) { return cached }
        let result: Result<VoiceActivity, VoiceNotHeard>
        do { result = .success(try listener.listen(to: url.path, known: knownDigest(of: url))) } catch let error as VoiceNotHeard {
            result = .failure(error)
        } catch {
            result = .failure(VoiceNotHeard("cannot read it: \(error)"))
        }
        cacheLock.withLock { voiceCache[url.path] = result }
        return result
    }

    /// The SHA-256 of a file of a signed-off scene (or one whose digest the caller supplied) as the sign-off check
    /// hashes it — every signed-off scene at once, on every core — so the story is not read a second time to key the
    /// voice cache; nil for a scene without a sign-off (nothing else would hash it) or a file the digest lacks.
    func knownDigest(of url: URL) -> KnownDigest? {
        let path = url.standardizedFileURL.path
        guard let scene = scenes.first(where: { path.hasPrefix($0.url.standardizedFileURL.path + "/") }),
              knownDigests[scene.stop] != nil || scene.signoff != nil,
              let digest = try? contentDigest(scene) else { return nil }
        let relative = String(path.dropFirst(scene.url.standardizedFileURL.path.count + 1))
        guard let entry = digest.entries.first(where: { $0.path == relative }), let identity = entry.identity else { return nil }
        return KnownDigest(sha256: entry.sha256, identity: identity)
    }

    /// Names of the sections present in `document` whose decoding failed (`read` false).
    static func skipped(_ document: JSONDocument?, _ sections: [(name: String, read: Bool)]) -> [String] {
        guard let root = document?.root else { return [] }
        return sections.filter { !$0.read && root.node(at: "/" + $0.name) != nil }.map(\.name)
    }

    /// Counts a probe's reads; the caller holds `cacheLock`.
    private func count(_ source: ByteSource) {
        mediaBytesRead += source.bytesRead
        mediaBytesProbed += source.size
    }
}

/// One stop folder and its documents.
public final class SceneSource {
    public let stop: String
    public let url: URL
    public let path: String
    public let scene: JSONDocument?
    /// scene.json's sections, each decoded on its own when it parsed and met the schema (nil otherwise), so a mistake
    /// in one section leaves the checks of the others running. Rules use the sections they need.
    public let id: String?
    public let anchor: SceneDocument.Anchor?
    public let view: SceneDocument.View?
    /// The stop's own geofence radius (metres), in place of pack.json's.
    public let geofenceRadius: Double?
    public let crops: SceneDocument.Crops?
    /// All the eras, when every one of them could be read; the rules read `eraItems`.
    public let eras: [SceneDocument.Era]?
    /// The eras that could be read, each on its own with its index in the file, so one broken era leaves the plates,
    /// names and citations of the others checked.
    public let eraItems: [(index: Int, era: SceneDocument.Era)]
    /// Whether `eras` is a list and every item of it was read: checks over all eras together (one default era, a
    /// mask's years, unused sources, stray files) need it.
    public let erasComplete: Bool
    public let story: SceneDocument.Story?
    public let provenance: SceneDocument.Provenance?
    /// provenance.sources that could be read, each with its index, as for the eras.
    public let sourceItems: [(index: Int, source: SceneDocument.Source)]
    /// Whether every source was read, so an id not among them is really unknown.
    public let sourcesComplete: Bool
    public let mask: JSONDocument?
    /// uncertainty.json's eras that could be read, each on its own with its index in the file, so one broken region
    /// leaves the other eras' masks checked.
    public let maskEras: [(index: Int, era: UncertaintyDocument.EraMask)]
    /// Whether every mask era was read (or there is no mask), so the sources the masks cite are all known.
    public let maskComplete: Bool
    /// scene.json's sections, and uncertainty.json's eras ("eras/3"), that are there but could not be read, so the
    /// checks that need them did not run.
    public let skipped: [String]
    public let maskSkipped: [String]
    public let signoff: JSONDocument?

    init(stop: String, url: URL) {
        self.stop = stop
        self.url = url
        path = LintContext.display(url)
        let sceneURL = url.appendingPathComponent(PackFolder.sceneFile)
        scene = JSONDocument(url: sceneURL, path: LintContext.display(sceneURL), schema: "scene.schema.json")
        id = scene?.decode(String.self, at: "/id")
        anchor = scene?.decode(SceneDocument.Anchor.self, at: "/anchor")
        view = scene?.decode(SceneDocument.View.self, at: "/view")
        geofenceRadius = scene?.root?.node(at: "/geofenceRadius")?.double
        crops = scene?.decode(SceneDocument.Crops.self, at: "/crops")
        let eraList = Self.items(of: scene, at: "/eras", as: SceneDocument.Era.self)
        eraItems = eraList.read.map { (index: $0.index, era: $0.item) }
        erasComplete = eraList.complete
        eras = erasComplete ? eraItems.map(\.1) : nil
        story = scene?.decode(SceneDocument.Story.self, at: "/story")
        provenance = scene?.decode(SceneDocument.Provenance.self, at: "/provenance")
        let sourceList = Self.items(of: scene, at: "/provenance/sources", as: SceneDocument.Source.self)
        sourceItems = sourceList.read.map { (index: $0.index, source: $0.item) }
        sourcesComplete = sourceList.complete
        let maskURL = url.appendingPathComponent(PackFolder.uncertaintyFile)
        let mask = JSONDocument(url: maskURL, path: LintContext.display(maskURL), schema: "uncertainty.schema.json")
        self.mask = mask
        let maskEraCount = mask?.root?.node(at: "/eras")?.array?.count
        let eraResults = (0..<(maskEraCount ?? 0)).map { i in (i, mask?.decode(UncertaintyDocument.EraMask.self, at: "/eras/\(i)")) }
        maskEras = eraResults.compactMap { i, era in era.map { (i, $0) } }
        maskSkipped = eraResults.filter { $0.1 == nil }.map { "eras/\($0.0)" }
        maskComplete = mask == nil || (maskEraCount != nil && maskSkipped.isEmpty)
        // A list whose items are read one by one names the items that were not; the list itself only when it is not one.
        skipped = LintContext.skipped(scene, [("id", id != nil), ("anchor", anchor != nil), ("view", view != nil), ("crops", crops != nil),
                                              ("eras", eraList.isList), ("story", story != nil),
                                              ("provenance", provenance != nil || sourceList.isList)])
            + eraList.unread.map { "eras/\($0)" } + sourceList.unread.map { "provenance/sources/\($0)" }
        let signoffURL = url.appendingPathComponent(PackFolder.signoffFile)
        signoff = JSONDocument(url: signoffURL, path: LintContext.display(signoffURL), schema: "signoff.schema.json")
    }

    /// The items of the list at `pointer` in `document`, each decoded on its own: those read (with their indices),
    /// the indices of those that were not, whether the value is a list at all, and whether every item was read.
    static func items<T: Decodable>(of document: JSONDocument?, at pointer: String, as type: T.Type)
        -> (read: [(index: Int, item: T)], unread: [Int], isList: Bool, complete: Bool) {
        guard let count = document?.root?.node(at: pointer)?.array?.count else { return ([], [], false, false) }
        var read: [(index: Int, item: T)] = [], unread: [Int] = []
        for i in 0..<count {
            if let item = document?.decode(T.self, at: "\(pointer)/\(i)") { read.append((i, item)) } else { unread.append(i) }
        }
        return (read, unread, true, unread.isEmpty)
    }

    public func file(_ relative: String) -> URL { url.appendingPathComponent(relative) }

    /// The file scene.json names, for reading — nil when the name leaves the stop folder (a `..` part), which
    /// FilesRule reports (PT0111) and no rule reads: lint never parses, probes or decodes a file outside the stop.
    public func inside(_ relative: String) -> URL? {
        PathParts.split(relative, omittingEmpty: true).contains("..") ? nil : file(relative)
    }

    public func display(_ relative: String) -> String { LintContext.display(url.appendingPathComponent(relative)) }

    /// A fix putting JSON `text` in place of scene.json's value at `pointer`.
    public func fix(replacing pointer: String, with text: String, _ description: String) -> Diagnostic.Fix? {
        scene?.fix(replacing: pointer, with: text, description)
    }

    /// The scene.json location of a pointer, or the folder when scene.json is missing.
    public func location(_ pointer: String) -> Diagnostic.Location {
        scene?.location(pointer) ?? Diagnostic.Location(file: path)
    }
}
