// swift-tools-version:5.10
// The package is layered as DESIGN.md §2 and docs/architecture.md describe: C libraries are wrapped once,
// each module depends only on the layers above it, and the client library carries no signing code.
import PackageDescription

let package = Package(
    name: "packtool",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "packtool", targets: ["packtool"]),
        .library(name: "PackVerify", targets: ["PackVerify"]),
        .library(name: "PackHTTP", targets: ["PackHTTP"]),
        .library(name: "PackURLSession", targets: ["PackURLSession"]),
        .library(name: "packverify", type: .dynamic, targets: ["CPackVerify"]),
    ],
    targets: [
        // System libraries, each wrapped by exactly one Swift module.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CTLS", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]),

        .target(name: "PackCrypto", dependencies: ["COpenSSL"]),
        .target(name: "PackModel", dependencies: ["PackCrypto"]),
        .target(name: "PackMedia"),
        .target(name: "PackArchive", dependencies: ["CArchive", "PackCrypto", "PackModel"]),
        .target(name: "PackLint", dependencies: ["PackModel", "PackMedia"]),
        // Signed documents, the root chain, the failure-code registry and one file per verification policy: below
        // both the client (PackVerify) and the publisher (PackPublish), so neither reaches into the other.
        .target(name: "PackTrust", dependencies: ["PackModel", "PackCrypto"]),
        .target(name: "PackPublish", dependencies: ["PackModel", "PackArchive", "CSQLite", "PackLint", "PackTrust"]),
        .target(name: "PackVerify", dependencies: ["PackTrust", "PackModel", "PackCrypto"]),
        // The release C library carries its own copy of the Swift runtime and FoundationEssentials (static stdlib,
        // linked with lld, no undefined symbols left): a C or Java app needs no Swift installed, and only the parts
        // of the runtime it uses are resident. Packed relative relocations (DT_RELR, glibc >= 2.36) shrink the
        // relocation table the loader reads from 880 KB to 7 KB. Installing a 245 MB pack peaks at 15.1 MiB
        // (20.5 MiB with the shared runtime and plain relocations).
        .target(name: "CPackVerify", dependencies: ["PackVerify", "PackModel", "PackHTTP"], linkerSettings: [.unsafeFlags([
            "-static-stdlib", "-use-ld=lld", "-Xlinker", "--no-undefined", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            "-l_FoundationCollections", "-l_FoundationCShims", "-lswiftSynchronization",
        ], .when(configuration: .release))]),
        // The updater's HTTP(S) transport (sockets and libssl), apart from the verifier so an app can bring its own.
        .target(name: "PackHTTP", dependencies: ["PackVerify", "PackModel", "PackCrypto", "CTLS"]),
        // The updater's transport for apps: URLSession (FoundationNetworking on Linux), no C library of its own.
        .target(name: "PackURLSession", dependencies: ["PackVerify", "PackModel"]),
        // The release tool carries the Swift runtime statically too: each run maps ten fewer libraries (15.7 → 11.2
        // MiB resident for `packtool --version`, ~2.5 ms less start-up), and it runs without a Swift installation.
        .executableTarget(
            name: "packtool",
            dependencies: ["PackCrypto", "PackModel", "PackMedia", "PackLint", "PackTrust", "PackPublish", "PackVerify", "PackHTTP"],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-l_FoundationCollections", "-l_FoundationCShims", "-lswiftSynchronization"],
                                          .when(configuration: .release))]),

        // Shared test helpers: repository paths, the example pack, scratch copies, running tools.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // libFuzzer targets for every parser (make fuzz builds them with -sanitize=fuzzer,address -DFUZZING).
        .executableTarget(name: "PackFuzz", dependencies: ["PackMedia", "PackCrypto", "PackModel", "PackTrust", "PackVerify", "PackHTTP"]),

        .testTarget(name: "PackCryptoTests", dependencies: ["PackCrypto", "TestSupport"]),
        .testTarget(name: "PackModelTests", dependencies: ["PackModel", "PackCrypto", "TestSupport"]),
        .testTarget(name: "PackMediaTests", dependencies: ["PackMedia", "TestSupport"]),
        .testTarget(name: "PackLintTests", dependencies: ["PackLint", "PackModel", "TestSupport"]),
        .testTarget(name: "PackArchiveTests", dependencies: ["PackArchive", "PackCrypto", "TestSupport"]),
        .testTarget(name: "PackTrustTests", dependencies: ["PackTrust", "PackModel", "PackCrypto", "TestSupport"]),
        .testTarget(name: "PackPublishTests", dependencies: ["PackPublish", "PackArchive", "PackModel", "PackCrypto", "PackVerify", "TestSupport"]),
        .testTarget(name: "PackVerifyTests", dependencies: ["PackVerify", "PackTrust", "PackModel", "PackCrypto", "TestSupport"]),
        .testTarget(name: "PackHTTPTests", dependencies: ["PackHTTP", "PackVerify", "TestSupport"]),
        .testTarget(name: "PackURLSessionTests", dependencies: ["PackURLSession", "PackVerify", "PackModel", "PackCrypto", "TestSupport", "packtool"]),
        .testTarget(name: "packtoolTests", dependencies: ["packtool", "PackModel", "PackCrypto", "PackArchive", "TestSupport"]),
    ]
)
