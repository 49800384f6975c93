#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackLint
import PackMedia
import PackImage
import PackModel

/// stops/<folder>.html, mirroring the app's stop detail and compare-still screens: era chips, the plate in either crop
/// with the conjecture mask hatched over it (tap a region for its note), a compare slider between two eras, the view,
/// the story with its transcript, the sources with their licences, the sign-off and lint's findings for the stop.
struct StopPage {
    let pack: PreviewPack
    let index: Int
    /// The WebP for each plate file, by the plate's path; an error when it could not be made.
    let plates: [URL: Result<RenderedPlate, ImageError>]
    /// The story's file names in the site (`../media/<page>/...`), when copied.
    let audioPath: String?
    let transcriptDataURL: String?

    var stop: PreviewStop { pack.stops[index] }

    /// What the page's script reads: per era, each crop's image and its mask regions in that image's pixels.
    struct PageData: Encodable {
        struct Plate: Encodable {
            var src: String?
            var width: Int
            var height: Int
            var alt: String
            var error: String?
        }

        struct Region: Encodable {
            var id: String
            var level: String
            var note: String
            var sources: [String]
            var points: String
        }

        struct Era: Encodable {
            var year: Int
            var label: String
            var plates: [String: Plate]
            var regions: [String: [Region]]
        }

        /// The 9:16 crop in normalised 16:9 frame coordinates, outlined on the 16:9 plate.
        struct Crop: Encodable {
            var x: Double
            var y: Double
            var width: Double
            var height: Double
        }

        var eras: [Era]
        var initialEra: Int
        var portraitCrop: Crop?
    }

    func data() -> PageData {
        let titles = Dictionary(stop.sources.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
        let eras = stop.eras.map { era -> PageData.Era in
            var shown: [String: PageData.Plate] = [:]
            var regions: [String: [PageData.Region]] = [:]
            for crop in PlateCrop.allCases {
                let alt = Self.alt(era, crop)
                let rendered = era.plates[crop].flatMap { plates[$0] }
                switch rendered {
                case .success(let plate)?:
                    shown[crop.rawValue] = PageData.Plate(src: "../plates/" + plate.fileName, width: plate.size.width, height: plate.size.height, alt: alt)
                    regions[crop.rawValue] = self.regions(era.regions, crop: crop, width: Double(plate.size.width), height: Double(plate.size.height), titles: titles)
                case .failure(let error)?:
                    shown[crop.rawValue] = PageData.Plate(src: nil, width: 0, height: 0, alt: alt, error: "\(error)")
                    regions[crop.rawValue] = []
                case nil:
                    shown[crop.rawValue] = PageData.Plate(src: nil, width: 0, height: 0, alt: alt, error: "no plate file to show (see the findings)")
                    regions[crop.rawValue] = []
                }
            }
            return PageData.Era(year: era.year, label: era.label, plates: shown, regions: regions)
        }
        let crop = stop.portraitCrop.flatMap { r in
            [r.x, r.y, r.width, r.height].allSatisfy(\.isFinite) && r.width > 0 && r.height > 0 ? PageData.Crop(x: r.x, y: r.y, width: r.width, height: r.height) : nil
        }
        return PageData(eras: eras, initialEra: stop.eras.firstIndex { $0.isDefault } ?? 0, portraitCrop: crop)
    }

    /// Mask regions as drawn on one crop, in its pixels: the 16:9 plate is the frame itself; the 9:16 plate shows the
    /// crop rectangle, so each polygon is clipped to it and rescaled, and a region wholly outside it is not drawn.
    func regions(_ regions: [UncertaintyDocument.Region], crop: PlateCrop, width: Double, height: Double, titles: [String: String]) -> [PageData.Region] {
        let rect: (x: Double, y: Double, width: Double, height: Double)
        switch crop {
        case .landscape: rect = (0, 0, 1, 1)
        case .portrait:
            guard let r = stop.portraitCrop, r.width > 0, r.height > 0, [r.x, r.y, r.width, r.height].allSatisfy(\.isFinite) else { return [] }
            rect = (r.x, r.y, r.width, r.height)
        }
        return regions.compactMap { region in
            let points = region.polygon.compactMap { $0.count == 2 && $0[0].isFinite && $0[1].isFinite ? Polygon.Point($0[0], $0[1]) : nil }
            guard points.count >= 3 else { return nil }
            let clipped = Polygon(points: points).clipped(minX: max(rect.x, 0), minY: max(rect.y, 0),
                                                           maxX: min(rect.x + rect.width, 1), maxY: min(rect.y + rect.height, 1))
            guard !clipped.isEmpty else { return nil }
            let pixels = clipped.map { p in
                "\(HTML.number((p.x - rect.x) / rect.width * width)),\(HTML.number((p.y - rect.y) / rect.height * height))"
            }
            return PageData.Region(id: region.id, level: region.level.rawValue, note: region.note,
                               sources: region.sources.map { titles[$0] ?? $0 }, points: pixels.joined(separator: " "))
        }
    }

    func html() throws -> String {
        let previous = index > 0 ? pack.stops[index - 1] : nil
        let next = index + 1 < pack.stops.count ? pack.stops[index + 1] : nil
        var body = """
        <header class="top">
        <nav class="crumbs" aria-label="Stops"><a href="../index.html">← \(HTML.escape(pack.title))</a>\(previous.map { " · <a href=\"\(HTML.escape($0.page))\" rel=\"prev\">previous: \($0.number). \(HTML.escape($0.title))</a>" } ?? "")\(next.map { " · <a href=\"\(HTML.escape($0.page))\" rel=\"next\">next: \($0.number). \(HTML.escape($0.title))</a>" } ?? "")</nav>
        <h1><span class="num">\(stop.number)</span> \(HTML.escape(stop.title))</h1>
        <p class="sub"><code>\(HTML.escape(stop.folder))</code> \(stop.isFree ? "<span class=\"badge free\">free stop</span> " : "")\(PageParts.counts(stop))</p>
        </header>
        <main class="stop">

        """
        body += viewer() + compare() + view() + story() + sources() + signoff()
        body += """
        <section aria-labelledby="findings-heading">
        <h2 id="findings-heading">Findings</h2>
        \(PageParts.findings(stop.findings, none: "Lint found nothing in this stop."))
        </section>
        </main>

        """
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(data()), as: UTF8.self)
        body += "<script type=\"application/json\" id=\"stop-data\">\(HTML.scriptJSON(json))</script>"
        return HTML.page(title: "\(stop.number). \(stop.title) — \(pack.title)", language: pack.language, assets: "../assets/", body: body)
    }

    private func viewer() -> String {
        guard !stop.eras.isEmpty else {
            return "<section class=\"viewer\" aria-labelledby=\"viewer-heading\"><h2 id=\"viewer-heading\">Reconstruction</h2><p class=\"empty\">No era could be read from scene.json: see the findings.</p></section>\n"
        }
        let chips = stop.eras.enumerated().map { i, era in
            "<button type=\"button\" class=\"era-chip\" data-era=\"\(i)\" aria-pressed=\"false\">\(era.year) · \(HTML.escape(era.label))\(era.isDefault ? " <span class=\"default-mark\">default</span>" : "")</button>"
        }.joined(separator: "\n")
        return """
        <section class="viewer" aria-labelledby="viewer-heading">
        <h2 id="viewer-heading">Reconstruction</h2>
        <div class="controls" data-needs-script hidden>
        <div class="chips" role="group" aria-label="Era">
        \(chips)
        </div>
        <div class="crop-switch" role="group" aria-label="Crop">
        <button type="button" class="crop-button" data-crop="16x9" aria-pressed="true">16:9</button>
        <button type="button" class="crop-button" data-crop="9x16" aria-pressed="false">9:16</button>
        </div>
        <label class="toggle"><input type="checkbox" id="mask-toggle" checked> Show conjecture hatching</label>
        </div>
        <figure class="stage" id="stage">
        <div class="frame" id="frame">
        \(initialPlate())
        <svg id="mask" class="mask" role="group" aria-label="Uncertain regions: click or press Enter on one for why">
        <defs>
        <pattern id="hatch-conjecture" patternUnits="userSpaceOnUse" width="18" height="18" patternTransform="rotate(45)"><rect width="18" height="18" class="hatch-bg"/><line x1="0" y1="0" x2="0" y2="18" class="hatch-line"/></pattern>
        <pattern id="hatch-inferred" patternUnits="userSpaceOnUse" width="26" height="26" patternTransform="rotate(45)"><rect width="26" height="26" class="hatch-bg"/><line x1="0" y1="0" x2="0" y2="26" class="hatch-line inferred"/></pattern>
        </defs>
        <g id="regions"></g>
        </svg>
        <p class="plate-error" id="plate-error" hidden></p>
        </div>
        <figcaption id="plate-caption"></figcaption>
        </figure>
        \(allPlates())
        <div id="note" class="note" role="status" aria-live="polite"><p class="note-hint">Click or tap a hatched region to see why we're unsure.</p></div>
        </section>

        """
    }

    /// A plate's alt text: the era and the crop ("1820 market, 16:9 plate").
    static func alt(_ era: PreviewEra, _ crop: PlateCrop) -> String { "\(era.label), \(crop.label) plate" }

    /// The viewer's plate as the page is written: the default era's 16:9 plate, so it shows without the script (which
    /// then drives it); nothing when that plate could not be made.
    private func initialPlate() -> String {
        let initial = stop.eras.firstIndex { $0.isDefault } ?? 0
        guard stop.eras.indices.contains(initial), let url = stop.eras[initial].plates[.landscape], case .success(let plate)? = plates[url] else {
            return "<img id=\"plate\" alt=\"\">"
        }
        return "<img id=\"plate\" src=\"../plates/\(HTML.escape(plate.fileName))\" width=\"\(plate.size.width)\" height=\"\(plate.size.height)\" alt=\"\(HTML.escape(Self.alt(stop.eras[initial], .landscape)))\">"
    }

    /// Every era's plates in both crops, for a browser without JavaScript (the viewer needs the script to switch
    /// eras); a browser running the script never loads them.
    private func allPlates() -> String {
        var figures: [String] = []
        for era in stop.eras {
            for crop in PlateCrop.allCases {
                guard let url = era.plates[crop], case .success(let plate)? = plates[url] else { continue }
                figures.append("<figure class=\"plate-static\"><img class=\"plate-static-image\" src=\"../plates/\(HTML.escape(plate.fileName))\" width=\"\(plate.size.width)\" height=\"\(plate.size.height)\" alt=\"\(HTML.escape(Self.alt(era, crop)))\"><figcaption>\(era.year) · \(HTML.escape(era.label)), \(crop.label)</figcaption></figure>")
            }
        }
        guard !figures.isEmpty else { return "" }
        return "<noscript><div class=\"plate-list\">\n" + figures.joined(separator: "\n") + "\n</div></noscript>"
    }

    private func compare() -> String {
        guard stop.eras.count >= 2 else {
            return "<section class=\"compare-section\" aria-labelledby=\"compare-heading\"><h2 id=\"compare-heading\">Compare eras</h2><p class=\"empty\">This stop has one era; there is nothing to compare.</p></section>\n"
        }
        let options = stop.eras.enumerated().map { i, era in "<option value=\"\(i)\">\(era.year) · \(HTML.escape(era.label))</option>" }.joined()
        return """
        <section class="compare-section" aria-labelledby="compare-heading" data-needs-script hidden>
        <h2 id="compare-heading">Compare eras</h2>
        <div class="controls">
        <label for="compare-left">Left</label> <select id="compare-left">\(options)</select>
        <label for="compare-right">Right</label> <select id="compare-right">\(options)</select>
        </div>
        <div class="compare" id="compare">
        <img id="compare-under" alt="">
        <div class="compare-over" id="compare-over"><img id="compare-over-image" alt=""></div>
        <div class="compare-handle" id="compare-handle" role="slider" tabindex="0" aria-label="Compare position: drag, or use the arrow keys" aria-valuemin="0" aria-valuemax="100" aria-valuenow="50" aria-valuetext="50%"></div>
        </div>
        <p class="hint-line">Drag across the picture (or the handle) as in the app's compare view: the left era shows left of the line.</p>
        </section>

        """
    }

    private func view() -> String {
        var rows: [(String, String)] = []
        if let a = stop.anchor {
            rows.append(("Anchor", "\(PageParts.coordinate(a.lat)), \(PageParts.coordinate(a.lon))\(a.accuracy.map { " (±\(HTML.number($0)) m)" } ?? "")\(a.altitude.map { ", \(HTML.number($0)) m" } ?? "")"))
        }
        if let v = stop.view {
            rows.append(("Bearing", "\(HTML.number(v.bearing))° true"))
            rows.append(("Field of view", "\(HTML.number(v.fov))° (16:9 frame)"))
            if let pitch = v.pitch { rows.append(("Pitch", "\(HTML.number(pitch))°")) }
            if let t = v.target {
                var text = "\(HTML.escape(t.name))"
                if let d = stop.targetDistance, let b = stop.targetBearing {
                    let off = Geodesy.angularDifference(b, v.bearing)
                    text += " — \(PageParts.distance(d)) away at \(HTML.number((b * 10).rounded() / 10))°, \(HTML.number((off * 10).rounded() / 10))° from the composed bearing"
                }
                rows.append(("Target", text))
            }
        }
        if let r = stop.geofenceRadius ?? pack.geofenceRadius { rows.append(("Geofence", "\(HTML.number(r)) m around the anchor")) }
        if let leg = stop.legFromPrevious { rows.append(("From the previous stop", "\(PageParts.distance(leg)), \(PageParts.walking(leg)) on foot")) }
        let list = rows.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined(separator: "\n")
        return """
        <section class="facts" aria-labelledby="view-heading">
        <h2 id="view-heading">Where to stand</h2>
        \(rows.isEmpty ? "<p class=\"empty\">The anchor and view could not be read: see the findings.</p>" : "<dl>\n\(list)\n</dl>")
        </section>

        """
    }

    private func story() -> String {
        guard let story = stop.story else {
            return "<section aria-labelledby=\"story-heading\"><h2 id=\"story-heading\">Story</h2><p class=\"empty\">The story could not be read from scene.json: see the findings.</p></section>\n"
        }
        var out = "<section class=\"story\" aria-labelledby=\"story-heading\">\n<h2 id=\"story-heading\">Story</h2>\n"
        if let audioPath {
            let track = transcriptDataURL.map {
                "<track kind=\"captions\" default src=\"\($0)\" srclang=\"\(HTML.escape(story.language))\" label=\"Transcript\">"
            } ?? ""
            out += "<audio id=\"story-audio\" controls preload=\"metadata\" src=\"\(HTML.escape(audioPath))\" aria-label=\"Story audio\">\(track)</audio>\n"
            out += "<p class=\"sub\">\(story.duration.map { "\(PageParts.clock($0)) long, " } ?? "")\(PageParts.plural(story.cues.count, "cue")) in the transcript</p>\n"
        } else {
            out += "<p class=\"empty\">The story's audio cannot be played: it is missing, unreadable or not AAC audio (see the findings).</p>\n"
        }
        out += voiceTimeline(story)
        if story.cues.isEmpty {
            out += "<p class=\"empty\">The transcript has no cues to show.</p>\n"
        } else {
            out += "<ol class=\"transcript\" id=\"transcript\" aria-label=\"Transcript\">\n"
            for cue in story.cues {
                out += "<li class=\"cue\" data-start=\"\(HTML.number(cue.startTime))\" data-end=\"\(HTML.number(cue.endTime))\"><button type=\"button\" class=\"cue-time\" aria-label=\"Play from \(PageParts.clock(cue.startTime))\">\(PageParts.clock(cue.startTime))</button> <span class=\"cue-text\">\(HTML.escape(CueText.plain(cue.text)))</span></li>\n"
            }
            out += "</ol>\n"
        }
        return out + "</section>\n"
    }

    /// The voice as lint hears it (upper row) over the cues (lower row), along the story's length: where a cue
    /// starts before or after the voice, or shows over silence, the author sees it.
    private func voiceTimeline(_ story: PreviewStory) -> String {
        guard let voice = story.voice, let length = story.duration, length > 0 else { return "" }
        func x(_ t: Double) -> String { HTML.number((max(0, min(t, length)) / length * 1000 * 10).rounded() / 10) }
        func w(_ a: Double, _ b: Double) -> String { HTML.number(max(0.5, ((min(b, length) - max(0, a)) / length * 1000 * 10).rounded() / 10)) }
        var out = "<figure class=\"voice-timeline\"><svg viewBox=\"0 0 1000 30\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"Where the voice speaks (upper row) and where the cues show (lower row)\">"
        for s in voice { out += "<rect class=\"voice\" x=\"\(x(s.start))\" y=\"2\" width=\"\(w(s.start, s.end))\" height=\"11\"><title>voice \(PageParts.clock(s.start))–\(PageParts.clock(s.end))</title></rect>" }
        for c in story.cues where c.endTime > c.startTime {
            out += "<rect class=\"cue-span\" x=\"\(x(c.startTime))\" y=\"17\" width=\"\(w(c.startTime, c.endTime))\" height=\"11\"><title>cue \(PageParts.clock(c.startTime))–\(PageParts.clock(c.endTime))</title></rect>"
        }
        return out + "</svg><figcaption>The voice as lint hears it (upper row) and the cues (lower row): each cue should start where the voice does.</figcaption></figure>\n"
    }

    private func sources() -> String {
        guard !stop.sources.isEmpty else {
            return "<section aria-labelledby=\"sources-heading\"><h2 id=\"sources-heading\">Sources</h2><p class=\"empty\">No sources could be read: see the findings.</p></section>\n"
        }
        var out = "<section class=\"sources\" aria-labelledby=\"sources-heading\">\n<h2 id=\"sources-heading\">Sources</h2>\n<ul class=\"source-list\">\n"
        for source in stop.sources {
            let eras = stop.eras.filter { $0.sourceIDs.contains(source.id) }.map { String($0.year) }
            let title = HTML.safeURL(source.url).map { "<a href=\"\(HTML.escape($0))\" rel=\"noopener noreferrer\">\(HTML.escape(source.title))</a>" } ?? HTML.escape(source.title)
            out += """
            <li class="source" id="source-\(HTML.escape(source.id))"><span class="source-title">\(title)</span> — \(HTML.escape(source.creator)), \(HTML.escape(source.date)); \(HTML.escape(source.medium)), \(HTML.escape(source.institution)).
            <span class="rights">Rights: \(Licence.link(source.rights))</span> <span class="use use-\(source.use.rawValue)">\(source.use.rawValue)</span>\(eras.isEmpty ? "" : " <span class=\"eras\">cited by \(eras.joined(separator: ", "))</span>")</li>

            """
        }
        out += "</ul>\n"
        if let credits = stop.credits, !credits.isEmpty { out += "<p class=\"credits\">Credits: \(HTML.escape(credits))</p>\n" }
        return out + "</section>\n"
    }

    private func signoff() -> String {
        var out = "<section class=\"signoff\" aria-labelledby=\"signoff-heading\">\n<h2 id=\"signoff-heading\">Historian's sign-off</h2>\n"
        guard let assessment = stop.signoff else {
            return out + "<p class=\"status stale\">Not assessed: pack.json's reviewers could not be read.</p>\n</section>\n"
        }
        out += assessment.isCurrent
            ? "<p class=\"status current\" id=\"signoff-status\">Current: a historian has signed off this stop's content as it is now.</p>\n"
            : "<p class=\"status stale\" id=\"signoff-status\">Not current: no historian's sign-off covers this stop's content as it is now.</p>\n"
        switch assessment.outcome {
        case .missing: out += "<p class=\"empty\">There is no signoff.json.</p>\n"
        case .malformed: out += "<p class=\"empty\">signoff.json could not be read: see the findings.</p>\n"
        case .undigestable(let why): out += "<p class=\"empty\">The content digest could not be computed: \(HTML.escape(why))</p>\n"
        case .assessed(let entries):
            out += "<ul class=\"signoffs\">\n"
            for entry in entries {
                let who = entry.reviewer.map { "\(HTML.escape($0.name)) (\(HTML.escape($0.role)))" } ?? HTML.escape(entry.signoff?.reviewer ?? "unknown reviewer")
                let state: String
                switch entry.state {
                case .current: state = "<span class=\"badge signed\">current</span>"
                case .stale(let changes): state = "<span class=\"badge warning\">stale</span> \(HTML.escape(changes))"
                case .invalid: state = "<span class=\"badge error\">signature does not verify</span>"
                case .unreadable: state = "<span class=\"badge error\">not a sign-off</span>"
                case .wrongScene(let scene): state = "<span class=\"badge error\">for another scene (\(HTML.escape(scene)))</span>"
                }
                let when = entry.signoff.map { " on \(PageParts.date($0.signedAt)), scope \(HTML.escape($0.scope))" } ?? ""
                let note = entry.signoff.map { $0.note.isEmpty ? "" : "<blockquote>\(HTML.escape($0.note))</blockquote>" } ?? ""
                out += "<li>\(who)\(when): \(state)\(note)</li>\n"
            }
            out += "</ul>\n"
        }
        return out + "</section>\n"
    }
}
