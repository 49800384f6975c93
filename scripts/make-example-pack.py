#!/usr/bin/env python3
"""Generates scenes/royal-mile/, the example pack, from royal_mile_content.py.

Plates are clearly labelled placeholder illustrations (ImageMagick draws a master frame, heif-enc writes HEIC);
stories are real speech (espeak-ng per sentence, joined, encoded AAC-LC in .m4a by ffmpeg) and story.vtt cues are
timed from each sentence's actual audio length. Sign-offs are made by `packtool review sign` with the example
historian key. Re-runnable: the output folder is rebuilt in a temporary folder and swapped in at the end.

usage: scripts/make-example-pack.py [--packtool .build/debug/packtool] [--out scenes/royal-mile]
Needs: imagemagick, libheif-examples, espeak-ng, ffmpeg (apt), and a built packtool.
"""
import argparse
import base64
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import royal_mile_content as content  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
VOICE, SPEED = "en-gb-scotland", 150
LEAD_IN, PAUSE = 0.5, 0.45          # seconds of silence before the first sentence and between sentences
MASTER_W, MASTER_H = 3414, 1920     # 16:9 master; the 9:16 crop of it is exactly 1080x1920
PORTRAIT = {"x": (1 - 81 / 256) / 2, "y": 0.0, "width": 81 / 256, "height": 1.0}
SOURCE_DATE_EPOCH = "1764460800"    # 2025-11-30T00:00:00Z: fixed so sign-offs are reproducible
ERA_TINTS = {1647: ("#d9c9a3", "#8c7a55"), 1765: ("#cdd6c4", "#6f7d63"), 1824: ("#c9d3e0", "#5f6f86"),
             1880: ("#ddd0c8", "#7d6a60")}


def run(*cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def destination(lat, lon, bearing, distance):
    """The point `distance` metres from (lat, lon) along the initial great-circle `bearing` (spherical Earth)."""
    r = 6371008.8
    d, th = distance / r, math.radians(bearing)
    p1, l1 = math.radians(lat), math.radians(lon)
    p2 = math.asin(math.sin(p1) * math.cos(d) + math.cos(p1) * math.sin(d) * math.cos(th))
    l2 = l1 + math.atan2(math.sin(th) * math.sin(d) * math.cos(p1), math.cos(d) - math.sin(p1) * math.sin(p2))
    return round(math.degrees(p2), 6), round(math.degrees(l2), 6)


def raw_public_key_hex(pub_pem_path):
    """The raw 32-byte Ed25519 key at the end of an SPKI PEM (12-byte DER prefix + key)."""
    body = "".join(l for l in open(pub_pem_path).read().splitlines() if not l.startswith("-----"))
    der = base64.b64decode(body)
    assert len(der) == 44 and der[:12] == bytes.fromhex("302a300506032b6570032100"), "not an Ed25519 SPKI key"
    return der[12:].hex()


def closed(points):
    pts = [[round(x, 4), round(y, 4)] for x, y in points]
    return pts + [pts[0]]


def draw_plate(stop, era, path_16x9, path_9x16, work):
    """Draws a labelled placeholder frame and writes both crops as HEIC."""
    sky, ground = ERA_TINTS[era["year"]]
    master = os.path.join(work, "master.png")
    horizon = int(MASTER_H * (0.58 + stop["pitch"] / 100))
    cx = int(PORTRAIT["x"] * MASTER_W + PORTRAIT["width"] * MASTER_W / 2)
    draw = ["-fill", ground, "-draw", f"rectangle 0,{horizon} {MASTER_W},{MASTER_H}"]
    # Simple street blocks, fixed per stop so plates are stable between runs.
    seed = sum(map(ord, stop["id"])) + era["year"]
    x = 0
    while x < MASTER_W:
        w = 220 + (seed * 37 + x) % 260
        h = 380 + (seed * 53 + x * 7) % 520
        shade = 70 + (seed + x // 97) % 60
        draw += ["-fill", f"rgb({shade},{shade},{shade + 12})", "-draw", f"rectangle {x},{horizon - h} {x + w - 14},{horizon}"]
        x += w
    for region in era["regions"]:
        pts = " ".join(f"{int(px * MASTER_W)},{int(py * MASTER_H)}" for px, py in region["polygon"])
        draw += ["-fill", "rgba(214,72,48,0.35)", "-stroke", "rgb(214,72,48)", "-strokewidth", "8", "-draw", f"polygon {pts}",
                 "-stroke", "none"]
        lx, ly = int(region["polygon"][0][0] * MASTER_W) + 16, int(region["polygon"][0][1] * MASTER_H) + 56
        draw += ["-fill", "white", "-font", FONT_BOLD, "-pointsize", "40", "-annotate", f"+{lx}+{ly}",
                 f"{region['level']}: {region['id']}"]
    # Target marker and the labels, all inside the central 9:16 column so both crops carry them.
    draw += ["-stroke", "#ffffff", "-strokewidth", "6", "-draw", f"line {cx},{horizon - 160} {cx},{horizon + 40}",
             "-draw", f"line {cx - 60},{horizon - 60} {cx + 60},{horizon - 60}", "-stroke", "none"]
    box_top = MASTER_H - 720  # low in the frame, so conjecture regions (mostly roofs and spires) stay visible
    draw += ["-fill", "rgba(0,0,0,0.62)", "-draw",
             f"rectangle {cx - 520},{box_top} {cx + 520},{box_top + 660}"]
    lines = [
        (FONT_BOLD, 58, "PLACEHOLDER ILLUSTRATION"),
        (FONT, 40, "not an archival image"),
        (FONT, 20, ""),
        (FONT_BOLD, 50, stop["title"]),
        (FONT_BOLD, 46, era["label"]),
        (FONT, 36, f"view {stop['bearing']}\u00b0 true, fov {stop['fov']}\u00b0"),
        (FONT, 36, f"target: {stop['target'][:36]}, {stop['distance']} m"[:48]),
        (FONT, 32, f"sources: {', '.join(era['sources'])}"[:52]),
        (FONT, 32, "packtool example pack: royal-mile"),
    ]
    y = box_top + 80
    for font, size, text in lines:
        draw += ["-font", font, "-pointsize", str(size), "-fill", "white", "-gravity", "north", "-annotate",
                 f"+{cx - MASTER_W // 2}+{y - size}", text, "-gravity", "northwest"]
        y += int(size * 1.55)
    run("convert", "-size", f"{MASTER_W}x{MASTER_H}", f"gradient:{sky}-white", *draw, master)
    landscape = os.path.join(work, "16x9.png")
    portrait = os.path.join(work, "9x16.png")
    run("convert", master, "-alpha", "off", "-resize", "1920x1080!", landscape)
    crop_x = round(PORTRAIT["x"] * MASTER_W)
    run("convert", master, "-alpha", "off", "-crop", f"1080x1920+{crop_x}+0", "+repage", portrait)
    for png, heic in ((landscape, path_16x9), (portrait, path_9x16)):
        run("heif-enc", "-q", "45", png, "-o", heic, stdout=subprocess.DEVNULL)


def vtt_time(seconds):
    ms = int(round(seconds * 1000))
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def make_story(stop, folder, work):
    """Speaks each sentence, joins them with pauses, encodes AAC, and times the cues from the real audio."""
    frames, rate, cues, t = [], None, [], LEAD_IN
    for i, sentence in enumerate(stop["story"]):
        wav = os.path.join(work, f"s{i:02d}.wav")
        run("espeak-ng", "-v", VOICE, "-s", str(SPEED), "-w", wav, sentence)
        with wave.open(wav) as w:
            rate = rate or w.getframerate()
            assert w.getframerate() == rate and w.getnchannels() == 1 and w.getsampwidth() == 2
            data = w.readframes(w.getnframes())
            length = w.getnframes() / rate
        frames.append(data)
        cues.append((t, t + length, sentence))
        t += length + (PAUSE if i < len(stop["story"]) - 1 else 0)
    silence = lambda s: b"\x00\x00" * int(round(s * rate))  # noqa: E731
    joined = os.path.join(work, "story.wav")
    with wave.open(joined, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(silence(LEAD_IN) + silence(PAUSE).join(frames))
    run("ffmpeg", "-loglevel", "error", "-y", "-i", joined, "-c:a", "aac", "-b:a", "48k", "-ar", "22050", "-ac", "1",
        "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact", os.path.join(folder, "story.m4a"))
    with open(os.path.join(folder, "story.vtt"), "w") as f:
        f.write(f"WEBVTT - {stop['title']}: story transcript, cues timed from the spoken audio\n\n")
        for n, (start, end, text) in enumerate(cues, 1):
            f.write(f"s{n:02d}\n{vtt_time(start)} --> {vtt_time(end)}\n{text}\n\n")
    return t


def scene_document(stop):
    lat, lon = stop["anchor"]
    tlat, tlon = destination(lat, lon, stop["bearing"], stop["distance"])
    era_docs = []
    for era in stop["eras"]:
        doc = {"year": era["year"], "label": era["label"]}
        if era.get("default"):
            doc["default"] = True
        doc["layers"] = {"16x9": f"layers/{era['year']}-16x9.heic", "9x16": f"layers/{era['year']}-9x16.heic"}
        doc["sources"] = era["sources"]
        era_docs.append(doc)
    used = []
    for era in stop["eras"]:
        for sid in era["sources"] + [s for r in era["regions"] for s in r["sources"]]:
            if sid not in used:
                used.append(sid)
    return {
        "id": stop["id"],
        "title": stop["title"],
        "anchor": {"lat": lat, "lon": lon, "accuracy": 15},
        "view": {"bearing": stop["bearing"], "fov": stop["fov"], "pitch": stop["pitch"],
                 "target": {"lat": tlat, "lon": tlon, "name": stop["target"]}},
        "crops": {"9x16": {k: round(v, 8) for k, v in PORTRAIT.items()}},
        "eras": era_docs,
        "story": {"audio": "story.m4a", "transcript": "story.vtt", "language": "en-GB"},
        "provenance": {
            "sources": [dict(id=sid, **content.SOURCES[sid]) for sid in used],
            "credits": "Placeholder plates drawn by packtool's example generator; narration synthesised with espeak-ng. "
                       "Text written for packtool from the cited sources.",
        },
    }


def uncertainty_document(stop):
    return {"eras": [{"year": era["year"], "regions": [
        {"id": r["id"], "level": r["level"], "polygon": closed(r["polygon"]), "note": r["note"], "sources": r["sources"]}
        for r in era["regions"]]} for era in stop["eras"]]}


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packtool", default=os.path.join(REPO, ".build/debug/packtool"))
    ap.add_argument("--out", default=os.path.join(REPO, "scenes/royal-mile"))
    args = ap.parse_args()
    for tool in ("convert", "heif-enc", "espeak-ng", "ffmpeg"):
        if not shutil.which(tool):
            sys.exit(f"make-example-pack: {tool} not found; apt-get install imagemagick libheif-examples espeak-ng ffmpeg")
    if not os.access(args.packtool, os.X_OK):
        sys.exit(f"make-example-pack: {args.packtool} not found; run `swift build` first")
    keys = os.path.join(REPO, "keys-example")
    os.chmod(os.path.join(keys, "historian.pem"), 0o600)

    out = os.path.abspath(args.out)
    staging = tempfile.mkdtemp(prefix=".royal-mile-", dir=os.path.dirname(out))
    try:
        pack = dict(content.PACK)
        pack["route"] = [s["id"] for s in content.STOPS]
        pack["reviewers"] = [dict(content.REVIEWER, publicKey=raw_public_key_hex(os.path.join(keys, "historian.pub")))]
        order = ["id", "title", "city", "language", "route", "geofenceRadius", "area", "access", "reviewers", "sizeBudget"]
        write_json(os.path.join(staging, "pack.json"), {k: pack[k] for k in order})
        for stop in content.STOPS:
            folder = os.path.join(staging, "stops", stop["id"])
            os.makedirs(os.path.join(folder, "layers"))
            with tempfile.TemporaryDirectory() as work:
                for era in stop["eras"]:
                    draw_plate(stop, era, os.path.join(folder, "layers", f"{era['year']}-16x9.heic"),
                               os.path.join(folder, "layers", f"{era['year']}-9x16.heic"), work)
                length = make_story(stop, folder, work)
            write_json(os.path.join(folder, "scene.json"), scene_document(stop))
            write_json(os.path.join(folder, "uncertainty.json"), uncertainty_document(stop))
            env = dict(os.environ, SOURCE_DATE_EPOCH=SOURCE_DATE_EPOCH)
            run(args.packtool, "review", "sign", folder, "--reviewer-key", os.path.join(keys, "historian.pem"),
                "--reviewer", content.REVIEWER["id"], "--note", "Example sign-off of placeholder content.", env=env,
                stderr=subprocess.DEVNULL)
            print(f"{stop['id']}: {len(stop['eras'])} eras, story {length:.1f} s")
        if os.path.exists(out):
            shutil.rmtree(out)
        os.rename(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


if __name__ == "__main__":
    main()
