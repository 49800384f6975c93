import Foundation
import PackModel

/// A lint rule: one small unit that looks at a pack and emits diagnostics under its own codes.
public protocol LintRule {
    /// The codes this rule can emit, with their severity and one-line summary (docs/lint-rules.md lists them all).
    static var codes: [RuleCode] { get }
    func check(_ context: LintContext) -> [Diagnostic]
}

/// A code a rule owns.
public struct RuleCode: Equatable, Sendable {
    public var code: String
    public var severity: Diagnostic.Severity
    public var summary: String

    public init(_ code: String, _ severity: Diagnostic.Severity, _ summary: String) {
        self.code = code
        self.severity = severity
        self.summary = summary
    }

    /// A diagnostic under this code.
    public func diagnostic(_ message: String, at location: Diagnostic.Location, hint: String? = nil) -> Diagnostic {
        Diagnostic(code: code, severity: severity, message: message, location: location, hint: hint)
    }
}

/// What rules look at: the pack folder and the documents decoded from it, read once.
public final class LintContext {
    public let root: URL
    /// Decoded pack.json, or nil when it could not be read (a rule has reported why).
    public let pack: PackDocument?
    public let packError: ModelError?
    /// Stop folder name → decoded scene.json, or the reason it could not be read.
    public let scenes: [(stop: String, scene: Result<SceneDocument, ModelError>)]

    public init(root: URL) {
        self.root = root
        do {
            pack = try DocumentLoader.load(PackDocument.self, from: root.appendingPathComponent("pack.json"))
            packError = nil
        } catch {
            pack = nil
            packError = error as? ModelError ?? ModelError(file: root.appendingPathComponent("pack.json").path, message: "\(error)")
        }
        let stopsURL = root.appendingPathComponent("stops")
        let stops = ((try? FileManager.default.contentsOfDirectory(atPath: stopsURL.path)) ?? []).sorted()
        scenes = stops.map { stop in
            let url = stopsURL.appendingPathComponent(stop).appendingPathComponent(PackFolder.sceneFile)
            do { return (stop, .success(try DocumentLoader.load(SceneDocument.self, from: url))) } catch {
                return (stop, .failure(error as? ModelError ?? ModelError(file: url.path, message: "\(error)")))
            }
        }
    }

    public func sceneURL(_ stop: String) -> URL { root.appendingPathComponent("stops").appendingPathComponent(stop) }

    /// A path as diagnostics show it: relative to the directory lint was started in when possible.
    public func display(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return url.path.hasPrefix(cwd) ? String(url.path.dropFirst(cwd.count)) : url.path
    }
}
