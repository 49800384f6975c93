import Foundation
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
    respond(request) { r in
        let root = try Trust(state: try r.url("state")).pin(rootFile: try r.url("root"))
        return ["rootVersion": root.version, "expires": root.expires]
    }
}

@_cdecl("packverify_update_roots")
public func packverify_update_roots(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request) { r in
        let files = (r.object["roots"] as? [String] ?? []).map { URL(fileURLWithPath: $0) }
        let root = try Trust(state: try r.url("state")).update(roots: files)
        return ["rootVersion": root.version]
    }
}

@_cdecl("packverify_accept_index")
public func packverify_accept_index(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request) { r in
        var trust = Trust(state: try r.url("state"))
        if let clock = r.clock { trust.reading = { clock } }
        let index = try trust.accept(index: try r.url("index"))
        return ["indexVersion": index.version, "packs": index.packs.mapValues { ["version": $0.version, "archive": $0.archive.path] }]
    }
}

@_cdecl("packverify_install")
public func packverify_install(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request) { r in
        var installer = Installer(state: try r.url("state"))
        if let clock = r.clock { installer.reading = { clock } }
        let result = try installer.install(archive: try r.url("archive"), into: try r.url("into"))
        return ["pack": result.pack, "version": result.version, "files": result.files, "bytes": result.bytes]
    }
}

@_cdecl("packverify_verify_installed")
public func packverify_verify_installed(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request) { r in
        let report = try InstalledPack(state: try r.url("state")).verify(into: try r.url("into"), pack: try r.string("pack"))
        return ["pack": report.pack, "version": report.version, "intact": report.isIntact, "missing": report.missing,
                "changed": report.changed, "extra": report.extra, "checkedFiles": report.checkedFiles]
    }
}

@_cdecl("packverify_access")
public func packverify_access(_ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    respond(request) { r in
        var access = InstalledAccess(state: try r.url("state"))
        if let clock = r.clock { access.reading = { clock } }
        let body = try JSONSerialization.data(withJSONObject: r.object["request"] ?? [:])
        let decision = try access.decide(into: try r.url("into"), pack: try r.string("pack"), request: JSONDecoder().decode(AccessRequest.self, from: body))
        var out: [String: Any] = ["allowed": decision.allowed, "code": decision.code, "reason": decision.reason]
        if let e = decision.entitlement { out["entitlement"] = e }
        if let u = decision.until { out["until"] = u }
        return out
    }
}

/// A parsed request with typed accessors that fail with clear messages.
private struct Request {
    let object: [String: Any]

    func string(_ key: String) throws -> String {
        guard let v = object[key] as? String, !v.isEmpty else { throw VerificationFailure("request", "the request needs \"\(key)\" (a string)") }
        return v
    }

    func url(_ key: String) throws -> URL { URL(fileURLWithPath: try string(key)) }

    /// Optional injected clock {"wall": seconds, "boot": seconds} for tests and for apps with their own time source.
    var clock: ClockGuard.Reading? {
        guard let c = object["clock"] as? [String: Any], let wall = (c["wall"] as? NSNumber)?.doubleValue else { return nil }
        return ClockGuard.Reading(wall: wall, boot: (c["boot"] as? NSNumber)?.doubleValue)
    }
}

private func respond(_ request: UnsafePointer<CChar>?, _ body: (Request) throws -> [String: Any]) -> UnsafeMutablePointer<CChar>? {
    var result: [String: Any]
    do {
        guard let request else { throw VerificationFailure("request", "the request is NULL") }
        let text = String(cString: request)
        guard text.utf8.count <= 1 << 20, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw VerificationFailure("request", "the request is not a JSON object")
        }
        result = try body(Request(object: object))
        result["ok"] = true
    } catch let f as VerificationFailure {
        result = ["ok": false, "error": ["code": f.code, "message": f.message]]
    } catch {
        result = ["ok": false, "error": ["code": "error", "message": "\(error)"]]
    }
    let data = (try? JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])) ?? Data("{\"ok\":false}".utf8)
    return strdup(String(decoding: data, as: UTF8.self))
}
