import PackLint

/// Why a publish did not happen. Every case leaves the output tree and the state folder as they were.
public enum PublishError: Error, CustomStringConvertible {
    case lint([Diagnostic])
    case versionNotIncreasing(pack: String, version: Int, last: Int)
    case contentChanged(pack: String, version: Int)
    case trust(String)
    case io(String)
    /// Object storage: bad settings, a refused request, a store that disagrees with what was uploaded.
    case objectStore(String)
    /// An object already in the store under a versioned name holds other bytes: refused, never overwritten.
    case contentMismatch(String)

    public var description: String {
        switch self {
        case .lint(let d):
            let errors = d.filter { $0.severity == .error }.count
            return "lint found \(errors) error\(errors == 1 ? "" : "s") and \(d.count - errors) other finding\(d.count - errors == 1 ? "" : "s"); nothing was published (run `packtool lint` for details\(errors == 0 ? ", or pass --allow-warnings" : ""))"
        case .versionNotIncreasing(let pack, let version, let last):
            return "\(pack) version \(version) is not greater than the last published version \(last)"
        case .contentChanged(let pack, let version):
            return "\(pack) version \(version) was already signed with different content; publish a new version instead"
        case .trust(let m), .io(let m), .objectStore(let m), .contentMismatch(let m):
            return m
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackModel

extension PublishError {
    /// A name a publish needs as a folder (in the output tree or the state folder) holds something else: a symbolic
    /// link is never followed — it could send the release's files anywhere — and nothing is removed in its place.
    static func notAFolder(_ path: String, _ mode: mode_t) -> PublishError {
        let found = mode & S_IFMT == S_IFLNK ? "a symbolic link, which is not followed here" : RegularFile.kind(mode)
        return .io("\(path): is \(found), not a folder; packtool writes only into real folders beneath the folder it was given — remove or move it and publish again")
    }
}
