import PackPublish

/// `--warn-root-days`, `--warn-manifest-days` and `--warn-index-days`: how far ahead `status` and `renew` warn about
/// each kind (DESIGN.md §9.3; defaults 60, 30 and 2 days — the revocation list lives by the index that binds it).
enum HorizonFlags {
    static let options: [CommandOption] = [
        CommandOption("--warn-root-days", "N", "warn when the root expires within N days (default 60: its rotation needs the offline root keys)"),
        CommandOption("--warn-manifest-days", "N", "warn when a manifest expires within N days (default 30)"),
        CommandOption("--warn-index-days", "N", "warn when the index (and so the revocation list) expires within N days (default 2)"),
    ]

    /// The horizons the flags give; `allDays`, an older single flag, sets every kind it names before the per-kind flags.
    static func horizons(_ a: Arguments, legacy: (flag: String, kinds: [String])? = nil) throws -> ExpiryHorizons {
        var horizons = ExpiryHorizons()
        if let legacy, a.value(legacy.flag) != nil {
            let days = try positiveDays(a, legacy.flag, 0)
            for kind in legacy.kinds {
                switch kind {
                case "root": horizons.root = days
                case "manifest": horizons.manifest = days
                default: horizons.index = days
                }
            }
        }
        if a.value("--warn-root-days") != nil { horizons.root = try positiveDays(a, "--warn-root-days", 60) }
        if a.value("--warn-manifest-days") != nil { horizons.manifest = try positiveDays(a, "--warn-manifest-days", 30) }
        if a.value("--warn-index-days") != nil { horizons.index = try positiveDays(a, "--warn-index-days", 2) }
        return horizons
    }

    private static func positiveDays(_ a: Arguments, _ flag: String, _ fallback: Double) throws -> Double {
        try a.days(flag, default: fallback)
    }
}
