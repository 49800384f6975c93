/// The registry of verification failure codes: every `VerificationFailure` is made from one of these. Each has a
/// stable string (what apps match on), a one-line meaning, and its outcome: *refused* (the input was checked and is
/// forged, stale or malformed; exit 1), *I/O* (the operation could not be carried out here; exit 2), *request* (the
/// caller's request itself is malformed, so nothing was attempted; exit 2) or *cancelled* (the caller stopped it).
/// Outcomes are only ever added, never renumbered or renamed: the C ABI's `error.outcome` carries the raw value.
///
/// `docs/verification-codes.md` is generated from this list (`markdownTable`), and a test keeps the two equal.
extension VerificationFailure {
    /// A failure code of the registry: its stable `name`, its `outcome` and a one-line `meaning`. Only the library
    /// makes codes (the constants below, listed in `all`); apps compare them (`failure.code == .hash`) or read their
    /// fields. Two codes are equal when their names are.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// What kind of failure a code is, which decides what the caller does next. `refused`: the input was checked
        /// and is forged, stale or malformed, so retrying the same bytes cannot help (packtool exits 1). `io` (raw
        /// value `"I/O"`): the operation could not be carried out here (a missing file, a full disk, a failed
        /// download), so it may succeed later (exit 2). `request`: the caller's request itself is malformed and nothing
        /// was attempted (exit 2). `cancelled`: the caller stopped the operation; the install is unchanged. The raw
        /// value is what the C ABI's `error.outcome` and docs/verification-codes.md show; outcomes are only ever added,
        /// never renamed.
        public enum Outcome: String, Sendable, CaseIterable { case refused, io = "I/O", request, cancelled }

        /// The code's stable name, e.g. `"archive-size"`: what apps match on, what the C ABI returns in `"code"` and
        /// packtool prints.
        public let name: String
        /// Whether a failure with this code is a refusal, an I/O failure, a malformed request or a cancellation.
        public let outcome: Outcome
        /// What the code means, in one line of English (the table in docs/verification-codes.md). A failure's own
        /// message says what was found in the particular case.
        public let meaning: String

        init(_ name: String, _ outcome: Outcome, _ meaning: String) {
            self.name = name
            self.outcome = outcome
            self.meaning = meaning
        }

        public var description: String { name }
        public static func == (a: Code, b: Code) -> Bool { a.name == b.name }
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        // MARK: Signatures and roots
        public static let payloadType = Code("payload-type", .refused, "a signed document has another document's payload type")
        public static let role = Code("role", .refused, "the trusted root defines no keys for the role that must sign")
        public static let threshold = Code("threshold", .refused, "fewer distinct keys of the role signed than its threshold requires")
        public static let signatureCount = Code("signature-count", .refused, "a document carries more signatures than its role has keys (plus a margin); none were checked")
        public static let weakKey = Code("weak-key", .refused, "a root lists a key that is a small-order or non-canonical point, which nobody can hold")
        public static let root = Code("root", .refused, "a root document is malformed or not signed by its own root keys")
        public static let rootVersion = Code("root-version", .refused, "a root is not the next version of the trusted one")
        public static let rootMissing = Code("root-missing", .refused, "a document names a root version the client cannot reach")
        public static let pinConflict = Code("pin-conflict", .refused, "a different root is already pinned in this state; re-pinning is a separate, explicit call")
        public static let duplicateKey = Code("duplicate-key", .refused, "a signed document or envelope repeats a JSON key")
        public static let document = Code("document", .refused, "a signed document is not well-formed JSON of its type")

        // MARK: Versions, times and binding
        public static let expiry = Code("expiry", .refused, "a signed document (a root, index or manifest) has no valid times")
        public static let expired = Code("expired", .refused, "a signed document (a root, index or manifest) has expired (an index that stopped updating is a frozen mirror)")
        public static let rollback = Code("rollback", .refused, "a signed version is older than one already trusted or installed")
        public static let mixAndMatch = Code("mix-and-match", .refused, "a manifest or archive is not the one the accepted index names")
        public static let clockSkew = Code("clock-skew", .refused, "a signed time lies further ahead of the device clock than allowed")
        public static let number = Code("number", .refused, "a size, count, offset or time from outside is out of range (it would overflow)")

        // MARK: Names and paths
        public static let identifier = Code("identifier", .refused, "a pack or scene id is not a plain slug, or a pack-level file sits under stops/")
        public static let indexPath = Code("index-path", .refused, "the index places a file somewhere the published layout does not")
        public static let path = Code("path", .refused, "an archive path is empty, overlong, has '.' or empty components, control, invisible or bidirectional characters, a backslash, or a mark joining a '/' into one character")
        public static let pathAbsolute = Code("path-absolute", .refused, "an archive path is absolute")
        public static let pathTraversal = Code("path-traversal", .refused, "an archive path climbs out with ..")
        public static let pathCollision = Code("path-collision", .refused, "two archive paths are the same file on a case- and normalisation-insensitive file system, or a file is also a folder")
        public static let scene = Code("scene", .refused, "the pack has no scene of that id")

        // MARK: Archives and deltas
        public static let archiveManifest = Code("archive-manifest", .refused, "an archive's first entry is not its signed manifest")
        public static let archiveHeader = Code("archive-header", .refused, "a tar header is malformed (checksum, fields, encoding)")
        public static let archivePax = Code("archive-pax", .refused, "a pax extended header is malformed or disagrees with its entry")
        public static let archiveLink = Code("archive-link", .refused, "an archive holds a symbolic or hard link")
        public static let archiveDevice = Code("archive-device", .refused, "an archive holds a device or FIFO")
        public static let archiveDirectory = Code("archive-directory", .refused, "an archive holds a folder entry (packtool writes files only)")
        public static let archiveType = Code("archive-type", .refused, "an archive holds an entry type packtool never writes (GNU long names, sparse files, …)")
        public static let archiveFormat = Code("archive-format", .refused, "an archive is not ustar/pax as packtool writes it")
        public static let archiveExtra = Code("archive-extra", .refused, "an archive holds an entry its manifest does not list")
        public static let archiveMissing = Code("archive-missing", .refused, "an archive lacks a file its manifest lists")
        public static let archiveSize = Code("archive-size", .refused, "the archive holds more data than the signed manifest declares")
        public static let archiveTruncated = Code("archive-truncated", .refused, "an archive ends before its entries do")
        public static let archiveTrailer = Code("archive-trailer", .refused, "data follows an archive's end")
        public static let archiveEntry = Code("archive-entry", .refused, "a published archive's entry is not a regular file listed once in its manifest")
        public static let archiveFile = Code("archive-file", .refused, "a published archive's file does not match its manifest")
        public static let hash = Code("hash", .refused, "a file's SHA-256 differs from the signed one")
        public static let size = Code("size", .refused, "a file is larger than its cap or differs from its signed size")
        public static let delta = Code("delta", .refused, "a delta archive is malformed or signed for another scene or version")
        public static let deltaBase = Code("delta-base", .refused, "a delta does not start from the installed version (or, in `packtool verify`, from that version as the tree's earlier release lists it), or the files it builds on are damaged or not there")
        public static let deltaTarget = Code("delta-target", .refused, "a delta does not lead to the version the manifest names")
        public static let deltaEntry = Code("delta-entry", .refused, "a delta holds a file it does not list, or lacks one it does")
        public static let deltaMissing = Code("delta-missing", .refused, "no usable delta exists for a changed scene")
        public static let fetchSize = Code("fetch-size", .refused, "the server sent more bytes than the signed size or cap")
        public static let fetchProtocol = Code("fetch-protocol", .refused, "the server's response is malformed or inconsistent (sizes, ranges, framing)")

        // MARK: The install folder and the client state
        public static let notAFile = Code("not-a-file", .refused, "where a published tree or an install has a file, there is a FIFO, device, folder or link")
        public static let installLayout = Code("install-layout", .refused, "the install folder holds a link or entry the installer did not create (it is left alone)")
        public static let installedMissing = Code("installed-missing", .io, "the pack is not installed in that folder")
        public static let stateMissing = Code("state-missing", .io, "there is no client state; pin a root first")
        public static let stateSize = Code("state-size", .io, "the client state file is implausibly large")
        public static let stateCorrupt = Code("state-corrupt", .io, "the client state file cannot be read")
        public static let busy = Code("busy", .io, "another operation holds the client state's lock")

        // MARK: Local and network failures
        public static let missing = Code("missing", .io, "a file that must be read is not there")
        public static let unreadable = Code("unreadable", .io, "a file cannot be read (not a regular file, no permission)")
        public static let archiveOpen = Code("archive-open", .io, "an archive file cannot be opened or read")
        public static let write = Code("write", .io, "a file or folder cannot be written (permissions, a full disk)")
        public static let space = Code("space", .io, "the install folder's file system has less free space than the install still needs (checked before a byte is written; what a resumed install has verified counts)")
        public static let install = Code("install", .io, "the staged version cannot be moved or switched into place")
        public static let fetch = Code("fetch", .io, "a download failed (connection, server error, local write)")
        public static let fetchRetry = Code("fetch-retry", .io, "a download was interrupted and will be retried")
        public static let fetchMissing = Code("fetch-missing", .io, "the server does not have the file")
        public static let fetchTLS = Code("fetch-tls", .io, "the TLS connection could not be established or its certificate was not trusted")
        public static let fetchTimeout = Code("fetch-timeout", .io, "a download took longer than its deadline (a stalled or drip-feeding server)")
        public static let request = Code("request", .request, "a request is malformed: a C ABI request's field is missing, unknown (a misspelling such as \"purchace\") or of the wrong type, its text is not strict UTF-8, or an access request's purchase date cannot be read; the message names the key where there is one")
        public static let cancelled = Code("cancelled", .cancelled, "the caller cancelled the operation (a progress callback returned non-zero, or a Swift `Task` was cancelled) before anything was switched in")
        public static let unexpected = Code("unexpected", .io, "an error the library did not expect (a bug: it is reported, never a crash)")

        /// Every code, in the order the documentation lists them.
        public static let all: [Code] = [
            payloadType, role, threshold, signatureCount, weakKey, root, rootVersion, rootMissing, pinConflict,
            duplicateKey, document,
            expiry, expired, rollback, mixAndMatch, clockSkew, number,
            identifier, indexPath, path, pathAbsolute, pathTraversal, pathCollision, scene,
            archiveManifest, archiveHeader, archivePax, archiveLink, archiveDevice, archiveDirectory, archiveType, archiveFormat, archiveExtra, archiveMissing, archiveSize,
            archiveTruncated, archiveTrailer, archiveEntry, archiveFile, hash, size, delta, deltaBase, deltaTarget, deltaEntry,
            deltaMissing, fetchSize, fetchProtocol,
            notAFile, installLayout, installedMissing, stateMissing, stateSize, stateCorrupt, busy,
            missing, unreadable, archiveOpen, write, space, install, fetch, fetchRetry, fetchMissing, fetchTLS, fetchTimeout, request, cancelled, unexpected,
        ]

        /// `docs/verification-codes.md`, generated from `all`.
        public static var markdownTable: String {
            var out = """
                # Verification failure codes

                Generated from `Sources/PackTrust/VerificationFailure+Codes.swift` (a test keeps this file equal to it).
                Every refusal or failure of the client library (`PackVerify`, `libpackverify`, `packtool install/update/
                access/verify`) carries one of these codes, and each code one outcome (the C ABI's `error.outcome`):
                *refused*: the input was checked and is forged, stale or malformed — packtool exits 1. *I/O*: the
                operation could not be carried out here — packtool exits 2. *request*: the request itself is malformed
                (a C ABI request's unknown key, wrong type or bad UTF-8), so nothing was attempted — packtool exits 2.
                *cancelled*: the caller stopped the operation (a cancelling progress callback, a Swift `Task`).
                Whatever the outcome, the install is left exactly as it was, and the client state keeps only what was
                verified before the failure (a newer root or index an update accepted stays as the floor, with the
                clock). Outcomes are only added, never renamed.

                The last column is what an app does about each code: its `Recovery` (`failure.recovery` in Swift, one
                `switch` over eight cases; `error.recovery` in the C ABI's JSON). Recoveries are only added, never
                renamed.

                | recovery | what the app does |
                | --- | --- |

                """
            for recovery in Recovery.allCases { out += "| `\(recovery.rawValue)` | \(recovery.advice) |\n" }
            out += "\n| code | outcome | meaning | recovery |\n| --- | --- | --- | --- |\n"
            for code in all { out += "| `\(code.name)` | \(code.outcome.rawValue) | \(code.meaning) | `\(code.recovery.rawValue)` |\n" }
            return out
        }
    }
}
