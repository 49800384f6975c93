import PackModel

/// pack.json and every scene.json must decode into the model: well-formed JSON with every required field and type.
struct DocumentsDecodeRule: LintRule {
    static let packUnreadable = RuleCode("PT0001", .error, "pack.json is missing, not JSON, or does not match the pack model")
    static let sceneUnreadable = RuleCode("PT0002", .error, "a scene.json is missing, not JSON, or does not match the scene model")
    static let codes = [packUnreadable, sceneUnreadable]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        if let e = context.packError {
            out.append(Self.packUnreadable.diagnostic(e.message, at: .init(file: context.display(context.root.appendingPathComponent("pack.json"))),
                                                      hint: "compare with schemas/pack.schema.json; `packtool inspect pack.json` shows what was read"))
        }
        for (stop, result) in context.scenes {
            if case .failure(let e) = result {
                out.append(Self.sceneUnreadable.diagnostic(e.message,
                    at: .init(file: context.display(context.sceneURL(stop).appendingPathComponent(PackFolder.sceneFile))),
                    hint: "compare with schemas/scene.schema.json"))
            }
        }
        return out
    }
}
