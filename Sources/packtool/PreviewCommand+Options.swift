/// preview's option table (kept apart from PreviewCommand.swift, which the preview work edits).
extension PreviewCommand {
    static let options: [CommandOption] = [
        CommandOption("--out", "DIR", """
            where to write the site (default ./PACKNAME-preview, or beside the pack when run inside it);
            DIR must be new, empty, or an earlier preview holding only what the preview wrote, and
            outside the pack
            """),
        .flag("--open", "open the route page in the desktop's browser when done"),
        .flag("--quiet", "no progress on standard error"),
    ]
    static let examples = [
        "packtool preview scenes/royal-mile --out royal-mile-preview --open",
        "packtool preview scenes/royal-mile --out demo-out/preview --quiet",
    ]
}
