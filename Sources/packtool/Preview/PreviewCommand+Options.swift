/// preview's option table (kept apart from PreviewCommand.swift, which the preview work edits).
extension PreviewCommand {
    static let options: [CommandOption] = [
        CommandOption("--out", "DIR", """
            where to write the site (default ./PACKNAME-preview, or beside the pack when run inside it);
            DIR must be new, empty, or an earlier preview holding only what the preview wrote, and
            outside the pack
            """),
        .flag("--open", "open the route page in the desktop's browser when done (with --serve, its address)"),
        .flag("--quiet", "no progress on standard error"),
        .flag("--serve", """
            serve the site at http://127.0.0.1:PORT/ and rebuild it whenever a file in the pack changes;
            open pages reload themselves, and a failed rebuild keeps the last good site with its error
            shown on the page. Only GET and HEAD, only for a Host header naming this machine. Ctrl-C stops
            """),
        CommandOption("--port", "N", "the port for --serve (default 8024; \"port in use\" means another program has it: try another)"),
        CommandOption("--host", "H", """
            the loopback address for --serve: 127.0.0.1 (default), another 127.x.x.x, ::1 or localhost;
            the preview is never served to the network
            """),
    ]
    static let examples = [
        "packtool preview scenes/royal-mile",
        "packtool preview scenes/royal-mile --open",
        "packtool preview scenes/royal-mile --serve --port 8080",
        "packtool preview scenes/royal-mile --out demo-out/preview --quiet",
    ]
}
