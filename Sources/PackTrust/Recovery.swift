/// What an app does about a failure, by its code (issue 42): the one typed answer to "what now?", so an app `switch`es
/// over a handful of cases instead of over seventy codes, and every code has an answer chosen here, once. The table in
/// docs/verification-codes.md is generated from it (`VerificationFailure.Code.markdownTable`), and a test keeps every
/// code of the registry mapped. Cases are only ever added.
public enum Recovery: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Nothing went wrong that the app must handle: the visitor or the app cancelled. Show nothing.
    case none
    /// The network or the server let the app down, or another operation is running: try again later (automatically,
    /// with backoff, or when the visitor asks). What is installed stays usable.
    case retryLater = "retry-later"
    /// The phone is too full: tell the visitor how much space the pack needs (the message says) and offer to retry.
    case freeSpace = "free-space"
    /// The phone's date and time are wrong (a signed time far ahead of it): ask the visitor to turn on "Set
    /// Automatically" in Settings, then retry.
    case checkClock = "check-clock"
    /// The installed pack or the client state on this phone is damaged: install the pack again (the library replaces
    /// the damaged version atomically); a damaged state means pinning the bundled root again.
    case reinstall
    /// The catalogue needs a newer app: its trust root moved beyond what this app can follow, or this app was built
    /// with another root. Ask the visitor to update the app.
    case updateApp = "update-app"
    /// The catalogue itself was refused (forged, damaged, rolled back, mis-signed): nothing on the phone can fix it.
    /// Keep what is installed, report the code and message to the publisher, and try again after their fix.
    case reportToPublisher = "report-to-publisher"
    /// The app asked wrongly (a malformed request, a stop the pack does not have) or hit a library bug: a mistake to
    /// fix in the app, never the visitor's; report it in the app's own diagnostics.
    case fixTheApp = "fix-the-app"

    public var description: String { rawValue }

    /// What an app should do, in a few words (the table's column).
    public var advice: String {
        switch self {
        case .none: return "nothing (cancelled on purpose)"
        case .retryLater: return "retry later; what is installed stays usable"
        case .freeSpace: return "ask the visitor to free space, then retry"
        case .checkClock: return "ask the visitor to set the date and time automatically, then retry"
        case .reinstall: return "install the pack again (or pin the bundled root again)"
        case .updateApp: return "ask the visitor to update the app"
        case .reportToPublisher: return "keep what is installed; report to the publisher"
        case .fixTheApp: return "a mistake in the app: fix it there"
        }
    }
}

extension VerificationFailure.Code {
    /// What an app does about a failure with this code.
    public var recovery: Recovery {
        guard let recovery = Self.recoveries[name] else {
            // Unreachable while the registry test holds (every code is mapped); a new code fails that test first.
            return outcome == .refused ? .reportToPublisher : .retryLater
        }
        return recovery
    }

    /// The mapping itself, for the test that keeps every code of `all` covered exactly.
    public static var recoveriesForTests: [String: Recovery] { recoveries }

    /// Every code's recovery, by name (a test checks `all` is covered exactly).
    static let recoveries: [String: Recovery] = {
        var map: [String: Recovery] = [:]
        // The catalogue was refused: forged, damaged in transit or at the source, rolled back, mis-signed.
        for code in [payloadType, role, threshold, signatureCount, weakKey, root, rootVersion, duplicateKey, document, expiry, rollback,
                     mixAndMatch, number, identifier, indexPath, path, pathAbsolute, pathTraversal, pathCollision,
                     archiveManifest, archiveHeader, archivePax, archiveLink, archiveDevice, archiveDirectory, archiveType, archiveFormat,
                     archiveExtra, archiveMissing, archiveSize, archiveTruncated, archiveTrailer, archiveEntry, archiveFile, hash, size,
                     delta, deltaBase, deltaTarget, deltaEntry, deltaMissing, fetchSize, fetchProtocol] {
            map[code.name] = .reportToPublisher
        }
        // An expired index is a mirror that stopped updating (the publisher's renewal) — or a phone whose clock runs
        // far ahead; both clear up by themselves or with the next renewal, so: later.
        map[expired.name] = .retryLater
        map[clockSkew.name] = .checkClock
        map[rootMissing.name] = .updateApp
        map[pinConflict.name] = .updateApp
        for code in [notAFile, installLayout, stateSize, stateCorrupt] { map[code.name] = .reinstall }
        map[stateMissing.name] = .fixTheApp   // the app must pin its bundled root before anything else
        map[installedMissing.name] = .fixTheApp
        map[scene.name] = .fixTheApp
        map[request.name] = .fixTheApp
        map[unexpected.name] = .fixTheApp
        for code in [busy, missing, unreadable, archiveOpen, write, install, fetch, fetchRetry, fetchMissing, fetchTLS, fetchTimeout] {
            map[code.name] = .retryLater
        }
        map[space.name] = .freeSpace
        map[cancelled.name] = Recovery.none   // spelt out: `= .none` would be Optional.none, removing the entry
        return map
    }()
}
