/// `packtool new pack` and `packtool new stop`: start a pack, or add a stop to one, with files lint reads and
/// placeholders that say what to write where (lint refuses each until it is replaced).
enum NewCommand: Command {
    static let name = "new"
    static let summary = "start a pack, or add a stop to one"
    static let help = """
        usage: packtool new pack DIR [--id ID] [--title TITLE] [--city CITY] [--language TAG]
               packtool new stop PACK NN-slug [--title TITLE] [--eras YEAR,…] [--crops 16x9,9x16]

        `new pack` writes DIR/pack.json for a new pack: its id is DIR's name unless --id gives one, its route is empty,
        and every value only the author knows (the area, the store product id, the historian and their public key, and
        the title, city and language unless given) is a "REPLACE ME: …" text that says what belongs there. DIR must not
        exist or be empty; nothing is ever overwritten.

        `new stop` writes PACK/stops/NN-slug/ (scene.json, uncertainty.json, story.vtt and one placeholder plate per era
        and crop) and adds the stop to the end of pack.json's route, leaving the rest of pack.json byte for byte as it
        was (the first stop is also made free to try when no stop is). NN-slug is two or three digits, a hyphen and a
        slug, e.g. 03-mercat-cross. --eras lists the years the stop shows (default 1900); --crops which plates to
        write (default both). The anchor, view, sources and story are placeholders too; the plates are text files that
        lint refuses until each is replaced with the real HEIC.

        Both write into a hidden temporary folder renamed into place last, so a failure leaves nothing, and both say
        what to do next. `packtool lint` lists every placeholder left.

        """
    static let options: [CommandOption] = [
        CommandOption("--id", "ID", "the pack's id (default: DIR's name)", only: ["pack"]),
        CommandOption("--title", "TITLE", "the pack's or stop's title as visitors see it"),
        CommandOption("--city", "CITY", "the city the walk is in", only: ["pack"]),
        CommandOption("--language", "TAG", "the stories' language, a BCP 47 tag such as en-GB", only: ["pack"]),
        CommandOption("--eras", "YEAR,...", "the years the stop shows (default 1900)", only: ["stop"]),
        CommandOption("--crops", "16x9,9x16", "which plates to make per era (default both)", only: ["stop"]),
        .format("text, or one JSON object: what was made and the files written"),
    ]
    static let examples = [
        "packtool new pack scenes/old-town --title \"The Old Town, c. 1850\" --city Edinburgh --language en-GB",
        "packtool new stop scenes/old-town 01-west-port --title \"The West Port\" --eras 1750,1850",
        "packtool new stop scenes/old-town 02-grassmarket --crops 16x9 --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        switch a.positionals.first {
        case "pack": return try NewPack.run(a)
        case "stop": return try NewStop.run(a)
        default: throw CommandLineError.usage("expected `new pack DIR` or `new stop PACK NN-slug`")
        }
    }
}
