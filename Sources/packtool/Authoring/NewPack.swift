#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackFiles
import PackModel

/// `packtool new pack DIR`: a pack.json whose unknown values are placeholders lint explains, written atomically into a
/// folder that does not exist yet (or is empty).
enum NewPack {
    static func run(_ a: Arguments) throws -> Int32 {
        guard a.positionals.count == 2 else { throw CommandLineError.usage("expected `new pack DIR`") }
        for option in ["--eras", "--crops"] where a.value(option) != nil { throw CommandLineError.usage("\(option) belongs to `new stop`") }
        var dir = a.positionals[1]
        while dir.count > 1, dir.hasSuffix("/") { dir.removeLast() }
        let name = PathParts.last(dir)
        guard !name.isEmpty, name != ".", name != ".." else { throw CommandLineError.usage("name the new pack's folder, e.g. `new pack scenes/old-town`") }
        let id = a.value("--id") ?? name
        guard StopName.isSlug(id) else {
            let given = a.value("--id") == nil ? "the folder's name \"\(name)\"" : "--id \"\(id)\""
            throw CommandLineError.usage("\(given) is not a pack id: lower-case letters and digits, words joined by single hyphens, e.g. royal-mile"
                                         + (a.value("--id") == nil ? " (or give one with --id)" : ""))
        }
        if let language = a.value("--language"), !StopName.isLanguageTag(language) {
            throw CommandLineError.usage("--language \"\(language)\" is not a BCP 47 language tag such as en-GB")
        }
        let parentPath = dir.contains("/") ? String(dir[..<dir.lastIndex(of: "/")!]) : "."
        let parent: RootedFolder
        do { parent = try RootedFolder(opening: parentPath.isEmpty ? "/" : parentPath, create: true, followingLinkAtRoot: true) } catch {
            throw CommandLineError.io("\(dir): cannot open the folder it goes in (\(error))")
        }
        if parent.exists(name) {
            let entries = (try? parent.list(name)) ?? ["?"]
            guard entries.isEmpty else {
                throw CommandLineError.io("\(dir) already exists and is not empty; `new pack` never writes into an existing pack. Choose a new folder")
            }
        }
        let json = try OutputFormat.json(a)
        try NewFolder(files: [("pack.json", Data(packJSON(id: id, a).utf8))]).write(as: name, in: parent, shown: dir)
        let shown = ShownPath.of(dir), file = ShownPath.of(dir + "/pack.json")
        if json {
            try JSONValue.object(["made": "pack", "pack": .string(id), "folder": .string(shown), "files": .strings([file])]).print()
            return 0
        }
        Output.out("""
            Wrote \(file) for the pack "\(id)".
            Next:
              1. Make the historian's key (keep the .pem private) and paste the reviewers entry it prints over the
                 placeholder one in pack.json (--id is their id in pack.json, --display-name their name as shown):
                   packtool key generate --role reviewer --out keys --id historian --display-name "FIRST LAST"
              2. Add the stops in walking order:
                   packtool new stop \(shown) 01-first-stop --title "…" --eras 1824
              3. Replace every "REPLACE ME: …" value (lint lists them) and check the pack:
                   packtool lint \(shown)

            """)
        return 0
    }

    /// pack.json, laid out as the example pack's: known values filled in, everything else a placeholder.
    static func packJSON(id: String, _ a: Arguments) -> String {
        func value(_ option: String, _ placeholder: String) -> String { NewFolder.quoted(a.value(option) ?? Placeholder.text(placeholder)) }
        func todo(_ what: String) -> String { NewFolder.quoted(Placeholder.text(what)) }
        return """
            {
              "id": \(NewFolder.quoted(id)),
              "title": \(value("--title", "the pack's title as visitors see it, e.g. Edinburgh, the Royal Mile, c. 1824")),
              "city": \(value("--city", "the city the walk is in")),
              "language": \(value("--language", "the language of the stories, a BCP 47 tag such as en-GB")),
              "route": [],
              "geofenceRadius": 30,
              "area": {
                "south": \(todo("the southern edge of the walk's area, a latitude in degrees written as a number")),
                "west": \(todo("the western edge, a longitude in degrees (negative west of Greenwich) written as a number")),
                "north": \(todo("the northern edge, a latitude in degrees written as a number")),
                "east": \(todo("the eastern edge, a longitude in degrees written as a number"))
              },
              "access": {
                "freeStops": [],
                "products": {
                  "cityPack": {
                    "productId": \(todo("the store product id that unlocks this pack, e.g. com.example.walks.\(id).citypack"))
                  }
                }
              },
              "reviewers": [
                {
                  "id": "historian",
                  "name": \(todo("the historian's name")),
                  "role": "historian",
                  "publicKey": \(todo("the \"public key:\" `packtool key generate --role reviewer` prints (or paste the whole reviewers entry it prints over this one)"))
                }
              ],
              "sizeBudget": 250000000
            }

            """
    }
}
