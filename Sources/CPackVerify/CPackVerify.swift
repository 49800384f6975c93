#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackHTTP
import PackModel
import PackVerify

/// The C ABI: every operation takes one JSON request string and returns one JSON string that the caller frees with
/// `packverify_free`. Results are `{"ok": true, ...}` or `{"ok": false, "error": {"code", "message"}}`; no call
/// throws, aborts or keeps pointers the caller passed in.

/// The version string, stored once so the pointer stays valid for the life of the process.
private let versionCString: UnsafeMutablePointer<CChar> = strdup(PackVerifyVersion.string)!

@_cdecl("packverify_version")
public func packverify_version() -> UnsafePointer<CChar> { UnsafePointer(versionCString) }

@_cdecl("packverify_free")
public func packverify_free(_ p: UnsafeMutablePointer<CChar>?) { free(p) }

@_cdecl("packverify_pin_root")
public func packverify_pin_root(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request, keys: ["root"]) { r in
        let root = try r.client().pin(rootFile: try r.url("root"))
        return ["rootVersion": JSONValue(root.version), "expires": JSONValue(root.expires)]
    }
}

@_cdecl("packverify_repin_root")
public func packverify_repin_root(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request, keys: ["root"]) { r in
        let root = try r.client().repin(rootFile: try r.url("root"))
        return ["rootVersion": JSONValue(root.version), "expires": JSONValue(root.expires)]
    }
}

@_cdecl("packverify_update_roots")
public func packverify_update_roots(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request, keys: ["roots"]) { r in
        let files = try r.strings("roots").map { URL(fileURLWithPath: $0) }
        let root = try r.client().updateRoots(files)
        return ["rootVersion": JSONValue(root.version)]
    }
}

@_cdecl("packverify_accept_index")
public func packverify_accept_index(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request, keys: ["index"]) { r in
        let index = try r.client().accept(index: try r.url("index"))
        return ["indexVersion": JSONValue(index.version),
                "packs": JSONValue(index.packs.mapValues { JSONValue(["version": JSONValue($0.version), "archive": JSONValue($0.archive.path)]) })]
    }
}

@_cdecl("packverify_install")
public func packverify_install(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    packverify_install_progress(request, nil, nil)
}

/// The C callback for progress: one JSON record per call.
public typealias ProgressCallback = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

@_cdecl("packverify_install_progress")
public func packverify_install_progress(_ request: UnsafePointer<CChar>?, _ progress: ProgressCallback?, _ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    install(request, reporter(progress.map { callback in { callback($0, context); return 0 } }, cancel: nil), cancel: nil)
}

/// The C callback for progress that can cancel: one JSON record per call; a non-zero return cancels the operation.
public typealias CancellingProgressCallback = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Int32

@_cdecl("packverify_install_cancellable")
public func packverify_install_cancellable(_ request: UnsafePointer<CChar>?, _ progress: CancellingProgressCallback?, _ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    let cancel = DownloadStop()
    return install(request, reporter(progress.map { callback in { callback($0, context) } }, cancel: cancel), cancel: cancel)
}

private func install(_ request: UnsafePointer<CChar>?, _ onProgress: (@Sendable (InstallProgress) -> Void)?, cancel: DownloadStop?) -> UnsafeMutablePointer<CChar>? {
    respond(request, keys: ["archive", "into"]) { r in
        let result = try r.client().install(archive: try r.url("archive"), into: try r.url("into"), progress: onProgress, cancel: cancel)
        return ["pack": JSONValue(result.pack), "version": JSONValue(result.version), "files": JSONValue(result.files), "bytes": JSONValue(result.bytes)]
    }
}

/// Each progress report as one line of JSON handed to `callback` (nil when there is none). A non-zero answer stops
/// `cancel` (the first one counts; later records are still delivered, their answers ignored). Answers to `installed`
/// and `scenes-unavailable` are ignored: the outcome is decided by then, and a late cancel must not hide it.
private func reporter(_ callback: ((UnsafePointer<CChar>) -> Int32)?, cancel: DownloadStop?) -> (@Sendable (InstallProgress) -> Void)? {
    guard let callback else { return nil }
    // The C caller's callback and its context: called one report at a time (InstallEvents reports under its lock), from
    // whichever of the library's threads reached the event, as packverify.h says.
    let call = HandedOver(callback)
    return { report in
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(report) else { return }
        let answer = String(decoding: data, as: UTF8.self).withCString { call.value($0) }
        if answer != 0, let cancel, report.event != .installed, report.event != .scenesUnavailable {
            cancel.stop(VerificationFailure(.cancelled, "the progress callback returned \(answer) at \"\(report.event.rawValue)\": the operation was cancelled and nothing was switched in"))
        }
    }
}

@_cdecl("packverify_verify_installed")
public func packverify_verify_installed(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request, keys: ["into", "pack", "threads"]) { r in
        var threads: Int?
        // Absent or null: every core. Anything but a whole number in range (a string, a bool) is refused, not ignored.
        if let given = r.object["threads"], given != .null {
            guard let n = given.number, n >= 1, n <= 64, n.rounded() == n else {
                throw VerificationFailure(.request, "\"threads\" must be a whole number from 1 to 64")
            }
            threads = Int(n)
        }
        let report = try r.client().verifyInstalled(pack: try r.string("pack"), into: try r.url("into"), threads: threads)
        return ["pack": JSONValue(report.pack), "version": JSONValue(report.version), "intact": JSONValue(report.isIntact),
                "missing": JSONValue(report.missing), "changed": JSONValue(report.changed), "extra": JSONValue(report.extra),
                "checkedFiles": JSONValue(report.checkedFiles)]
    }
}

@_cdecl("packverify_update")
public func packverify_update(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    packverify_update_progress(request, nil, nil)
}

@_cdecl("packverify_update_progress")
public func packverify_update_progress(_ request: UnsafePointer<CChar>?, _ progress: ProgressCallback?, _ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    update(request, reporter(progress.map { callback in { callback($0, context); return 0 } }, cancel: nil), cancel: nil)
}

@_cdecl("packverify_update_cancellable")
public func packverify_update_cancellable(_ request: UnsafePointer<CChar>?, _ progress: CancellingProgressCallback?, _ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    let cancel = DownloadStop()
    return update(request, reporter(progress.map { callback in { callback($0, context) } }, cancel: cancel), cancel: cancel)
}

private func update(_ request: UnsafePointer<CChar>?, _ onProgress: (@Sendable (InstallProgress) -> Void)?, cancel: DownloadStop?) -> UnsafeMutablePointer<CChar>? {
    respond(request, keys: ["into", "pack", "from", "timeout"]) { r in
        let from = try r.string("from")
        // Absent or null: the default. Anything but a number in range (a string, a bool) is refused, not defaulted.
        let given = r.object["timeout"].flatMap { $0 == .null ? nil : $0 }
        guard let timeout = NetworkTimeout.accepted(given.map { $0.number ?? .nan } ?? 15) else {
            throw VerificationFailure(.request, "\"timeout\" must be \(NetworkTimeout.described)")
        }
        let fetcher = try TreeSource.fetcher(from, timeout: timeout)
        let result = try r.client().update(pack: try r.string("pack"), into: try r.url("into"), from: fetcher, onProgress: onProgress, cancel: cancel)
        var out: [String: JSONValue] = ["pack": JSONValue(result.pack), "toVersion": JSONValue(result.toVersion),
                                        "method": JSONValue(result.method), "changedScenes": JSONValue(result.changedScenes),
                                        "fallbacks": JSONValue(result.fallbacks)]
        if let from = result.fromVersion { out["fromVersion"] = JSONValue(from) }
        return out
    }
}

@_cdecl("packverify_access")
public func packverify_access(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request, keys: ["into", "pack", "request"]) { r in
        try AccessRequestKeys.check(r.object["request"] ?? .object([:]))
        let body = try JSONEncoder().encode(r.object["request"] ?? .object([:]))
        let accessRequest: AccessRequest
        do { accessRequest = try JSONDecoder().decode(AccessRequest.self, from: body) } catch {
            throw VerificationFailure(.request, "\"request\" is not an access request (\(DocumentLoader.describe(error)); expected {\"scene\": ID, "
                + "\"purchases\"?: [{\"productId\", \"purchaseDate\", \"revocationDate\"?, \"transactionId\"?}], \"codes\"?: [STRING], \"revokedCodes\"?: [ID], \"device\"?: ID})")
        }
        do { try accessRequest.validate() } catch let failure as VerificationFailure {
            throw VerificationFailure(failure.kind, "request.\(failure.message)")
        }
        let decision = try r.client().decideAccess(pack: try r.string("pack"), into: try r.url("into"), request: accessRequest)
        var out: [String: JSONValue] = ["allowed": JSONValue(decision.allowed), "code": JSONValue(decision.code.rawValue), "reason": JSONValue(decision.reason)]
        if let e = decision.entitlement { out["entitlement"] = JSONValue(e) }
        if let u = decision.until { out["until"] = JSONValue(u) }
        return out
    }
}

/// A parsed request with typed accessors that fail with clear messages.
private struct Request {
    let object: [String: JSONValue]

    func string(_ key: String) throws -> String {
        guard let v = object[key]?.string, !v.isEmpty else { throw VerificationFailure(.request, "the request needs \"\(key)\" (a string)") }
        return v
    }

    func url(_ key: String) throws -> URL { URL(fileURLWithPath: try string(key)) }

    /// The front door for the request's "state", on the request's injected clock when it has one.
    func client() throws -> PackClient {
        var client = PackClient(state: try url("state"))
        if let clock { client.reading = { clock } }
        return client
    }

    /// An array of non-empty strings (absent: none); anything else is refused, never filtered.
    func strings(_ key: String) throws -> [String] {
        guard let value = object[key], value != .null else { return [] }
        guard let items = value.array, let strings = Optional(items.compactMap(\.string)), strings.count == items.count,
              !strings.contains(where: \.isEmpty) else {
            throw VerificationFailure(.request, "\"\(key)\" must be an array of strings (file paths)")
        }
        return strings
    }

    /// Optional injected clock {"wall": seconds, "boot": seconds} for tests and for apps with their own time source.
    /// Checked when the request is read (`RequestKeys`), so a malformed clock is refused, never ignored.
    var clock: ClockGuard.Reading? {
        guard let c = object["clock"]?.object, let wall = c["wall"]?.number else { return nil }
        return ClockGuard.Reading(wall: wall, boot: c["boot"]?.number)
    }
}

/// Reads the request (strict UTF-8, a JSON object whose keys are `keys` plus "state" and "clock"), runs `body`, and
/// writes its result or its failure as the reply.
private func respond(_ request: UnsafePointer<CChar>?, keys: [String], _ body: (Request) throws -> [String: JSONValue]) -> UnsafeMutablePointer<CChar>? {
    var result: [String: JSONValue]
    do {
        guard let request else { throw VerificationFailure(.request, "the request is NULL") }
        let bytes = try RequestText.bytes(request)
        guard let object = (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)))?.object else {
            throw VerificationFailure(.request, "the request is not a JSON object")
        }
        // Readers disagree on which of two equal keys wins: a request repeating one is refused, as signed documents are.
        if let key = DuplicateKeys.first(in: bytes) { throw VerificationFailure(.request, "the request repeats the key \"\(key)\"") }
        try RequestKeys.check(object, allowed: keys)
        result = try body(Request(object: object))
        result["ok"] = .bool(true)
    } catch {
        let f = error as? VerificationFailure ?? VerificationFailure(.unexpected, "\(error)")
        result = ["ok": .bool(false), "error": .object(["code": JSONValue(f.code), "outcome": JSONValue(f.kind.outcome.rawValue), "message": JSONValue(f.message),
                                                        "recovery": JSONValue(f.recovery.rawValue)])]
    }
    let data = JSONValue.object(result).encoded()
    return strdup(String(decoding: data, as: UTF8.self))
}
