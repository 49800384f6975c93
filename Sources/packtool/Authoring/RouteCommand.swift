#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackModel

/// `packtool route export|import`: the pack's stops as a georeferencing spreadsheet (CSV), one row a stop.
enum RouteCommand: Command {
    static let name = "route"
    static let summary = "export the stops to a CSV spreadsheet, or import one into the scenes"
    static let help = """
        usage: packtool route export PACKDIR [--out FILE.csv] [--format text|json]
               packtool route import FILE.csv PACKDIR [--dry-run] [--force] [--format text|json]

        export writes one row per stop of pack.json's route, in route order, under a header naming the columns by
        where their values live in scene.json:
          \(RouteSheet.columns.map(\.header).joined(separator: ", "))
        Numbers are written exactly as the JSON writes them; eras are the eras' years separated by ";" (1824;1900);
        an empty cell is a value the file does not have. A text cell beginning with =, +, -, @, a tab, a carriage
        return or an apostrophe (the first four also after leading spaces, or full-width: ＝ ＋ － ＠) is written
        quoted with an apostrophe before it, so a spreadsheet shows it as text and runs no formula (import drops
        exactly that apostrophe). The last column, exported, records what was exported,
        so import can tell a cell you changed from one scene.json changed since. Without --out the CSV goes to
        standard output.

        import reads such a sheet as spreadsheets save it: columns separated by commas, semicolons or tabs (whichever
        the header row uses, or Excel's first sep=; line names), quoted fields, CRLF or LF, a UTF-8 byte order mark,
        empty trailing columns; the columns in any order, any of them left out but id; at most 2000 rows. In a sheet separated by semicolons or tabs a decimal comma is read (51,38130); in a
        comma-separated one it is refused (write 51.38130). A latitude or longitude may be written in degrees,
        minutes and seconds, with or without the marks (55°56'55.4"N, 55 56 55.4 N, 3°11'18"W, N 55° 56.923'); it
        is written into scene.json in decimal degrees (six decimals). A blank view.bearing is worked out from the
        anchor to the target, to one decimal, as lint --fix sets it.
        Each stop's scene.json is made to say what its row says: only the values that differ are rewritten, in
        place, and every other byte of the file stays as it was. A row whose id is not a stop yet creates
        stops/<id>/scene.json (a minimal one, for lint to complete) and adds the id to the end of pack.json's route.
        Eras are added, never removed. A value with nowhere to go (scene.json lacks the object that holds it) is
        refused, never dropped; export refuses a value a sheet cannot carry back (true, null, a list, text in a
        number field), and never writes into the pack. A cell that cannot be read (not a number, out of range, a duplicate or
        malformed id, a row with more or fewer cells than the header, text with a control, invisible or bidirectional
        character such as ESC, NUL or U+202E — tabs and line breaks are allowed — or a target left with one or two of
        its three values) is reported by row and column, and then nothing is written. A sheet over 8 MiB is refused
        before it is read. A cell that would put back a value scene.json changed after the export (a lint --fix
        since, or an edit) is named and refused the same way; --force imports it all the same.
        signoff.json is never touched: the report names the sign-offs the changes make stale.
        The report shows each changed cell: stop, column, old value → new value.
        --dry-run reports what would change and writes nothing.
        Exit codes: 0 imported (or nothing to change), 1 rows refused, 2 usage or I/O error.

        """
    static let options: [CommandOption] = [
        CommandOption("--out", "FILE.csv", "write the sheet here (default: standard output)", only: ["export"]),
        .flag("--dry-run", "report what would change, cell by cell, and write nothing", only: ["import"]),
        .flag("--force", "import cells that put back values scene.json changed after the export", only: ["import"]),
        .format("text, or one JSON object (export: the file, stops and columns written; import: the changes)"),
    ]
    static let examples = [
        "packtool route export scenes/royal-mile --out royal-mile.csv",
        "packtool route import royal-mile.csv scenes/royal-mile",
        "packtool route import royal-mile.csv scenes/royal-mile --dry-run --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        switch a.positionals.first {
        case "export":
            guard a.positionals.count == 2 else { throw CommandLineError.usage("expected `route export PACKDIR [--out FILE.csv]`") }
            return try export(pack: a.positionals[1], out: a.value("--out"), json: try OutputFormat.json(a))
        case "import":
            guard a.positionals.count == 3 else { throw CommandLineError.usage("expected `route import FILE.csv PACKDIR`") }
            return try importSheet(a.positionals[1], pack: a.positionals[2], dryRun: a.flag("--dry-run"), force: a.flag("--force"),
                                   json: try OutputFormat.json(a))
        default:
            throw CommandLineError.usage("expected `route export PACKDIR` or `route import FILE.csv PACKDIR`")
        }
    }

    private static func open(_ pack: String) throws -> RootedFolder {
        do { return try RootedFolder(opening: pack, followingLinkAtRoot: true) } catch {
            throw CommandLineError.io("\(pack): cannot open the pack folder (\(error))")
        }
    }

    static func export(pack: String, out: String?, json: Bool = false) throws -> Int32 {
        // The sheet is never written into the pack: an outside attack overwrote pack.json, a scene.json and a
        // sign-off with it.
        if let out, FileSystem.isWithin(out, folder: pack) {
            throw CommandLineError.usage("--out \(out) is inside the pack folder \(pack); write the sheet outside the authored tree")
        }
        let table: CSVTable
        do { table = try RouteSheet.export(try open(pack)) } catch let r as RouteSheet.Refusal {
            throw CommandLineError.failure(r.problems.map { pack + "/" + $0 }.joined(separator: "\n"))
        }
        let facts: [String: JSONValue] = ["pack": .string(ShownPath.of(pack)), "stops": .int(table.records.count - 1),
                                          "columns": .strings(table.records.first ?? []), "file": .optional(out.map(ShownPath.of))]
        guard let out else {
            if json {
                var object = facts
                object["csv"] = .string(table.text)
                try JSONValue.object(object).print()
            } else {
                Output.out(table.text)
            }
            return 0
        }
        do { try AtomicFile.write(Data(table.text.utf8), to: URL(fileURLWithPath: out)) } catch {
            throw CommandLineError.io("\(out): cannot write (\(error))")
        }
        if json { try JSONValue.object(facts).print(); return 0 }
        Output.out("wrote \(ShownPath.of(out)): \(table.records.count - 1) stops\n")
        return 0
    }

    static let maximumSheetBytes = 8 << 20

    static func importSheet(_ path: String, pack packPath: String, dryRun: Bool, force: Bool = false, json: Bool) throws -> Int32 {
        guard let bytes = FileManager.default.contents(atPath: path) else { throw CommandLineError.io("\(ShownPath.of(path)): cannot be read") }
        // 2000 stops of long titles fit in well under a megabyte; a 50 MB cell took 77 s and was printed back whole.
        guard bytes.count <= Self.maximumSheetBytes else {
            throw CommandLineError.failure("\(ShownPath.of(path)): \(bytes.count) bytes; a route sheet is at most 8 MiB (2000 stops); nothing was written")
        }
        // The sheet as the working folder names it, so an editor can jump to sheet:row.
        let sheet = ShownPath.of(path)
        let pack = try open(packPath)
        let plan: RouteImport
        do {
            plan = try RouteImport(try CSVTable.parse(Array(bytes)), sheet: sheet, pack: pack, force: force)
        } catch let e as CSVTable.ParseError {
            return try refused(["\(sheet):\(e.row): \(e.message)"], json: json, dryRun: dryRun)
        } catch let r as RouteSheet.Refusal {
            return try refused(r.problems, json: json, dryRun: dryRun)
        }
        if !dryRun {
            do { try plan.apply(to: pack) } catch { throw CommandLineError.io("\(error); nothing was changed") }
        }
        if json {
            Output.out(String(decoding: try OutputFormat.encoder.encode(ImportReport(plan, dryRun: dryRun)), as: UTF8.self) + "\n")
            return 0
        }
        guard !plan.changes.isEmpty else { Output.out("nothing to change: every stop already says what \(sheet) says\n"); return 0 }
        var text = dryRun ? "would change (--dry-run, nothing written):\n" : ""
        for change in plan.changes {
            text += change.created ? "  created \(change.id)" + (plan.addedToRoute.contains(change.id) ? " (added to the route)" : "") + "\n"
                : "  changed \(change.id): \(change.columns.joined(separator: ", "))\n"
            for cell in change.cells { text += "    \(change.id) \(cell.column): " + cellText(cell) + "\n" }
        }
        for stale in plan.forced {
            text += "  --force: \(stale.id) \(stale.change.column) \(dryRun ? "would overwrite" : "overwrote") \(stale.change.shown(stale.change.old)), "
                + "which scene.json came to say after the sheet was exported\n"
        }
        for signoff in plan.staleSignoffs {
            text += "  stale: \(ShownPath.of(packPath + "/" + signoff)) covers the old scene.json; check the change, then `packtool review sign` again\n"
        }
        Output.out(text)
        return 0
    }

    /// A sheet refused: every problem, then that nothing was written; exit 1. With `--format json` the same as one
    /// object on standard output (`"ok": false`), so a script reading it always gets an answer.
    private static func refused(_ problems: [String], json: Bool, dryRun: Bool) throws -> Int32 {
        guard json else { throw CommandLineError.failure(problems.joined(separator: "\n") + "\nnothing was written") }
        try JSONValue.object(["ok": .bool(false), "dryRun": .bool(dryRun), "problems": .strings(problems), "written": .strings([])]).print()
        return 1
    }

    /// `old → new`, with where the new value came from when the sheet wrote it otherwise.
    private static func cellText(_ cell: RouteImport.CellChange) -> String {
        var text = "\(cell.shown(cell.old)) → \(cell.shown(cell.new))"
        if cell.workedOut { text += " (worked out from the target)" } else if let typed = cell.sheet { text += " (from \(typed))" }
        return text
    }

    /// `route import --format json`: what changed, cell by cell.
    private struct ImportReport: Encodable {
        struct Cell: Encodable { var column: String; var old: String?; var new: String?; var sheet: String?; var workedOut: Bool }
        struct Stop: Encodable { var id: String; var created: Bool; var columns: [String]; var cells: [Cell] }
        struct Forced: Encodable { var id: String; var column: String; var overwritten: String? }
        var ok = true, dryRun: Bool, stops: [Stop], written: [String], staleSignoffs: [String], forced: [Forced]

        init(_ plan: RouteImport, dryRun: Bool) {
            self.dryRun = dryRun
            stops = plan.changes.map { change in
                Stop(id: change.id, created: change.created, columns: change.columns,
                     cells: change.cells.map { Cell(column: $0.column, old: $0.old, new: $0.new, sheet: $0.sheet, workedOut: $0.workedOut) })
            }
            written = dryRun ? [] : plan.writes.map(\.path)
            staleSignoffs = plan.staleSignoffs
            forced = plan.forced.map { Forced(id: $0.id, column: $0.change.column, overwritten: $0.change.old) }
        }
    }
}
