/// The client library's privacy manifest (`PrivacyInfo.xcprivacy`, a resource of this target), which Xcode copies
/// into every app that links PackVerify on an Apple platform. App Store Connect requires a reason for each
/// required-reason API an app or its SDKs call (ITMS-91053); the client calls two kinds:
///
/// - **File timestamp** (`stat`, `fstat`, `lstat`, `fstatat`): every file the library reads, reuses or replaces is
///   checked to be a regular file with one link, of the size the manifest signs, inside the app's own install and
///   state folders — reason `C617.1` (files inside the app container).
/// - **System boot time** (`clock_gettime(CLOCK_MONOTONIC_RAW)`): the clock guard bounds how far the wall clock may
///   have moved by the time elapsed since boot, so a clock set back cannot reopen an expired Trip Pass — reason
///   `35F9.1` (time elapsed between events in the app).
///
/// `scripts/check-privacy-manifest.py` (run by `make test`) fails when a client module calls an API of a category
/// this manifest does not declare. Nothing is collected and nothing tracks: the library makes no request the app did
/// not ask for.
public enum PackPrivacy {
    /// The manifest's file name inside this target's resource bundle.
    public static let manifestName = "PrivacyInfo.xcprivacy"
}
