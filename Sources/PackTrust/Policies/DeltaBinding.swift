import PackModel

/// What a delta archive binds (DESIGN §5): the scene it leads to — the one the signed manifest names — the scene it
/// starts from — the one installed — and its entries — exactly its added files, at their signed sizes. A delta is
/// admitted on its signature alone (`DeltaDocument+Admission`); these links are judged here, once, and every reader
/// composes the same ones: the phone's hot update and an app's received downloads (`DeltaApplier`), and
/// `packtool verify` on a tree (`TreeVerifier`, which has no installed scene: it judges where each delta leads and
/// what it carries).
public struct DeltaBinding: Sendable {
    /// The delta's signed document.
    public let delta: DeltaDocument

    /// A policy holding the entries and bindings of the delta archive whose document is `delta`.
    public init(_ delta: DeltaDocument) { self.delta = delta }

    /// `delta-target`: the delta is for `pack`'s scene `scene.id` and leads to exactly the version, tree digest and
    /// file list the manifest names for it.
    public func evaluate(leadsTo scene: Manifest.Scene, pack: String) -> PolicyResult {
        .check(delta.pack == pack && delta.scene == scene.id && delta.to.version == scene.version && delta.to.digest == scene.digest
                   && delta.files == scene.files,
               .deltaTarget, "the delta for \(scene.id) does not lead to the version the manifest names (version \(scene.version), \(scene.digest))")
    }

    /// `delta-base`: a delta from a version other than 0 starts from exactly the installed scene (`base`: its version
    /// and tree digest); a version-0 delta carries every file and starts from nothing.
    public func evaluate(startsFrom base: Manifest.Scene?) -> PolicyResult {
        guard delta.from.version != 0 else { return .meets }
        return .check(base.map { $0.version == delta.from.version && $0.digest == delta.from.digest } ?? false, .deltaBase,
                      "the delta for \(delta.scene) starts from version \(delta.from.version), not the one installed"
                          + (base.map { " (version \($0.version))" } ?? " (none)"))
    }

    /// `delta-base`, judged against a release's history where there is no installed scene (`packtool verify` on a
    /// tree, which holds the earlier manifests phones installed): `earlier` is the scene as an earlier release listed
    /// it at the delta's `from` version. The delta starts from its digest, every file it keeps (listed, not added) is
    /// there at the same size and SHA-256 — a phone holding that version has nothing else to keep it from — and it
    /// removes exactly the files that are gone.
    public func evaluate(startsFromEarlier earlier: Manifest.Scene) -> PolicyResult {
        guard delta.from.version != 0 else { return .meets }
        guard earlier.id == delta.scene, earlier.version == delta.from.version, earlier.digest == delta.from.digest else {
            return .check(false, .deltaBase, "the delta for \(delta.scene) starts from version \(delta.from.version) with \(delta.from.digest), "
                          + "but the release that listed that version has \(earlier.digest)")
        }
        let before = Dictionary(earlier.files.map { (Array($0.path.utf8), $0) }, uniquingKeysWith: { a, _ in a })
        let added = Set(delta.added.map { Array($0.utf8) })
        let unkept = delta.files.filter { file in
            !added.contains(Array(file.path.utf8)) && before[Array(file.path.utf8)].map { $0.size != file.size || $0.sha256 != file.sha256 } ?? true
        }
        guard unkept.isEmpty else {
            return .check(false, .deltaBase, "the delta for \(delta.scene) keeps \(unkept.map(\.path).joined(separator: ", ")) from version "
                          + "\(earlier.version), which has no such file with those bytes, and does not carry it")
        }
        let after = Set(delta.files.map { Array($0.path.utf8) })
        let gone = Set(earlier.files.map { Array($0.path.utf8) }).subtracting(after)
        return .check(Set(delta.removed.map { Array($0.utf8) }) == gone, .deltaBase,
                      "the delta for \(delta.scene) does not remove exactly the files of version \(earlier.version) that version \(delta.to.version) leaves out")
    }

    /// `delta-base`: a version-0 delta starts from nothing, so it adds every file of its list (phones fetch one for a
    /// new scene and when the delta from their installed version fails; one that leaves a file out helps none).
    public func evaluateSelfContained() -> PolicyResult {
        guard delta.from.version == 0 else { return .meets }
        let added = Set(delta.added.map { Array($0.utf8) })
        let left = delta.files.filter { !added.contains(Array($0.path.utf8)) }.map(\.path)
        return .check(left.isEmpty, .deltaBase, "the version-0 delta for \(delta.scene) starts from nothing but does not carry \(left.joined(separator: ", "))")
    }

    /// The added files, by their path's bytes: what the delta's entries must be, each once. `delta-entry` when an added
    /// path is not in the delta's file list (no entry could carry it).
    public func addedFiles() throws -> [[UInt8]: Manifest.File] {
        let files = Dictionary(delta.files.map { (Array($0.path.utf8), $0) }, uniquingKeysWith: { a, _ in a })
        var added: [[UInt8]: Manifest.File] = [:]
        for path in delta.added {
            guard let file = files[Array(path.utf8)] else {
                throw VerificationFailure(.deltaEntry, "\(path) is added by the delta for \(delta.scene) but not in its file list")
            }
            added[Array(path.utf8)] = file
        }
        return added
    }

    /// `delta-entry`: an entry of the archive at `path` of `size` bytes is one of `pending` (the added files not yet
    /// seen, which it is then taken from) at its signed size. Returns the file the entry must hash to.
    public func evaluate(entry path: String, size: UInt64, pending: inout [[UInt8]: Manifest.File]) throws -> Manifest.File {
        guard let file = pending.removeValue(forKey: Array(path.utf8)), file.size == size else {
            throw VerificationFailure(.deltaEntry, "\(path) in the delta for \(delta.scene) is not one of its added files at its signed size")
        }
        return file
    }

    /// `delta-entry`: after the last entry, no added file is left unseen.
    public func evaluate(remaining pending: [[UInt8]: Manifest.File]) -> PolicyResult {
        .check(pending.isEmpty, .deltaEntry, "the delta for \(delta.scene) is missing some of its added files")
    }
}
