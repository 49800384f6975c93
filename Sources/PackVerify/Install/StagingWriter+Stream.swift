#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackModel

/// What a streamed install (`ArchiveStream`) needs of the staging writer: files opened one at a time in archive order
/// (no queue, no workers: the bytes arrive in order and are written as they come), and a resumed install's earlier
/// files and scene folders taken over as they are.
extension StagingWriter {
    /// Creates the file for archive path `path` (its folders first), registered for the final flush and, for a scene
    /// file, for its scene's count. Whatever has that name (a file an interrupted run wrote past its last verified
    /// entry, or anything planted) is removed first.
    func open(path: String) throws -> Int32 {
        try prepareFolder(for: path)
        let target = absolute(path)
        let (pack, relative) = try rooted(target)
        if pack.status(relative) != nil { pack.removeTree(relative) }
        let fd = try create(target, shown: path)
        order(path: path, target: target)
        return fd
    }

    /// Takes over the file of archive path `path` that an interrupted run wrote and the caller verified again: it is
    /// flushed with the rest and counts for its scene.
    func adopt(path: String) throws {
        try prepareFolder(for: path)
        order(path: path, target: absolute(path))
    }

    /// Takes over scene `id`'s folder `name` in the pack's scene store, made by an interrupted run of the same install.
    func adoptScene(_ id: String, in scenes: String, name: String) throws {
        let (pack, relative) = try rooted(scenes + "/" + name)
        guard let info = pack.status(relative), info.st_mode & S_IFMT == S_IFDIR else {
            throw VerificationFailure(.installLayout, "\(scenes)/\(name) (scene \(id) of the interrupted install) is not a folder")
        }
        touched.insert(scenes)
        sceneRoots[id] = scenes + "/" + name
        folders.insert(scenes + "/" + name)
        sceneLinks.append((id, name))
    }

    /// Records `target` for the flush and its scene in archive order.
    private func order(path: String, target: String) {
        let scene = sceneID(of: path)
        queue.withLock {
            if let scene, pendingFiles[scene] != nil, orderedScenes.insert(scene).inserted { sceneOrder.append(scene) }
        }
        files.append(target)
    }
}
