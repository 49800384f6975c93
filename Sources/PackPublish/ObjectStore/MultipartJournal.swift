#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackCrypto
import PackModel

/// The multipart uploads this user's packtool started and has not finished, one small file per object
/// (`multipart/` in the user's cache folder, `UserCacheFolder`). A store lists every open upload of a
/// key, whoever started it, and shows neither its headers nor its owner's intent: the journal is how a rerun knows
/// which are its own, to resume one and abort the rest, and never touches another tool's upload.
///
/// Without a home folder there is no journal: uploads still work, and an interrupted one starts again from its first
/// part. The journal holds upload IDs only, never credentials.
public struct MultipartJournal: Sendable {
    /// Where the files go; nil when there is nowhere to keep them.
    public let folder: String?

    public init(folder: String?) { self.folder = folder }

    /// The journal for this environment: the user's cache folder (`UserCacheFolder`), when there is one.
    public static func standard(environment: [String: String]) -> MultipartJournal {
        MultipartJournal(folder: UserCacheFolder.path("multipart", environment: environment))
    }

    struct Entry: Codable {
        /// The bucket and key, in full: a collision of file names cannot mix two objects' uploads.
        var object: String
        var uploads: [String]
    }

    func file(for object: String) -> String? {
        folder.map { $0 + "/" + SHA256.hexHash(Array(object.utf8)).prefix(32) + ".json" }
    }

    /// The open uploads recorded for `object` (`BUCKET/KEY`). A missing, unreadable or foreign file is none.
    func uploads(for object: String) -> [String] {
        guard let folder, let path = file(for: object), let root = RootedFolder.userCache(folder, creating: false),
              let data = root.readPrivate(String(path.dropFirst(folder.count + 1)), cap: 1 << 20),
              let entry = try? JSONDecoder().decode(Entry.self, from: data), entry.object == object else { return [] }
        return entry.uploads
    }

    /// Records that upload `id` of `object` was started. Failing to record is not an error: the upload goes on, and
    /// only its resumption is lost.
    func record(_ id: String, for object: String) {
        // The newest few: an ID that was never forgotten (its store is gone) must not make the file grow for ever.
        write(Array((uploads(for: object) + [id]).suffix(16)), for: object)
    }

    /// Forgets uploads of `object` that were completed or aborted.
    func forget(_ ids: Set<String>, for object: String) {
        write(uploads(for: object).filter { !ids.contains($0) }, for: object)
    }

    private func write(_ uploads: [String], for object: String) {
        // Beneath the cache folder's handle (the rooted layer): a link planted at the file's name is replaced, never
        // written through. Best effort: without the file, a rerun starts the upload again.
        guard let folder, let path = file(for: object),
              let root = RootedFolder.userCache(folder, creating: true) else { return }
        let name = String(path.dropFirst(folder.count + 1))
        if uploads.isEmpty { root.removeFile(name); return }
        guard let data = try? JSONEncoder().encode(Entry(object: object, uploads: uploads)) else { return }
        try? root.writeAtomically(data, to: name, mode: 0o600)
    }
}
