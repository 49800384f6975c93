// swift-tools-version:5.10
// The package is layered as DESIGN.md §2 and docs/architecture.md describe: C libraries are wrapped once,
// each module depends only on the layers above it, and the client library carries no signing code.
import PackageDescription

// The client modules (PackCrypto's verify half, PackModel, PackTrust, PackVerify) build on Apple platforms with
// CryptoKit and no C library beyond the SDK; on Linux they use OpenSSL. The backend is chosen by the
// PACKTOOL_CRYPTOKIT define, never by canImport(CryptoKit), which a stand-in module named CryptoKit turns true
// everywhere. With PACKTOOL_CRYPTOKIT_SHIM=1 on Linux, PackCrypto builds its CryptoKit path against the test-only
// stand-in in Tests/Shims/CryptoKit (a CryptoKit API over libcrypto), so that path is compiled and tested here too;
// `make test` does this with its own --scratch-path. Without the variable the stand-in is not in the package.
let cryptoKitShim: Bool = {
    #if os(Linux)
    return Context.environment["PACKTOOL_CRYPTOKIT_SHIM"] == "1"
    #else
    return false
    #endif
}()
// Every Apple platform the package declares a minimum for (below); the sources also choose CryptoKit by `os(…)`.
let applePlatforms: [Platform] = [.macOS, .iOS, .macCatalyst]

let packCrypto: Target = cryptoKitShim
    ? .target(name: "PackCrypto", dependencies: ["PackFiles", "CryptoKit"], swiftSettings: [.define("PACKTOOL_CRYPTOKIT")])
    : .target(name: "PackCrypto", dependencies: ["PackFiles", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))],
              swiftSettings: [.define("PACKTOOL_CRYPTOKIT", .when(platforms: applePlatforms))])
let cryptoKitStandIn: [Target] = cryptoKitShim ? [
    .target(name: "CryptoKit", dependencies: ["COpenSSL"], path: "Tests/Shims/CryptoKit"),
    .testTarget(name: "CryptoKitShimTests", dependencies: ["CryptoKit"], path: "Tests/Shims/CryptoKitTests"),
] : []

// The Apple code compiled on Linux (DESIGN.md §9.6): with PACKTOOL_APPLE_STANDINS=1, the client modules and the
// guide's snippets are built against test-only stand-ins of the Apple APIs they call (Tests/Shims/*StandIns, each
// declaration copied from Apple's documentation, bodies that never run Apple behaviour). `-module-alias` makes
// `import Darwin` (and `canImport(Darwin)`) resolve to DarwinStandIns in exactly those targets, and UIKit,
// BackgroundTasks and StoreKit to theirs in the snippets' target, so every Apple-only branch is compiled as written
// — no stand-in define in the sources, and no target named like an Apple module (which would turn `canImport` true in
// every target). Build only (`scripts/check-apple-code.sh`, its own --scratch-path): the Darwin branches replace
// the Linux ones, so nothing built this way may run.
let appleStandIns: Bool = {
    #if os(Linux)
    return Context.environment["PACKTOOL_APPLE_STANDINS"] == "1"
    #else
    return false
    #endif
}()
let clientModules: Set<String> = ["PackFiles", "PackCrypto", "PackModel", "PackTrust", "PackFetch", "PackVerify", "PackURLSession", "PackBackground", "AppleGuideSnippets"]
let appleStandInTargets: [Target] = appleStandIns ? [
    .target(name: "DarwinStandIns", path: "Tests/Shims/DarwinStandIns"),
    .target(name: "UIKitStandIns", path: "Tests/Shims/UIKitStandIns"),
    .target(name: "BackgroundTasksStandIns", path: "Tests/Shims/BackgroundTasksStandIns"),
    .target(name: "StoreKitStandIns", dependencies: ["UIKitStandIns"], path: "Tests/Shims/StoreKitStandIns",
            swiftSettings: [.unsafeFlags(["-module-alias", "UIKit=UIKitStandIns"])]),
] : []

let package = Package(
    name: "packtool",
    platforms: [.iOS(.v17), .macOS(.v14), .macCatalyst(.v17)],
    products: [
        .executable(name: "packtool", targets: ["packtool"]),
        .library(name: "PackVerify", targets: ["PackVerify"]),
        .library(name: "PackHTTP", targets: ["PackHTTP"]),
        .library(name: "PackURLSession", targets: ["PackURLSession"]),
        .library(name: "PackBackground", targets: ["PackBackground"]),
        // The C library. Not "packverify": that differs from "PackVerify" only by case, and the two collide on a
        // case-insensitive file system (APFS, Xcode's build folder). SwiftPM writes libPackVerifyC.so; it ships as
        // libpackverify.so.1 (the SONAME below) with packverify.pc, laid out by scripts/libpackverify.sh (make lib,
        // make install): DESIGN.md §8.7.
        .library(name: "PackVerifyC", type: .dynamic, targets: ["CPackVerify"]),
    ],
    targets: [
        // System libraries, each wrapped by exactly one Swift module.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]),
        .systemLibrary(name: "CTLS", pkgConfig: "libssl", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // Image codecs for `packtool preview` only (browsers other than Safari cannot show HEIC): never in a client module.
        // C targets compiled against the libraries' headers that open them with dlopen on the first plate (as CAVCodec
        // opens FFmpeg): libheif brings libde265, x265, libaom and dav1d, which no other command should map.
        .target(name: "CHeif", cSettings: [.unsafeFlags(["-I/opt/homebrew/include", "-I/usr/local/include"], .when(platforms: [.macOS]))],
                linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "CWebP", cSettings: [.unsafeFlags(["-I/opt/homebrew/include", "-I/usr/local/include"], .when(platforms: [.macOS]))],
                linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // QR codes of access codes for `packtool grant issue --qr` only: never in a client module.
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        // The story decoded (FFmpeg's libavformat, libavcodec, libswresample) for lint to hear the voice: never in a client
        // module. A C target, not a system library: it is compiled against FFmpeg's headers but links none of FFmpeg —
        // it opens the libraries with dlopen on the first decode (DESIGN.md §9.8), so the ~140 libraries Debian's
        // libavcodec brings are mapped only by a run that decodes a story. Headers: Debian's libav*-dev (on the default
        // include path), Homebrew's ffmpeg on macOS.
        .target(name: "CAVCodec",
                cSettings: [.unsafeFlags(["-I/opt/homebrew/include", "-I/usr/local/include"], .when(platforms: [.macOS]))],
                linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),

        packCrypto,
        // Signing, PEM and key files, and the object store's HMAC-SHA256 and MD5: OpenSSL only, on every platform
        // (publishers run Linux or macOS with OpenSSL, and CryptoKit's randomised signatures would break byte-identical
        // rebuilds). Tool-only: no client module depends on it, so an app carries none of it.
        .target(name: "PackSigning", dependencies: ["COpenSSL", "PackCrypto", "PackModel", "PackFiles"]),
        // The files module, below every module that reads or writes files (PackCrypto and PackMedia included): the one
        // way to open a file for reading without blocking, the one capped whole-file read, the durability seam, and the
        // rooted layer (RootedFolder) through which every file under a root the code was given is reached. PackModel
        // re-exports it.
        .target(name: "PackFiles"),
        .target(name: "PackModel", dependencies: ["PackCrypto", "PackFiles"]),
        // What authors write (pack.json, scene.json, uncertainty masks, sign-offs, the pack folder and its tree digest,
        // lint limits): read by lint, the preview and the publisher, never by a client, so an app carries none of it.
        .target(name: "PackAuthoring", dependencies: ["PackModel", "PackCrypto", "PackFiles", "PackMedia", "PackSigning"]),
        .target(name: "PackMedia", dependencies: ["PackFiles"]),
        .target(name: "PackArchive", dependencies: ["PackCrypto", "PackModel", "PackFiles"]),
        // Where the voice is in a story (decoded by FFmpeg, a detector of our own) and how a transcript lines up with it.
        // Optimised in every configuration: the detector's spectra are arithmetic a debug build makes twenty times slower,
        // and lint (tests included) hears every story.
        .target(name: "PackAudio", dependencies: ["CAVCodec", "PackCrypto", "PackModel", "PackFiles", "PackMedia", "PackLint"], swiftSettings: [.unsafeFlags(["-O"])]),
        // Lint hears stories through its `VoiceListening` protocol, which PackAudio implements: lint links no decoder.
        .target(name: "PackLint", dependencies: ["PackModel", "PackMedia", "PackCrypto", "PackFiles", "PackAuthoring"]),
        // HEIC plates decoded (libheif) and written as WebP (libwebp) at display sizes: the one module owning their handles.
        .target(name: "PackImage", dependencies: ["CHeif", "CWebP", "PackMedia"]),
        // Access codes as QR code PNGs (libqrencode, libpng): the one module owning their handles, used by packtool alone.
        .target(name: "PackQR", dependencies: ["CQRencode", "CPNG"]),
        // `packtool preview`: the pack as the app shows it, as a static site that works from file:// (HTML, CSS and a
        // little JavaScript of our own), with lint's findings beside each stop.
        .target(name: "PackPreview", dependencies: ["PackLint", "PackModel", "PackMedia", "PackCrypto", "PackFiles", "PackImage", "PackAuthoring", "PackNet"]),
        // Signed documents, the root chain, the failure-code registry and one file per verification policy: below
        // both the client (PackVerify) and the publisher (PackPublish), so neither reaches into the other.
        .target(name: "PackTrust", dependencies: ["PackModel", "PackCrypto", "PackFiles"]),
        .target(name: "PackPublish", dependencies: ["PackModel", "PackArchive", "CSQLite", "PackLint", "PackTrust", "PackSigning", "PackNet", "PackAuthoring", "PackCrypto", "PackFiles"]),
        // The download contract every transport meets (Fetcher, DownloadPolicy, the whole-download deadline,
        // Content-Range, the one `.part` writer and the one retry loop): below the verifier and the transports, so
        // PackHTTP and PackURLSession never import PackVerify (scripts/check-module-arrows.py keeps it so).
        .target(name: "PackFetch", dependencies: ["PackTrust", "PackModel", "PackFiles"]),
        // The client's privacy manifest (PrivacyInfo.xcprivacy) as a resource Xcode copies into every app that links
        // PackVerify, on Apple platforms only: on Linux a resource would pull Foundation's Bundle into the C library.
        .target(name: "PackPrivacy", resources: [.copy("PrivacyInfo.xcprivacy")]),
        .target(name: "PackVerify", dependencies: ["PackFetch", "PackTrust", "PackModel", "PackCrypto", "PackFiles",
                                                   .target(name: "PackPrivacy", condition: .when(platforms: applePlatforms))]),
        // The release C library carries its own copy of the Swift runtime and FoundationEssentials (static stdlib,
        // linked with lld, no undefined symbols left): a C or Java app needs no Swift installed, and only the parts
        // of the runtime it uses are resident. Packed relative relocations (DT_RELR, glibc >= 2.36) shrink the
        // relocation table the loader reads from 880 KB to 7 KB. Installing a 245 MB pack peaks at 15.1 MiB
        // (20.5 MiB with the shared runtime and plain relocations).
        .target(name: "CPackVerify", dependencies: ["PackVerify", "PackModel", "PackHTTP"], linkerSettings: [
            // The name apps record and load, whatever the product is called (DESIGN.md §8.7).
            .unsafeFlags(["-Xlinker", "-soname=libpackverify.so.1"], .when(platforms: [.linux])),
            .unsafeFlags([
                "-static-stdlib", "-use-ld=lld", "-Xlinker", "--no-undefined", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                "-l_FoundationCollections", "-l_FoundationCShims", "-lswiftSynchronization",
            ], .when(platforms: [.linux], configuration: .release)),
        ]),
        // Sockets and TLS (libssl) with bounded waits, and HTTP/1.1 framing: shared by the updater's transport and the
        // publisher's object-store uploads, and below both so neither reaches into the other.
        .target(name: "PackNet", dependencies: ["CTLS"]),
        // The updater's HTTP(S) transport, apart from the verifier so an app can bring its own.
        .target(name: "PackHTTP", dependencies: ["PackFetch", "PackTrust", "PackModel", "PackCrypto", "PackNet"]),
        // The updater's transport for apps: URLSession (FoundationNetworking on Linux), no C library of its own.
        .target(name: "PackURLSession", dependencies: ["PackFetch", "PackTrust", "PackModel"]),
        // Downloads that survive a locked phone: a background URLSession's download tasks handed over to the verifier.
        // Where the transport meets the verifier, so neither imports the other.
        .target(name: "PackBackground", dependencies: ["PackVerify", "PackURLSession", "PackFetch", "PackTrust", "PackModel"]),
        // The release tool carries the Swift runtime statically too: each run maps ten fewer libraries (15.7 → 11.2
        // MiB resident for `packtool --version`, ~2.5 ms less start-up), and it runs without a Swift installation.
        // FFmpeg is not linked (CAVCodec opens it on the first decode): a command that hears no story maps none of it.
        .executableTarget(
            name: "packtool",
            dependencies: ["PackCrypto", "PackSigning", "PackModel", "PackFiles", "PackAuthoring", "PackMedia", "PackLint", "PackTrust", "PackPublish", "PackVerify", "PackHTTP", "PackPreview", "PackQR", "PackAudio"],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-l_FoundationCollections", "-l_FoundationCShims", "-lswiftSynchronization"],
                                          .when(platforms: [.linux], configuration: .release))]),

        // Shared test helpers: repository paths, the example pack, scratch copies, running tools.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // libFuzzer targets for every parser (make fuzz builds them with -sanitize=fuzzer,address -DFUZZING).
        .executableTarget(name: "PackFuzz", dependencies: ["PackAuthoring", "PackMedia", "PackCrypto", "PackModel", "PackTrust", "PackVerify", "PackHTTP"]),

        .testTarget(name: "PackCryptoTests", dependencies: ["PackCrypto", "PackSigning", "TestSupport"]),
        .testTarget(name: "PackSigningTests", dependencies: ["PackSigning", "PackCrypto", "TestSupport"]),
        .testTarget(name: "PackModelTests", dependencies: ["PackModel", "PackCrypto", "PackSigning", "TestSupport", "PackAuthoring", "PackMedia", "PackFiles"]),
        .testTarget(name: "PackMediaTests", dependencies: ["PackMedia", "TestSupport"]),
        .testTarget(name: "PackLintTests", dependencies: ["PackLint", "PackModel", "PackMedia", "TestSupport", "PackAuthoring", "PackAudio", "PackCrypto"]),
        .testTarget(name: "PackAudioTests", dependencies: ["PackAudio", "PackMedia", "PackLint", "TestSupport", "PackCrypto"]),
        .testTarget(name: "PackImageTests", dependencies: ["PackImage", "TestSupport"]),
        .testTarget(name: "PackPreviewTests", dependencies: ["PackPreview", "PackLint", "PackModel", "PackMedia", "PackImage", "TestSupport", "PackAuthoring", "PackCrypto", "PackAudio"]),
        // CArchive: the libarchive writer TarEncoding replaced, kept as its byte-for-byte reference, and libarchive's
        // reader as the outside check of the strict reader (packtool itself no longer links libarchive).
        .testTarget(name: "PackArchiveTests", dependencies: ["PackArchive", "PackModel", "PackCrypto", "PackTrust", "CArchive", "TestSupport"]),
        .testTarget(name: "PackTrustTests", dependencies: ["PackTrust", "PackModel", "PackCrypto", "PackFiles", "PackSigning", "TestSupport"]),
        .testTarget(name: "PackPublishTests", dependencies: ["PackPublish", "PackArchive", "PackModel", "PackCrypto", "PackSigning", "PackTrust", "PackVerify", "TestSupport", "PackAuthoring", "PackNet"]),
        .testTarget(name: "PackVerifyTests", dependencies: ["PackVerify", "PackTrust", "PackModel", "PackCrypto", "PackFetch", "PackSigning", "TestSupport"]),
        // The hostile-server cases every Fetcher passes, written once; each transport's suite runs them.
        .target(name: "FetcherCases", dependencies: ["PackVerify", "TestSupport"], path: "Tests/FetcherCases"),
        .testTarget(name: "PackHTTPTests", dependencies: ["PackHTTP", "PackVerify", "PackModel", "TestSupport", "FetcherCases"]),
        .testTarget(name: "PackURLSessionTests", dependencies: ["PackURLSession", "PackBackground", "PackVerify", "PackModel", "PackCrypto", "PackPublish", "TestSupport", "FetcherCases", "packtool"]),
        // docs/client-apple.md's Swift blocks, compiled with only the two products an app adds (so the target builds
        // for iOS as well), and the guide's functions tested on the example pack.
        .target(name: "AppleGuideSnippets", dependencies: ["PackVerify", "PackURLSession", "PackBackground"], path: "Tests/AppleGuideSnippets"),
        .testTarget(name: "AppleGuideTests", dependencies: ["AppleGuideSnippets", "PackURLSession", "PackVerify", "TestSupport", "packtool"]),
        // The C ABI's request checks through the Swift functions behind its symbols (the stand-in's build runs them too).
        .testTarget(name: "CPackVerifyTests", dependencies: ["CPackVerify", "TestSupport"]),
        .testTarget(name: "packtoolTests", dependencies: ["packtool", "PackModel", "PackCrypto", "PackSigning", "PackPublish", "PackArchive", "PackTrust", "PackVerify", "TestSupport", "PackAuthoring"]),
    ] + cryptoKitStandIn + appleStandInTargets
)

if appleStandIns {
    for target in package.targets where clientModules.contains(target.name) {
        target.dependencies.append("DarwinStandIns")
        var aliases = ["-module-alias", "Darwin=DarwinStandIns"]
        if target.name == "PackBackground" {
            target.dependencies.append("UIKitStandIns")
            aliases += ["-module-alias", "UIKit=UIKitStandIns"]
        }
        if target.name == "AppleGuideSnippets" {
            target.dependencies += ["UIKitStandIns", "BackgroundTasksStandIns", "StoreKitStandIns"]
            aliases += ["-module-alias", "UIKit=UIKitStandIns", "-module-alias", "BackgroundTasks=BackgroundTasksStandIns",
                        "-module-alias", "StoreKit=StoreKitStandIns"]
        }
        // Strict: complete concurrency checking and every warning an error, as a Swift 6 app would see the package.
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(aliases + ["-strict-concurrency=complete", "-warnings-as-errors"])]
    }
}
