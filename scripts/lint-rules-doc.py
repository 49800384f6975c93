#!/usr/bin/env python3
"""Writes docs/lint-rules.md from the rule codes in Sources/PackLint/Rules and the explanations below.
Run after adding or changing a rule; LintRulesDocumentTests fails while the two disagree, and with `--check` the
script writes nothing and exits 1 when docs/lint-rules.md is not what it would write (Tests/python/test_lint_rules_doc.py)."""
import re, subprocess, glob, os, sys
os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Collect codes, severities and summaries from the Swift sources.
codes = {}
for path in glob.glob('Sources/PackLint/Rules/*.swift'):
    for m in re.finditer(r'RuleCode\("(PT\d{4})", \.(\w+), "([^"]+)"\)', open(path).read()):
        codes[m.group(1)] = (m.group(2), m.group(3))
W = {
"PT0100": ("The app and packtool cannot read the document at all; nothing else in it can be checked (a trailing comma, a doubled comma, a comma left out between two members, a `//` or `/* */` comment, a key without quotes or a string in single quotes, and closing brackets missing at the end of the file are the exceptions: they are reported where they are and read past, so the rest of the file is still checked).", '`"city": "Edinburgh", ]` → `pack.json:4:24: error: expected a quoted key, found \']\' [PT0100]`'),
"PT0101": ("JSON readers disagree on which of two equal keys wins, so the app might show a different value than the one you checked.", '`"city": "Edinburgh", "city": "Leith"`'),
"PT0102": ("A misspelt field is silently ignored by the app; the value you meant to set never takes effect.", '`"elevation": 3` in `anchor` → hint: known fields: lat, lon, altitude, accuracy'),
"PT0103": ("The app needs the field to show or place the stop.", 'scene.json without `"title"`'),
"PT0104": ("A value of the wrong type cannot be used (a number written as text is not a number).", '`"fov": "64"`'),
"PT0105": ("Out-of-range or malformed values mislead the app (a bearing of 360, an id with spaces, an unknown `use`).", '`"bearing": 360` → must be less than 360'),
"PT0106": ("Every pack needs pack.json, every stop scene.json and uncertainty.json (which may list no regions).", 'a stop folder without uncertainty.json'),
"PT0107": ("Each section of a document is checked on its own, so a mistake in one leaves the others checked; the checks that need the broken section wait until it is fixed. The note says so, so that new findings after the fix are no surprise.", '`"fov": "64"` → `scene.json:9:11: note: the checks that need "view" did not run, as it has errors [PT0107]`'),
"PT0108": ("`packtool new pack` and `new stop` write a \"REPLACE ME: …\" text wherever only the author knows the value (an anchor, a bearing, a source, the historian's key); each says what belongs there, and none may ship. The schema finding the text would also cause (text where a number belongs) is left out: this one says what to write.", '`"lat": "REPLACE ME: the latitude where the visitor stands, …"` → hint: replace the whole string with the latitude where the visitor stands, …'),
"PT0110": ("A missing plate or story is a blank screen or silence at the stop.", 'scene.json names `layers/1880-9x16.heic` but the file is gone'),
"PT0111": ("Scenes install and update as self-contained folders; a path outside cannot be shipped or verified.", '`"audio": "../story.m4a"`'),
"PT0112": ("Everything in the pack ships to every visitor and counts against the size budget.", '`stops/04-tron-kirk/notes.txt`, or a `.DS_Store`'),
"PT0113": ("NFC and NFD spellings of one name are two files on Linux but one on the phone's file system.", '`Café.txt` saved with a combining accent'),
"PT0114": ("Names with spaces, punctuation or reserved words break on some systems, URLs and CDNs.", '`notes copy.txt`, `CON.heic`'),
"PT0115": ("On the phone (case-insensitive APFS) the two names are one file; one would overwrite the other.", '`Story.vtt` beside `story.vtt`'),
"PT0116": ("Packs carry only regular files; links and devices are refused by the client's installer.", 'a symbolic link `link.heic`'),
"PT0201": ("An anchor outside the pack's area is almost always swapped or mistyped coordinates; visitors would be sent elsewhere.", '`"lat": 56.94873` (one degree north)'),
"PT0202": ("The target defines where the view points; a wrong target misaligns the plates.", 'target latitude mistyped by a degree'),
"PT0203": ("The reconstruction is aligned through the camera by this bearing; 1.5° off is already visible at the edge of a building.", 'view.bearing 250.9° while the gatehouse lies at 258.9°'),
"PT0204": ("The plates are drawn for the phone camera's view; an implausible field of view distorts the overlay.", '`"fov": 150`'),
"PT0205": ("A target a metre away or kilometres off usually means the target's coordinates are wrong.", 'target equal to the anchor'),
"PT0206": ("Long legs lose visitors between stops.", 'with `lint.maxLegDistance: 100`, the 239 m first leg'),
"PT0207": ("Overlapping geofences make the app unsure which stop the visitor is at.", '`geofenceRadius: 120` with stops 237 m apart'),
"PT0208": ("The portrait plate must be a crop of the composed frame, or portrait and landscape disagree.", '`"x": 0.8` with width 0.316'),
"PT0209": ("A crop with the wrong shape would be stretched on a portrait screen.", '`"width": 0.4` with height 1'),
"PT0210": ("An empty area makes every anchor \"outside\".", '`"south": 55.96` above north 55.955'),
"PT0301": ("The era slider cannot offer one year twice.", 'two eras with year 1647'),
"PT0302": ("The era slider runs oldest to newest in list order.", '1700 listed after 1824'),
"PT0303": ("A reconstruction of the future is a typo.", '`"year": 2990`'),
"PT0304": ("The app opens each scene on its default era; none or several is ambiguous.", 'no era has `"default": true`'),
"PT0305": ("The app decodes plates as HEIC; anything else shows nothing.", 'a PNG renamed to .heic, a truncated file'),
"PT0306": ("A plate of the wrong shape is stretched or letterboxed over the camera image.", 'the 9:16 file named as the 16:9 layer'),
"PT0307": ("Plates below phone resolution look blurred on the device.", 'a 1280×854 image as the 16:9 plate'),
"PT0308": ("Every reconstruction must name the sources it rests on, and those must be listed with their rights.", 'era cites `gordon-1648`'),
"PT0309": ("Predictable names let people find the plate for an era and crop.", '`layers/1880-wide.heic`'),
"PT0310": ("Each era and crop needs its own plate; reuse is usually a copy-paste slip.", 'the 16:9 file used for the 9:16 layer too'),
"PT0311": ("Decoders allocate the picture the HEVC stream codes, not the size the `ispe` header declares: a plate whose header understates its stream passes every size check and then decodes at gigapixel cost, so the preview refuses it before decoding.", 'a 1920×1080 plate whose `ispe` was edited to say 1920×1088, or an 8192×8192 stream under a 64×64 header'),
"PT0312": ("`packtool new stop` writes a placeholder plate (a short text file under the plate's .heic name, starting with `packtool placeholder plate`) for each era and crop, so the scene is complete from the start; the app cannot show it, so it must be replaced with the real HEIC.", '`layers/1900-16x9.heic` as `new stop` wrote it → hint: replace the placeholder plate with the 16:9 plate for 1900'),
"PT0401": ("Rights must be machine-readable so no unlicensed imagery ships.", '`"rights": "CC-BY-9.9"`'),
"PT0402": ("Shipping an in-copyright or non-commercial source inside a paid app would infringe.", 'an `InC-EDU` source marked `embedded`'),
"PT0403": ("CC-PDDC is deprecated by SPDX and Creative Commons.", '`"rights": "CC-PDDC"`'),
"PT0404": ("A source nobody cites is either missing a citation or clutter in the credits.", 'grant-1880 listed but not cited'),
"PT0405": ("Citations by id would be ambiguous.", 'two sources with id kirkwood-1817'),
"PT0406": ("Visitors follow source links from the app; use the secure address.", '`http://www.rct.uk/collection`'),
"PT0501": ("No reconstruction ships without a historian's review of exactly what ships.", 'a scene edited after review, or never signed'),
"PT0502": ("The scene changed after it was reviewed; the message names the changed files.", 'story.vtt edited after sign-off'),
"PT0503": ("A sign-off anyone could have written proves nothing.", 'a signature altered by hand'),
"PT0504": ("signoff.json is written by `packtool review sign`; other entries were edited by hand.", 'an envelope whose payload is `{}`'),
"PT0505": ("A sign-off copied from another scene does not review this one.", 'signoff.json copied from the previous stop'),
"PT0601": ("The app draws masks as closed outlines; an open ring draws wrongly.", 'polygon without the repeated first point'),
"PT0602": ("A region needs an area to hatch and to tap.", 'polygon with two distinct points'),
"PT0603": ("A self-crossing outline hatches unpredictably.", 'a bow-tie polygon'),
"PT0604": ("A region too small to tap hides its note.", 'a 0.0001-wide triangle'),
"PT0605": ("Visitors tap hatching to read why we are unsure; a blank note tells them nothing.", '`"note": "   "`'),
"PT0606": ("Every conjecture names its evidence.", 'region cites `nobody-1900`'),
"PT0607": ("A mask for an era the scene does not have is never shown.", 'mask year 1700'),
"PT0608": ("Region ids identify notes in the app; they must be unique per era.", 'two regions `r`'),
"PT0609": ("A frame that is mostly conjecture may not be ready to ship.", 'a region covering 90% of the frame'),
"PT0610": ("Two mask entries for one era would compete.", 'year 1647 listed twice'),
"PT0701": ("The app plays stories with the system's MP4 player.", 'a WAV renamed story.m4a'),
"PT0702": ("AAC is what every phone decodes in hardware.", 'an ALAC file in an .m4a'),
"PT0703": ("Without a duration the transcript cannot be checked or the progress bar drawn.", 'an edit list of length zero'),
"PT0704": ("Players refuse a transcript without the WEBVTT signature, so the text never shows.", 'a file starting with text'),
"PT0705": ("Players drop malformed cues, so sentences silently vanish from the transcript.", '`00:00.000 --> 00:0x.000`'),
"PT0706": ("Players ignore bad settings and late STYLE blocks; the author's intent is lost.", '`align:middle` (not a WebVTT value)'),
"PT0707": ("Cues out of order flash past or never show.", 'a cue at 0.5 s after one at 2 s'),
"PT0708": ("The transcript shows one sentence at a time; overlaps hide text.", 'cues 0–2 s and 1–3 s'),
"PT0709": ("Text after the audio ends is never shown in sync.", 'a cue at 1:59 in a 96 s story'),
"PT0710": ("Long silences between cues usually mean mistimed cues.", '8 s between two cues'),
"PT0711": ("Very short cues flash; very long ones are walls of text.", 'a 20 s cue'),
"PT0712": ("Visitors read while walking; more than about 20 characters a second cannot be followed.", '53 characters in 1 s'),
"PT0713": ("People who cannot listen read the story; most of it must be transcribed.", 'one 2 s cue for a 96 s story'),
"PT0714": ("Chapters drive the story's seek bar; they must be ordered and inside the audio.", 'a chapter starting inside the previous one'),
"PT0715": ("A story in another language than the pack surprises visitors who bought it.", '`"language": "fr-FR"` in an en-GB pack'),
"PT0716": ("The app shows each cue while the voice speaks it; a transcript that runs ahead or behind (the commonest captioning mistake, after the audio was re-edited) shows every sentence at the wrong moment. Lint decodes the story, finds where the voice is, and matches cue starts to the moments speech begins after a pause; the median offset over the cues that match must be within `lint.maxVoiceOffset` (0.3 s). Where the voice is clear (20 dB or more above its background), each cue is also judged on its own: a cue that starts after its words have begun, or ends before they end, by more than the limit (plus the detector's slack: 0.1 s at a start, 0.25 s at an end) is named at its own timing line with the times measured. Speech reported as having no cue (PT0720) is not also blamed on the next cue, and a cue that a whole-transcript shift held at 0 or at the audio's end is judged again after the fix.", 'every cue one second late → `story.vtt:4:1: warning: the transcript lags the voice by 1.00 s … [PT0716]`, hint: shift every cue 1.00 s earlier; one cue a second late → `story.vtt:20:1: warning: cue 5 starts 1.0 s after its words begin at 13.42 s [PT0716]`, hint: start it when the voice does, about 00:00:13.420'),
"PT0717": ("Cues timed for another edit of the audio (or another reading speed) start in step and drift apart: no single shift mends them. A stretch is reported only when it lines up more cue starts than chance would (many stretches are tried) and keeps the cue gaps in the voice's pauses; a transcript needs five cues over 10 s to tell a stretch from a shift.", 'every timestamp multiplied by 1.05'),
"PT0718": ('A cue that appears in a pause, well before its words (more than 0.35 s), shows a sentence the visitor has not heard yet.', 'a cue starting half a second into the pause before its sentence'),
"PT0719": ("A cue shown while nothing is said is text without a voice: usually a timing slip, or a cue for a part of the audio that was cut.", 'a cue over the half-second of silence before the story starts'),
"PT0720": ("Speech with no cue showing leaves people who cannot listen without that part of the story (a sentence left out of the transcript). The limit is `lint.maxUncaptionedSpeech` (1.5 s).", 'the cue of the second sentence removed'),
"PT0721": ("Lint can line a transcript up only with a voice that pauses, and says why when it cannot rather than calling the transcript in sync; the hint says what to do about that reason. The reasons: the audio is silent; no voice (only noise, hum or a steady tone: check story.audio names the spoken story); held pitches that change (a melody, chords, bells: music, not speech); sound that never pauses (a music bed as loud as the voice); a voice less than 12 dB above its background (clean the recording); fewer than three cues; or most cue starts mid-phrase. Where the voice stands 12–20 dB above its background its pauses are found but not its word edges: the whole transcript is checked and the note lists the cues that could not be checked one by one. The same note, once per stop, when FFmpeg's libraries are not installed (lint opens them only when it must decode a story): it names the package to install, and every other check still runs.", 'a story that is a melody → `story.vtt:1:1: note: the transcript was not checked against the voice: no voice was found in the audio: its sound holds steady pitches (music or bells), not speech [PT0721]`'),
"PT0722": ("The MP4 boxes can be well-formed while the sound inside is damaged: the app would play nothing or noise. Lint decodes the whole story (FFmpeg) and reports where decoding fails.", 'the media data of story.m4a overwritten'),
"PT0723": ("A transcript timed on this recording changes cues where the voice pauses and starts again; one timed on another recording (or a story.audio that names another stop's story) does not, under any shift. Lint measures the share of cue changes that fall at a pause under the best shift: on the project's real-speech corpus 83–100% for captions timed on the recording (shifted or not), 14–50% for captions of another reading of similar length. Below 60% it is another recording — unless the changes split into two runs each at the pauses under its own shift (part of the audio re-cut after timing: PT0716).", "stop 01 given stop 03's story, cut to the same length"),
"PT0801": ("A stop off the route is never shown, yet ships.", 'a copied folder `stops/08-extra`'),
"PT0802": ("The app would lead visitors to a stop that does not exist.", 'route names `08-nowhere`'),
"PT0803": ("Scene ids name scenes in manifests, deltas and access decisions; the folder name is the id.", '`"id": "04-tron-church"` in stops/04-tron-kirk'),
"PT0804": ("The free stop is what visitors try before buying; it must exist.", 'freeStops names `00-gift-shop`'),
"PT0805": ("Without a free stop visitors must buy before they can try.", '`"freeStops": []`'),
"PT0806": ("The store tells purchases apart by product id.", 'the Trip Pass reusing the City Pack id'),
"PT0807": ("The app and the store listing sell a 72-hour pass.", '`"hours": 48`'),
"PT0808": ("Downloads over the budget are slow and costly on mobile data.", '`"sizeBudget": 1000`'),
"PT0809": ("A key nobody can hold (or not a key at all) makes every sign-off by that reviewer worthless.", 'a public key of 64 zeros'),
"PT0810": ("Sign-offs are matched to reviewers by id and key.", 'two reviewers with id example-historian'),
"PT0811": ("Scenes ship only with a historian's sign-off.", 'the only reviewer has role editor'),
"PT0812": ("The keys in the repository's `keys-example/` are public, private halves included: a sign-off by one proves nothing about who reviewed the scene. A copy of the example pack keeps the example historian's key until the author replaces it. A warning rather than an error, and one that does not stop `sign` or `build` (as `sign` itself only warns when it signs with an example key), so the example pack still publishes in the demo and the tests.", 'the example pack, whose reviewer is `keys-example/historian.pub`'),
}
# What `lint --fix` does for a code, when it can do it by itself.
FIX = {
"PT0100": "deletes a trailing or doubled comma, adds a comma left out at the end of the line before",
"PT0104": "writes a quoted number or true/false without quotes, puts a single value where a list belongs in brackets",
"PT0105": "writes the nearest allowed value (a misspelt enumeration, a licence written as people write it, an extension in capitals, an angle past 360° as the same direction)",
"PT0203": "sets the bearing to the target's, to one decimal",
"PT0401": "writes the nearest known licence identifier",
"PT0601": "repeats the first point at the end of the ring",
"PT0716": "moves every cue by the measured offset, when the cues agree on it (a start is held at 0 and an end at the audio's length)",
}
assert set(FIX) <= set(codes), set(FIX) - set(codes)
sections = [("01","Structure","Every JSON document is well-formed and meets its schema in `schemas/` (the same files editors use for completion); files on disk match what the documents name."),
            ("02","Geometry","Where visitors stand and look."),("03","Eras and plates",""),("04","Provenance and rights",""),
            ("05","Sign-off","A sign-off covers the scene's tree digest without signoff.json (docs/formats.md)."),("06","Conjecture masks",""),
            ("07","Story","Audio is probed from its MP4 boxes and decoded (FFmpeg) to hear where the voice is; transcripts are parsed with the W3C WebVTT algorithm and lined up with the voice (PT0716–PT0723). How often the voice rules are right on real recordings is measured below, in [How well lint hears](#how-well-lint-hears)."),("08","Pack","")]
# Measured by Tests/python/test_voice_corpus.py (it prints this table); update when the detector changes.
HEARING = ["## How well lint hears", "",
"The voice rules are tested on real speech: five public-domain LibriVox readings (English, German, Spanish; 27–38 s,",
"44.1 kHz, mono and stereo) in `Tests/data/voice`, with transcripts timed on them, and 283 cases made from them by",
"the test: each transcript as timed, shifted ±0.5 and ±1 s, stretched ±5 %, each cue moved 1 s late, a cue started",
"in the pause before its words, a cue over a pause, a sentence left out, back-to-back cues, three-cue stories,",
"captions of another reading of similar length, white and pink noise 10 dB below the speech, a music bed 15 dB below",
"it, three stories each joined from three readings with different backgrounds (clean, hiss, air handling or mains",
"hum 15–20 dB below the speech), a melody, chords, bells, and the example pack's stories. A neural voice detector",
"(silero-vad) is the reference for where the voice is. On every case the issue calls for, each rule fired when it",
"should and not when it should not:", "",
"| rule | fired when it should | fired when it should not |", "| --- | --- | --- |",
"| PT0716 (whole transcript) | 47 of 47 shifted transcripts | 0 of 190 |",
"| PT0716, PT0718, PT0719 at the slipped cue | 109 of 109 single-cue slips, at the cue's line | 0 findings elsewhere |",
"| PT0717 | 16 of 16 stretches | 0 of 221 |",
"| PT0720 | 5 of 5 sentences left out | 0 of 52 |",
"| PT0721 | 4 of 4 stories with no voice | 0 of 233 |",
"| PT0723 | 16 of 16 other readings' captions | 0 of 221 |", "",
"Where lint hears the voice agrees with silero-vad on 95.7–99.0 % of 20 ms frames of each reading and 93.0–95.3 % of",
"each joined story; with noise 10 dB below the speech, 85–90 %.", "",
"Beyond what is promised, measured the same way: with noise 5 dB below the speech, the two stories tried were judged",
"as if clean; with noise as loud as the speech, the whole transcript was still checked and PT0721 listed the cues that",
"could not be checked one by one. Of three transcripts whose second half a re-edit moved 1 s, two were reported as",
"that (PT0716 naming the moved run) and one named one cue of the run on its own besides; captions of another reading",
"in noise 10 dB below the speech were once taken for a 3 s offset (PT0716) instead of PT0723. Whispering is mostly",
"unvoiced and may be missed; singing counts as music; pauses shorter than about 0.2 s are not pauses; a music bed or",
"background as loud as the voice hides its pauses (PT0721, never \"in sync\"). An outside review found two more: a",
"melody whose notes change, mixed 15–20 dB under the voice, fills its pauses, so correctly timed captions were taken",
"for another recording (PT0723) or a cue for late (PT0716) — check such a story with its music bed left out; and a",
"sentence shorter than 1.5 s left out right before a cue, with less than 0.3 s of pause between, is reported as that",
"cue starting late (its hint then points at the left-out sentence's start).", ""]
missing = set(codes) - set(W)
assert not missing, missing
out = ["# Lint rules", "",
"`packtool lint` checks everything below and prints each finding the way compilers do, so editors can jump to it:",
"`path:line:col: error: message [PT0203]`, with a hint on the next line saying what to change. Look a code up",
"below (each has its own heading, e.g. [PT0203](#pt0203)). Severities: **error** blocks publishing, **warning** is",
"shown (and fails `--strict`), **note** says what lint could not check yet (it comes with the errors that caused it).",
"Codes never change meaning, so scripts may rely on them; `--format json` adds where in the document each finding is",
"(as a JSON pointer), `--format sarif` is for code-scanning services.", "",
"## Configurable limits", "",
"Limits that are matters of taste live in pack.json's optional `lint` object (schema: `schemas/pack.schema.json`):", "",
"| field | default | used by |", "| --- | --- | --- |",
"| `maxReadingSpeed` | 20 characters/second | PT0712 |", "| `maxGap` | 2.5 s | PT0710 |",
"| `maxVoiceOffset` | 0.3 s | PT0716 |", "| `maxUncaptionedSpeech` | 1.5 s | PT0720 |",
"| `minCueDuration`, `maxCueDuration` | 0.8 s, 12 s | PT0711 |", "| `minCoverage` | 0.75 of the audio | PT0713 |",
"| `minPlateLongSide`, `minPlateShortSide` | 1920, 1080 px | PT0307 |", "| `maxLegDistance` | 1000 m | PT0206 |",
"| `minFov`, `maxFov` | 20°, 120° | PT0204 |", "| `minTargetDistance`, `maxTargetDistance` | 3 m, 2000 m | PT0205 |",
"| `maxConjectureCoverage` | 0.6 of the frame | PT0609 |", "",
"The 1.5° bearing tolerance of PT0203 is fixed by the design: the overlay must line up.", "",
"Besides findings, lint reports the route length and each era's conjecture coverage (text summary, and `reports` in",
"`--format json`).", "",
"## Fixing by itself: lint --fix", "",
"Where a hint states the exact edit, `packtool lint --fix PATH` makes it: the bytes of that value (or comma) change",
"and every other byte of the file stays as you wrote it. The codes it fixes say so below (\"Fixed by `lint --fix`\").",
"It never writes `signoff.json` (a sign-off is the historian's), leaves a file alone if you saved it after lint read it,",
"and names each stop whose sign-off the fixes leave out of date, to be reviewed and signed again. It then lints again",
"and prints what is left. Without `--fix`, `--format json` gives each fixable finding a `fix` object (its edits as byte",
"offset, length and replacement) and `--format sarif` the same as SARIF `fixes`.", ""]
for prefix, title, intro in sections:
    out += [f"## {title}", ""]
    if intro: out += [intro, ""]
    for code in sorted(c for c in codes if c[2:4] == prefix):
        sev, summary = codes[code]
        why, ex = W[code]
        # The heading is the code alone, so its anchor is the code (#pt0203) wherever the page is rendered.
        out += [f"### {code}", f"**{sev}** — {summary}.", "", f"Why it matters: {why}", "", f"Example: {ex}.", ""]
        if code in FIX: out += [f"Fixed by `lint --fix`: it {FIX[code]}.", ""]
out += HEARING
text = "\n".join(out)
if "--check" in sys.argv[1:]:
    if open('docs/lint-rules.md', encoding='utf-8').read() != text:
        sys.exit("docs/lint-rules.md is stale: run scripts/lint-rules-doc.py")
    print(f"docs/lint-rules.md is current ({len(codes)} codes)")
else:
    open('docs/lint-rules.md', 'w', encoding='utf-8').write(text)
    print(len(codes))
