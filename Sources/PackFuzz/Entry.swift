import Foundation

#if FUZZING
/// libFuzzer entry. SwiftPM renames an executable's `main` to `PackFuzz_main`; defining it here hands control to
/// libFuzzer's driver. The target comes from PACKFUZZ_TARGET (json, csv, webvtt, heif, mp4, envelope, tar, code, http, stream, journal).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

nonisolated(unsafe) var selected: (([UInt8]) -> Void)?

@_cdecl("PackFuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    let name = ProcessInfo.processInfo.environment["PACKFUZZ_TARGET"] ?? ""
    guard let target = FuzzTargets.all[name] else {
        fputs("PackFuzz: set PACKFUZZ_TARGET to one of \(FuzzTargets.all.keys.sorted().joined(separator: ", "))\n", stderr)
        return 2
    }
    selected = target
    var count = argc
    var args: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &args) { data, size in
        selected?(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
#else
/// Without libFuzzer: `PackFuzz TARGET FILE...` replays files through a target (corpus regression runs).
@main
struct PackFuzz {
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        guard let name = args.first, let target = FuzzTargets.all[name] else {
            print("usage: PackFuzz \(FuzzTargets.all.keys.sorted().joined(separator: "|")) FILE...")
            exit(2)
        }
        for path in args.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { print("cannot read \(path)"); exit(2) }
            target([UInt8](data))
        }
        print("\(name): \(args.count - 1) input(s) ran")
    }
}
#endif
