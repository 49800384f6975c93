/// lint's option table (kept apart from LintCommand.swift, which the lint work edits).
extension LintCommand {
    static let options: [CommandOption] = [
        .flag("--fix", """
            make the fixes lint can make by itself (quotes around a number, a trailing, doubled or missing
            comma, an extension's case, spaces around a name, an angle past 360, the nearest licence
            id or allowed value, the bearing to the target, closing a mask's ring, moving every cue of a
            transcript that leads or lags the voice), each an edit of those bytes only, every file
            written whole; never signoff.json. Says which sign-offs the
            edits make stale, then lints again and prints what is left for a person to fix
            """),
        CommandOption("--format", "text|json|sarif", """
            text for people (default; colour as --color says);
            json: {diagnostics, summary, reports} for scripts, with each finding's JSON pointer and, where
            lint can make it, its `fix` (byte-offset edits); with --fix also `fixed` and `staleSignoffs`;
            sarif: SARIF 2.1.0 for code-scanning services, with `fixes`
            """),
        .flag("--dry-run", """
            with --fix: print the edits as a unified diff (`patch -p0` applies it) and the fixes
            they make, and write nothing
            """),
        CommandOption("--color", "auto|always|never", """
            colour the text findings: auto (default) on a terminal unless NO_COLOR is set;
            always and never win over NO_COLOR
            """),
        .flag("--strict", "exit 1 on warnings and notes too"),
        .flag("--quiet", "print only the findings (no \"checked\" lines or fix report)"),
    ]
    static let examples = [
        "packtool lint scenes/royal-mile",
        "packtool lint scenes/royal-mile/stops/02-gladstones-land --format json",
        "packtool lint --fix scenes/royal-mile",
        "packtool lint --fix --dry-run scenes/royal-mile",
    ]
}
