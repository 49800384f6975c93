#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackMedia
import PackModel

/// `packtool new stop PACK NN-slug`: a stop folder of placeholders lint explains, and the stop added to the route by a
/// byte insertion into pack.json.
enum NewStop {
    static let crops = ["16x9", "9x16"]

    static func run(_ a: Arguments) throws -> Int32 {
        guard a.positionals.count == 3 else { throw CommandLineError.usage("expected `new stop PACK NN-slug`") }
        for option in ["--id", "--city", "--language"] where a.value(option) != nil { throw CommandLineError.usage("\(option) belongs to `new pack`") }
        let packPath = a.positionals[1], stop = a.positionals[2]
        guard StopName.isStopName(stop) else {
            throw CommandLineError.usage("\"\(stop)\" is not a stop name: two or three digits, a hyphen and a slug (lower-case letters and digits, words joined by single hyphens), e.g. 03-mercat-cross")
        }
        let json = try OutputFormat.json(a)
        let years = try eras(a.value("--eras"))
        let wanted = try plates(a.value("--crops"))

        let pack: RootedFolder
        let packBytes: [UInt8]
        do {
            pack = try RootedFolder(opening: packPath, followingLinkAtRoot: true)
            packBytes = Array(try pack.read("pack.json", cap: 8 << 20))
        } catch {
            throw CommandLineError.io("\(packPath) is not a pack: it has no readable pack.json (\(error)); start one with `packtool new pack`")
        }
        guard let root = JSONParser().parse(packBytes).root, let route = JSONArrayInsertion.strings(at: "/route", in: root) else {
            throw CommandLineError.io("\(packPath)/pack.json has no \"route\" list of stop names to add the stop to; run `packtool lint \(packPath)` and fix what it finds first")
        }
        let shown = ShownPath.of(packPath + "/stops/" + stop)
        guard !pack.exists("stops/" + stop) else { throw CommandLineError.io("\(shown) already exists; `new stop` never writes into an existing stop") }

        // pack.json first in memory: if it cannot be edited, nothing is written.
        let (edited, notes) = try addToRoute(stop, packBytes: packBytes, root: root, route: route, packPath: packPath)
        let language = root["language"]?.string ?? Placeholder.text("the language of the story, a BCP 47 tag such as en-GB")
        let title = a.value("--title") ?? Placeholder.text("the stop's title as visitors see it, e.g. The Castle Esplanade")
        var files: [(path: String, data: Data)] = [
            ("scene.json", Data(sceneJSON(stop: stop, title: title, years: years, crops: wanted, language: language).utf8)),
            ("uncertainty.json", Data("{\n  \"eras\": []\n}\n".utf8)),
            ("story.vtt", Data(transcript.utf8)),
        ]
        for year in years {
            for crop in wanted { files.append((plate(year, crop), Placeholder.plate(for: plate(year, crop)))) }
        }
        let madeStops = !pack.exists("stops")
        let stops = try openStops(pack, shown: packPath + "/stops")
        do {
            try NewFolder(files: files).write(as: stop, in: stops, shown: shown)
            if edited != packBytes {
                do { try pack.rewriteAuthored(Data(edited), to: "pack.json") } catch {
                    stops.removeTree(stop)
                    throw CommandLineError.io("\(packPath)/pack.json: cannot write it (\(error)); the stop was not added")
                }
            }
        } catch {
            if madeStops { try? pack.remove("stops") }  // only while empty: it was made for this stop
            throw error
        }
        let plates = years.flatMap { year in wanted.map { plate(year, $0) } }
        if json {
            let files = ["scene.json", "uncertainty.json", "story.vtt"] + plates
            try JSONValue.object(["made": "stop", "stop": .string(stop), "folder": .string(shown), "files": .strings(files.map { shown + "/" + $0 }),
                                  "notes": .strings(notes)]).print()
            return 0
        }
        Output.out("""
            Wrote \(shown)/ (scene.json, uncertainty.json, story.vtt, \(plates.count) placeholder plate\(plates.count == 1 ? "" : "s")).
            \(notes.joined(separator: "\n"))
            Next:
              1. Replace every "REPLACE ME: …" value in scene.json: where the visitor stands (anchor), what they look at
                 (view.target; lint then gives the bearing), the field of view, the eras' labels and the sources.
              2. Replace each placeholder plate with the era's picture as HEIC, e.g.
                   heif-enc plate.png -o \(shown)/\(plates.first ?? "layers/1900-16x9.heic")
              3. Record the story as \(shown)/story.m4a (AAC) and write its transcript in story.vtt.
              4. Check the stop: packtool lint \(ShownPath.of(packPath))

            """)
        return 0
    }

    /// pack.json with the stop appended to its route (and made free to try when it is the first stop), edited in
    /// memory by byte insertion so everything else in the file stays as the author wrote it; with the notes to print.
    private static func addToRoute(_ stop: String, packBytes: [UInt8], root: JSONNode, route: [String], packPath: String) throws -> ([UInt8], [String]) {
        var edited = packBytes
        var notes: [String] = []
        if route.contains(stop) {
            notes.append("The route already lists \(stop); pack.json is unchanged.")
        } else {
            guard let withStop = JSONArrayInsertion.appending(stop, toArrayAt: "/route", in: edited) else {
                throw CommandLineError.io("\(packPath)/pack.json: cannot add \(stop) to its route")
            }
            edited = withStop
            notes.append("Added \(stop) to the end of the route in pack.json.")
            if route.isEmpty, JSONArrayInsertion.strings(at: "/access/freeStops", in: root) == [],
               let free = JSONArrayInsertion.appending(stop, toArrayAt: "/access/freeStops", in: edited) {
                edited = free
                notes.append("Made it free to try (access.freeStops), as the first stop.")
            }
        }
        return (edited, notes)
    }

    private static func openStops(_ pack: RootedFolder, shown: String) throws -> RootedFolder {
        do { return try pack.ensureFolder("stops") } catch { throw CommandLineError.io("\(shown): cannot open or make the folder (\(error))") }
    }

    static func plate(_ year: Int, _ crop: String) -> String { "layers/\(year)-\(crop).heic" }

    /// The years of `--eras`, ascending (default one era, 1900).
    static func eras(_ text: String?) throws -> [Int] {
        guard let text else { return [1900] }
        var years: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let year = Int(part), year >= 0, year <= 9999 else {
                throw CommandLineError.usage("--eras takes years separated by commas, e.g. 1824,1900; \"\(part)\" is not a year")
            }
            guard !years.contains(year) else { throw CommandLineError.usage("--eras names \(year) twice") }
            years.append(year)
        }
        return years.sorted()
    }

    /// The plates of `--crops`, in the order lint lists them (default both).
    static func plates(_ text: String?) throws -> [String] {
        guard let text else { return crops }
        let asked = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for crop in asked where !crops.contains(crop) { throw CommandLineError.usage("--crops takes 16x9 and 9x16; \"\(crop)\" is neither") }
        return crops.filter(asked.contains)
    }

    static let transcript = """
        WEBVTT

        NOTE Written by `packtool new stop` as a placeholder. Record the story as story.m4a (AAC), then write what is
        said here: one cue a sentence, each with its start and end time in the audio.

        """

    /// scene.json: the layout of the example pack's scenes, every value only the author knows a placeholder. The 9:16
    /// crop is the centred one (a 9:16 rectangle of a 16:9 frame is 81/256 of its width).
    static func sceneJSON(stop: String, title: String, years: [Int], crops: [String], language: String) -> String {
        func todo(_ what: String) -> String { NewFolder.quoted(Placeholder.text(what)) }
        let eras = years.enumerated().map { i, year in
            let layers = crops.map { "        \"\($0)\": \"\(plate(year, $0))\"" }.joined(separator: ",\n")
            return """
                    {
                      "year": \(year),
                      "label": \(todo("a short caption for \(year), e.g. The Lawnmarket, \(year)")),\(i == years.count - 1 ? "\n      \"default\": true," : "")
                      "layers": {
                \(layers)
                      },
                      "sources": [
                        "source-1"
                      ]
                    }
                """
        }.joined(separator: ",\n")
        return """
            {
              "id": "\(stop)",
              "title": \(NewFolder.quoted(title)),
              "anchor": {
                "lat": \(todo("the latitude where the visitor stands, in degrees, written as a number with 5 decimals (about 1 m)")),
                "lon": \(todo("the longitude where the visitor stands, in degrees (negative west of Greenwich), written as a number"))
              },
              "view": {
                "bearing": \(todo("the direction the visitor faces, degrees clockwise from true north (lint works it out from view.target)")),
                "fov": \(todo("the plates' horizontal field of view in degrees; a phone's main camera sees about 65")),
                "target": {
                  "lat": \(todo("the latitude of what the view is centred on")),
                  "lon": \(todo("the longitude of what the view is centred on")),
                  "name": \(todo("what the view is centred on, e.g. the castle gatehouse"))
                }
              },
              "crops": {
                "9x16": {
                  "x": 0.341796875,
                  "y": 0.0,
                  "width": 0.31640625,
                  "height": 1.0
                }
              },
              "eras": [
            \(eras)
              ],
              "story": {
                "audio": "story.m4a",
                "transcript": "story.vtt",
                "language": \(NewFolder.quoted(language))
              },
              "provenance": {
                "sources": [
                  {
                    "id": "source-1",
                    "title": \(todo("the title of the map, painting, photograph or record the plates draw on")),
                    "creator": \(todo("who made it")),
                    "date": \(todo("when it was made, as the institution gives it")),
                    "medium": \(todo("what it is, e.g. engraved plan, oil on canvas")),
                    "institution": \(todo("who holds it")),
                    "url": \(todo("the https:// address of its record or collection page")),
                    "rights": \(todo("its rights: an SPDX id such as CC-BY-4.0, a Creative Commons URI or a rightsstatements.org URI")),
                    "use": \(todo("how the plates use it: reference, derived or embedded"))
                  }
                ],
                "credits": \(todo("who drew the plates, wrote and spoke the story"))
              }
            }

            """
    }
}
