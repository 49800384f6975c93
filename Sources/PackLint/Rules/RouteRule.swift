import PackModel

/// The route in pack.json names every stop folder exactly once, each scene's id is its folder's name, and free
/// stops are on the route.
struct RouteRule: LintRule {
    static let notOnRoute = RuleCode("PT0801", .error, "a stop folder is not listed in pack.json's route")
    static let missingStop = RuleCode("PT0802", .error, "the route names a stop that has no folder")
    static let idMismatch = RuleCode("PT0803", .error, "a scene's id differs from its folder name")
    static let unknownFreeStop = RuleCode("PT0804", .error, "a free stop is not on the route")
    static let codes = [notOnRoute, missingStop, idMismatch, unknownFreeStop]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for source in context.scenes {
            if let id = source.id, id != source.stop {
                out.append(Self.idMismatch.diagnostic("scene id \"\(id)\" differs from its folder \"\(source.stop)\"", at: source.location("/id"),
                                                      hint: "set \"id\": \"\(source.stop)\" (or rename the folder)"))
            }
        }
        guard context.isWholePack, let route = context.packRoute, let document = context.pack else { return out }
        let folders = Set(context.scenes.map(\.stop))
        for (i, stop) in route.enumerated() where !folders.contains(stop) {
            out.append(Self.missingStop.diagnostic("the route names \"\(stop)\" but stops/\(stop)/ does not exist", at: document.location("/route/\(i)"),
                                                   hint: "create the folder, or remove the stop from the route"))
        }
        for stop in folders.subtracting(route).sorted() {
            out.append(Self.notOnRoute.diagnostic("stops/\(stop)/ is not on the route", at: document.location("/route"),
                                                  hint: "add \"\(stop)\" to the route in walking order, or move the folder out of the pack"))
        }
        for (i, free) in (context.packAccess?.freeStops ?? []).enumerated() where !route.contains(free) {
            out.append(Self.unknownFreeStop.diagnostic("free stop \"\(free)\" is not on the route", at: document.location("/access/freeStops/\(i)"),
                                                       hint: "name a stop from the route, usually the first"))
        }
        return out
    }
}
