/// index.html: the pack's title, the map, the stops in walking order with each leg's distance and walking time, and
/// the findings that belong to no single stop.
struct RoutePage {
    let pack: PreviewPack
    /// Each stop's thumbnail (its default era's 16:9 plate) in the site's plates folder, when it could be made.
    let thumbnails: [String: RenderedPlate]

    func html() -> String {
        let total = pack.routeLength
        let errors = pack.stops.map(\.errorCount).reduce(0, +) + pack.packFindings.filter { $0.severity == .error }.count
        var body = """
        <header class="top">
        <p class="crumb">packtool preview · the pack as the app shows it</p>
        <h1>\(HTML.escape(pack.title))</h1>
        <p class="sub">\(HTML.escape(pack.city))\(pack.city.isEmpty ? "" : " · ")\(PageParts.plural(pack.stops.count, "stop")) · route \(PageParts.distance(total)) · about \(PageParts.walking(total)) on foot at 4.5 km/h\(pack.geofenceRadius.map { " · geofence \(Int($0.rounded())) m" } ?? "")</p>
        <p class="summary \(errors > 0 ? "has-errors" : "clean")">\(errors > 0 ? "\(PageParts.plural(errors, "error")) to fix before this pack can ship: see the marked stops." : "Lint found no errors.")</p>
        </header>
        <main>
        <section class="map-section" aria-labelledby="map-heading">
        <h2 id="map-heading">Route</h2>
        \(RouteMap(stops: pack.stops).svg())
        <p class="legend"><span class="key anchor-key"></span> anchor (where the visitor stands) <span class="key fov-key"></span> field of view along the composed bearing <span class="key target-key"></span> target <span class="key ring-key"></span> stop with findings</p>
        </section>
        <section aria-labelledby="stops-heading">
        <h2 id="stops-heading">Stops in walking order</h2>
        <ol class="stops">

        """
        for (i, stop) in pack.stops.enumerated() {
            let leg = stop.legFromPrevious.map { "\(PageParts.distance($0)) from stop \(pack.stops[i - 1].number) · \(PageParts.walking($0)) on foot" }
                ?? (i == 0 ? "start of the walk" : "distance unknown (no anchor)")
            let thumb = thumbnails[stop.folder].map {
                "<img class=\"thumb\" src=\"plates/\(HTML.escape($0.fileName))\" width=\"\($0.size.width)\" height=\"\($0.size.height)\" alt=\"\(HTML.escape("Default era of \(stop.title)"))\" loading=\"lazy\">"
            } ?? "<span class=\"thumb missing\" role=\"img\" aria-label=\"No plate to show\"></span>"
            body += """
            <li class="stop-row\(stop.errorCount > 0 ? " has-errors" : stop.warningCount > 0 ? " has-warnings" : "")" data-stop="\(HTML.escape(stop.folder))">
            <a href="stops/\(HTML.escape(stop.page))">\(thumb)<span class="num">\(stop.number)</span> <span class="title">\(HTML.escape(stop.title))</span></a>
            <span class="leg">\(leg)</span>
            <span class="badges">\(stop.isFree ? "<span class=\"badge free\">free stop</span> " : "")\(stop.signoff?.isCurrent == true ? "<span class=\"badge signed\">signed off</span> " : "<span class=\"badge unsigned\">no current sign-off</span> ")\(PageParts.counts(stop))</span>
            </li>

            """
        }
        body += """
        </ol>
        </section>
        <section aria-labelledby="pack-findings-heading">
        <h2 id="pack-findings-heading">Pack findings</h2>
        \(PageParts.findings(pack.packFindings, none: "No findings outside the stops."))
        </section>
        </main>
        """
        return HTML.page(title: "\(pack.title) — preview", language: pack.language, assets: "assets/", body: body)
    }
}
