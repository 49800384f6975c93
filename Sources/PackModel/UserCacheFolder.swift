/// Where packtool keeps what it can always compute again (decoded plates, what lint heard in a story, an upload's
/// journal), per user rather than per pack or output folder, so every pack and every preview share it:
/// `$PACKTOOL_CACHE_DIR/NAME` when set (tests, CI), else `$XDG_CACHE_HOME/packtool/NAME`, else
/// `~/Library/Caches/packtool/NAME` on macOS and `~/.cache/packtool/NAME` elsewhere. Only an absolute base that
/// exists is used; nil when there is none (the caller then works without a cache).
public enum UserCacheFolder {
    public static func path(_ name: String, environment: [String: String]) -> String? {
        if let own = environment["PACKTOOL_CACHE_DIR"], own.hasPrefix("/"), FileSystem.isDirectory(own) { return own + "/" + name }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/"), FileSystem.isDirectory(cache) {
            return cache + "/packtool/" + name
        }
        guard let home = environment["HOME"], home.hasPrefix("/"), FileSystem.isDirectory(home) else { return nil }
        #if os(macOS)
        return home + "/Library/Caches/packtool/" + name
        #else
        return home + "/.cache/packtool/" + name
        #endif
    }
}
