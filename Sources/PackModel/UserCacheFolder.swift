/// Where packtool keeps what it can always compute again (decoded plates, what lint heard in a story, an upload's
/// journal), per user rather than per pack or output folder, so every pack and every preview share it:
/// `$PACKTOOL_CACHE_DIR/NAME` when set (tests, CI), else `$XDG_CACHE_HOME/packtool/NAME`, else
/// `~/Library/Caches/packtool/NAME` on macOS and `~/.cache/packtool/NAME` elsewhere. `PACKTOOL_CACHE_DIR` must be
/// absolute (it is made when missing); `XDG_CACHE_HOME` and `HOME` must be absolute folders that exist (a cache is
/// never the reason a home appears). nil when there is none: the caller then works without a cache.
public enum UserCacheFolder {
    /// The environment variable that puts every cache elsewhere (tests point it at a scratch folder).
    public static let environmentVariable = "PACKTOOL_CACHE_DIR"

    /// The folder `name` (`voice`, `plates`, `multipart`) of the user's cache for `environment`, or nil.
    public static func path(_ name: String, environment: [String: String]) -> String? {
        if let own = environment[environmentVariable], own.hasPrefix("/") { return own + "/" + name }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/"), FileSystem.isDirectory(cache) {
            return cache + "/packtool/" + name
        }
        guard let home = environment["HOME"], home.hasPrefix("/"), home != "/", FileSystem.isDirectory(home) else { return nil }
        #if os(macOS)
        return home + "/Library/Caches/packtool/" + name
        #else
        return home + "/.cache/packtool/" + name
        #endif
    }
}
