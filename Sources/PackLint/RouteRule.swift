import PackModel

/// The route in pack.json names every stop folder exactly once, free stops are on the route, and each scene's id is
/// its folder's name.
struct RouteRule: LintRule {
    static let notOnRoute = RuleCode("PT0010", .error, "a stop folder is not listed in pack.json's route")
    static let missingStop = RuleCode("PT0011", .error, "the route names a stop with no folder, or names one twice")
    static let idMismatch = RuleCode("PT0012", .error, "a scene's id differs from its folder name")
    static let unknownFreeStop = RuleCode("PT0013", .error, "a free stop is not on the route")
    static let codes = [notOnRoute, missingStop, idMismatch, unknownFreeStop]

    func check(_ context: LintContext) -> [Diagnostic] {
        guard let pack = context.pack else { return [] }
        let packFile = Diagnostic.Location(file: context.display(context.root.appendingPathComponent("pack.json")), pointer: "/route")
        let folders = Set(context.scenes.map(\.stop))
        var out: [Diagnostic] = []
        var seen = Set<String>()
        for stop in pack.route {
            if !seen.insert(stop).inserted {
                out.append(Self.missingStop.diagnostic("stop \"\(stop)\" appears twice in the route", at: packFile, hint: "list each stop once, in walking order"))
            } else if !folders.contains(stop) {
                out.append(Self.missingStop.diagnostic("route names \"\(stop)\" but stops/\(stop)/ does not exist", at: packFile,
                                                       hint: "create the folder or remove the stop from the route"))
            }
        }
        for stop in folders.subtracting(pack.route).sorted() {
            out.append(Self.notOnRoute.diagnostic("stops/\(stop)/ is not on the route", at: packFile, hint: "add \"\(stop)\" to pack.json's route"))
        }
        for free in pack.access.freeStops where !pack.route.contains(free) {
            out.append(Self.unknownFreeStop.diagnostic("free stop \"\(free)\" is not on the route",
                                                       at: .init(file: packFile.file, pointer: "/access/freeStops"), hint: "name a stop from the route"))
        }
        for (stop, result) in context.scenes {
            if case .success(let scene) = result, scene.id != stop {
                out.append(Self.idMismatch.diagnostic("scene id \"\(scene.id)\" differs from its folder \"\(stop)\"",
                    at: .init(file: context.display(context.sceneURL(stop).appendingPathComponent(PackFolder.sceneFile)), pointer: "/id"),
                    hint: "set \"id\": \"\(stop)\""))
            }
        }
        return out
    }
}
