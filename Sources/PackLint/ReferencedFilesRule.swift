import Foundation
import PackModel

/// Every file a scene.json names exists as a regular file inside the scene folder.
struct ReferencedFilesRule: LintRule {
    static let missingFile = RuleCode("PT0020", .error, "a file named in scene.json does not exist in the scene folder")
    static let escapingPath = RuleCode("PT0021", .error, "a path in scene.json leaves the scene folder or is absolute")
    static let codes = [missingFile, escapingPath]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for (stop, result) in context.scenes {
            guard case .success(let scene) = result else { continue }
            let folder = context.sceneURL(stop)
            let file = context.display(folder.appendingPathComponent(PackFolder.sceneFile))
            for path in scene.referencedFiles {
                if path.hasPrefix("/") || path.split(separator: "/").contains("..") {
                    out.append(Self.escapingPath.diagnostic("\"\(path)\" is not a path inside the scene folder", at: .init(file: file),
                                                            hint: "use a relative path such as layers/1824-16x9.heic"))
                    continue
                }
                var info = stat()
                if lstat(folder.appendingPathComponent(path).path, &info) != 0 || info.st_mode & S_IFMT != S_IFREG {
                    out.append(Self.missingFile.diagnostic("\"\(path)\" does not exist in stops/\(stop)/", at: .init(file: file),
                                                           hint: "add the file or correct the path"))
                }
            }
        }
        return out
    }
}
