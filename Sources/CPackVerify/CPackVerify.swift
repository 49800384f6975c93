import Foundation
import PackVerify

/// The C ABI's version string, stored once so the pointer stays valid for the life of the process.
private let versionCString: UnsafeMutablePointer<CChar> = strdup(PackVerifyVersion.string)!

@_cdecl("packverify_version")
public func packverify_version() -> UnsafePointer<CChar> { UnsafePointer(versionCString) }

@_cdecl("packverify_free")
public func packverify_free(_ p: UnsafeMutablePointer<CChar>?) { free(p) }
