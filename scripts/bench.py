#!/usr/bin/env python3
"""make bench: measures packtool against the standard tools on the same data, in the same run.

Lint: the example pack and a generated 200-scene pack (wall time, peak RSS, scenes per second, and the share of
media bytes the probes read), beside sha256sum over the same files (lint hashes every file to check sign-offs) and
ffprobe / heif-info over the same media (what an author would otherwise run).
Publish: build+sign of a generated 12-scene ~240 MB pack (and a ~2.4 GB one for memory) beside GNU tar alone and
tar + sha256sum + openssl pkeyutl -sign, and the time the disk takes to flush that many bytes (the floor for anything
durable) and of scripts/format-floor.c doing only the hashing, copying and flushing the format requires (the floor for
any implementation on this machine); signing time alone; peak RSS. Timings are medians of repeated runs.
Client: install of that pack's archive beside bsdtar -xf (and the disk's time to flush the same bytes, and format-floor's
copy, hash and flush of every file);
verify-installed on one and two threads beside openssl dgst -sha256 and sha256sum -c over the same files; peak RSS
at 240 MB and 2.4 GB; one access decision.
Stream: the same archive installed over HTTP from a real nginx on loopback (packverify_update into an empty folder:
downloaded, verified and written in one pass) beside curl -o of the archive alone, curl -o then bsdtar -xf (and then
sync, the durable peer), and the same work done by standard tools at once (curl -o, format-floor install and openssl
dgst of the archive, as three processes: what a one-pass install must do, without its pipeline); then with nginx throttled to
Wi-Fi speed (limit_rate 25m) beside curl -o, and the moment Stop I (the free stop) is reported verified beside the
time its bytes take to arrive (curl of that byte range); peak RSS at 240 MB and 2.4 GB.
Deltas: one 4.5 MB plate replaced and a transcript edited in the 240 MB pack: delta size against the changed bytes,
delta build time, apply time (packtool update) against tar -xf of only the changed files plus sha256sum of them,
beside xdelta3 and zstd --patch-from on the same scene.
Preview: packtool preview of the example pack, first run (no earlier site, every plate decoded) and a rerun with
nothing changed, beside the standard tools doing only the plates' part of the first run on both cores (heif-convert
to Y4M, then ffmpeg's libwebp encoder at the same quality and method).
Start-up: packtool --version beside openssl version and sqlite3 --version, and the libraries it maps.
Set BENCH=start, BENCH=lint, BENCH=publish, BENCH=client, BENCH=stream (BENCH=stream-245, publish-245, client-245: their 245 MB rows alone), BENCH=delta, BENCH=upload, BENCH=renew or BENCH=preview to run one part.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKTOOL = os.path.join(REPO, ".build", "release", "packtool")
# The build time of what the bench signs: the start of today (UTC), so reruns on one day sign the same bytes and
# the manifests, valid 30 days from it, are never expired (a fixed date once stopped every publish row a year on).
BENCH_EPOCH = str(int(time.time()) // 86_400 * 86_400)
LIBRARY_DIR = os.path.join(REPO, ".build", "release")
EXAMPLE = os.path.join(REPO, "scenes", "royal-mile")
WORK = os.path.join(REPO, ".build", "bench")
KEY = os.path.join(REPO, "keys-example", "historian.pem")
PACKVERIFY_RUN = os.path.join(WORK, "packverify-run")
FORMAT_FLOOR = os.path.join(WORK, "format-floor")


def timed(cmd, repeat=5, **kw):
    """Median wall seconds and max peak RSS (KiB, from GNU time) over `repeat` runs; output discarded."""
    walls, rss = [], []
    for _ in range(repeat):
        settle()
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)
        walls.append(time.perf_counter() - t0)
        rss.append(int(p.stderr.strip().splitlines()[-1]))
    return statistics.median(walls), max(rss)


def files_under(root, suffixes=None, follow=False):
    """Files under `root`, sorted; with `follow`, through symbolic links to folders (an install's scene links)."""
    out = []
    for d, _, names in os.walk(root, followlinks=follow):
        for n in names:
            if suffixes is None or n.endswith(suffixes):
                out.append(os.path.join(d, n))
    return sorted(out)


def generated_pack(name, scenes, plate_bytes=None):
    """A pack of `scenes` stops copied round-robin from the example, each with its own id, a shifted anchor and a
    fresh sign-off, so it lints clean. With `plate_bytes`, every plate carries a top-level `free` box of random
    filler (still valid HEIC: readers skip the box) so it is that long."""
    target = os.path.join(WORK, name)
    marker = target + ".complete"
    if os.path.exists(marker):
        return target
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(os.path.join(target, "stops"))
    pack = json.load(open(os.path.join(EXAMPLE, "pack.json")))
    sources = sorted(os.listdir(os.path.join(EXAMPLE, "stops")))
    width = 2 if scenes < 100 else 3
    route = []
    for i in range(scenes):
        src = sources[i % len(sources)]
        stop = f"{i + 1:0{width}d}-{src.split('-', 1)[1]}"
        dst = os.path.join(target, "stops", stop)
        shutil.copytree(os.path.join(EXAMPLE, "stops", src), dst)
        os.remove(os.path.join(dst, "signoff.json"))
        scene = json.load(open(os.path.join(dst, "scene.json")))
        shift = 0.001 * (i // len(sources))
        scene["id"] = stop
        scene["anchor"]["lat"] = round(scene["anchor"]["lat"] + shift, 6)
        scene["view"]["target"]["lat"] = round(scene["view"]["target"]["lat"] + shift, 6)
        json.dump(scene, open(os.path.join(dst, "scene.json"), "w"), indent=2)
        for plate in os.listdir(os.path.join(dst, "layers")) if plate_bytes else []:
            path = os.path.join(dst, "layers", plate)
            extra = plate_bytes - os.path.getsize(path) - 8
            if extra > 0:
                # A top-level `free` box: size (4 bytes, big-endian, header included), type, filler.
                with open(path, "ab") as f:
                    f.write((extra + 8).to_bytes(4, "big") + b"free")
                    chunk = os.urandom(1 << 20)
                    left = extra
                    while left > 0:
                        f.write(chunk[:min(left, len(chunk))])
                        left -= len(chunk)
        route.append(stop)
    pack["route"] = route
    pack["access"]["freeStops"] = [route[0]]
    pack["area"]["north"] = 56.2
    pack["sizeBudget"] = 20_000_000_000
    pack["lint"] = {"maxLegDistance": 5000}
    json.dump(pack, open(os.path.join(target, "pack.json"), "w"), indent=2)
    env = dict(os.environ, SOURCE_DATE_EPOCH=BENCH_EPOCH)
    for stop in route:
        subprocess.run([PACKTOOL, "review", "sign", os.path.join(target, "stops", stop), "--reviewer-key", KEY, "--reviewer", "example-historian"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    open(marker, "w").close()
    return target


def lint_report(pack):
    p = subprocess.run([PACKTOOL, "lint", "--format", "json", pack], capture_output=True, text=True)
    out = json.loads(p.stdout)
    return p.returncode, out["summary"], out["reports"][0]["report"]


def row(name, seconds, rss=None, note=""):
    rss_text = f"{rss / 1024:7.1f} MiB" if rss else " " * 11
    print(f"  {name:<46} {seconds * 1000:9.1f} ms  {rss_text}  {note}")


def bench_start(repeat):
    """What every command pays before it does anything: packtool --version, beside other tools' start-up on the same
    machine (openssl version, sqlite3 --version), and the shared libraries the loader maps for it (FFmpeg is opened
    only by a run that decodes a story, DESIGN.md §9.8)."""
    print("\nstart-up: what every command pays")
    wall, rss = timed([PACKTOOL, "--version"], repeat=repeat)
    loaded = subprocess.run([PACKTOOL, "--version"], env=dict(os.environ, LD_DEBUG="libs"), capture_output=True, text=True).stderr
    libraries = sorted({line.split("calling init: ")[1].strip() for line in loaded.splitlines() if "calling init: " in line})
    ffmpeg = [l for l in libraries if "libav" in l or "libswresample" in l]
    row("packtool --version", wall, rss, f"{len(libraries)} shared libraries mapped, {len(ffmpeg)} of them FFmpeg's (target <= 15 ms, <= 15 MiB)")
    for tool in (["openssl", "version"], ["sqlite3", "--version"]):
        if shutil.which(tool[0]):
            other_wall, other_rss = timed(tool, repeat=repeat)
            row(" ".join(tool), other_wall, other_rss, f"packtool --version / {tool[0]} = {wall / other_wall:.2f}x")
    return wall, rss


def bench_lint(label, pack, repeat):
    files = files_under(pack)
    stories = [f for f in files if f.endswith(".m4a")]
    plates = [f for f in files if f.endswith(".heic")]
    nbytes = sum(os.path.getsize(f) for f in files)
    status, summary, report = lint_report(pack)
    print(f"\n{label}: {report['stops']} scenes, {len(files)} files, {nbytes / 1e6:.1f} MB; lint exit {status}, {summary}")
    # Lint hears every story (issue 33): decoded and detected once per distinct audio, then read from the cache.
    cache = os.path.join(WORK, "voice-cache")
    shutil.rmtree(cache, ignore_errors=True)
    warm = dict(os.environ, PACKTOOL_CACHE_DIR=cache)
    subprocess.run([PACKTOOL, "lint", pack], env=warm, stdout=subprocess.DEVNULL)
    wall, rss = timed([PACKTOOL, "lint", pack], repeat=repeat, env=warm)
    row("packtool lint (nothing changed: voices cached)", wall, rss, f"{report['stops'] / wall:,.0f} scenes/s (target <= 50 ms for the example)")
    firsts = []
    for i in range(repeat):
        settle()
        fresh = dict(os.environ, PACKTOOL_CACHE_DIR=os.path.join(WORK, f"voice-cache-cold-{i}"))
        shutil.rmtree(fresh["PACKTOOL_CACHE_DIR"], ignore_errors=True)
        t0 = time.perf_counter()
        subprocess.run([PACKTOOL, "lint", pack], env=fresh, stdout=subprocess.DEVNULL)
        firsts.append(time.perf_counter() - t0)
        shutil.rmtree(fresh["PACKTOOL_CACHE_DIR"], ignore_errors=True)
    first = statistics.median(firsts)
    row("packtool lint, first run (every story heard)", first, None, "(target < 2 s for the example)")
    if stories and shutil.which("ffmpeg"):
        decode = "for f in \"$@\"; do ffmpeg -loglevel error -i \"$f\" -ac 1 -ar 16000 -f s16le - > /dev/null; done"
        ff_wall, ff_rss = timed(["sh", "-c", decode, "sh"] + stories[:50], repeat=min(repeat, 3))
        ff_all = ff_wall * len(stories) / len(stories[:50])
        row("ffmpeg decoding the stories to 16 kHz (est.)", ff_all, ff_rss,
            f"first-run lint/ffmpeg decode = {first / ff_all:.2f}x  ({len(stories[:50])} of {len(stories)} stories timed)")
    sha_wall, sha_rss = timed(["sha256sum"] + files, repeat=repeat)
    row("sha256sum over the same files", sha_wall, sha_rss, f"lint/sha256sum = {wall / sha_wall:.2f}x")
    if shutil.which("ffprobe") and shutil.which("heif-info"):
        sample = stories[:20] + plates[:40]
        t0 = time.perf_counter()
        for f in sample:
            tool = ["ffprobe", "-v", "error", "-show_entries", "format=duration"] if f.endswith(".m4a") else ["heif-info"]
            subprocess.run(tool + [f], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        per_file = (time.perf_counter() - t0) / len(sample)
        probe_all = per_file * (len(stories) + len(plates))
        row("ffprobe + heif-info over the same media (est.)", probe_all, None,
            f"lint/probes = {wall / probe_all:.2f}x  ({len(sample)} of {len(stories) + len(plates)} files timed)")
    read, total = report["mediaBytesRead"], report["mediaBytes"]
    print(f"  media bytes read by the probes: {read:,} of {total:,} = {100 * read / total:.3f}% (target < 2%)")
    return wall, rss


def fresh_state(label):
    """A state folder with root version 1 made from the example keys (copied with mode 0600)."""
    keys = os.path.join(WORK, "keys")
    if not os.path.exists(keys):
        shutil.copytree(os.path.join(REPO, "keys-example"), keys)
        for n in os.listdir(keys):
            os.chmod(os.path.join(keys, n), 0o600 if n.endswith(".pem") else 0o644)
    state, out = os.path.join(WORK, f"{label}-state"), os.path.join(WORK, f"{label}-out")
    shutil.rmtree(state, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([PACKTOOL, "root", "init", "--state", state, "--root-key", f"{keys}/root.pem", "--manifest-pub", f"{keys}/manifest.pub",
                    "--index-pub", f"{keys}/index.pub", "--grant-pub", f"{keys}/grant.pub"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return keys, state, out


def sign_once(pack, label, cache):
    """One `packtool sign` of `pack` into a fresh state and tree, with the user cache (voices heard, file digests
    remembered) in `cache`."""
    keys, state, out = fresh_state(label)
    cmd = [PACKTOOL, "sign", pack, "--state", state, "--manifest-key", f"{keys}/manifest.pem", "--index-key", f"{keys}/index.pem", "--publish", out]
    env = dict(os.environ, SOURCE_DATE_EPOCH=BENCH_EPOCH, PACKTOOL_CACHE_DIR=cache)
    settle()
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"sign failed: {p.stderr}")
    signing = float(p.stdout.split("signing took ")[1].split(" ms")[0])
    return wall, int(p.stderr.strip().splitlines()[-1]), signing


def bench_publish(label, pack, repeat):
    files = files_under(pack)
    nbytes = sum(os.path.getsize(f) for f in files)
    print(f"\n{label}: {len(files)} files, {nbytes / 1e6:.0f} MB")
    tar_out = os.path.join(WORK, "tar-out.tar")
    tar = ["tar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "-cf", tar_out, "-C", pack, "."]
    sign_key = os.path.join(WORK, "keys", "manifest.pem")
    results = {"sign": [], "sign-hashing": [], "tar": [], "tar+sync": [], "tar+sha+openssl": [], "signing": [], "rss": [], "disk": [], "floor": []}
    floor_list = os.path.join(WORK, "floor-sign.txt")
    with open(floor_list, "w") as f:
        for path in sorted(files, key=lambda p: os.path.relpath(p, pack)):
            f.write(f"{os.path.getsize(path)} {path}\n")
    # The first sign of a pack on a machine hears every story (FFmpeg loaded) and hashes every file; it fills the
    # user cache, so the signs timed below (a release after a lint, or a re-release) read only what changed: nothing.
    cache = os.path.join(WORK, f"sign-cache-{label.split(':')[0]}")
    shutil.rmtree(cache, ignore_errors=True)
    first_wall, first_rss, _ = sign_once(pack, "publish", cache)
    for _ in range(repeat):
        if os.path.exists(tar_out):
            os.remove(tar_out)
        settle()
        t0 = time.perf_counter()
        subprocess.run(tar, check=True)
        results["tar"].append(time.perf_counter() - t0)
        os.remove(tar_out)
        # The same tar made durable (packtool fsyncs before it publishes, so a crash never leaves a half archive).
        settle()
        t0 = time.perf_counter()
        subprocess.run(tar, check=True)
        subprocess.run(["sync", tar_out], check=True)
        results["tar+sync"].append(time.perf_counter() - t0)
        os.remove(tar_out)
        settle()
        t0 = time.perf_counter()
        subprocess.run(tar, check=True)
        listing = subprocess.run(["sha256sum"] + files, check=True, capture_output=True).stdout
        open(os.path.join(WORK, "listing.txt"), "wb").write(listing)
        subprocess.run(["openssl", "pkeyutl", "-sign", "-inkey", sign_key, "-rawin", "-in", os.path.join(WORK, "listing.txt"),
                        "-out", os.path.join(WORK, "listing.sig")], check=True)
        results["tar+sha+openssl"].append(time.perf_counter() - t0)
        results["disk"].append(disk_write(tar_out))
        os.remove(tar_out)
        settle()
        t0 = time.perf_counter()
        subprocess.run([FORMAT_FLOOR, "sign", floor_list, tar_out], check=True)
        results["floor"].append(time.perf_counter() - t0)
        os.remove(tar_out)
        # Every file hashed again (its digests forgotten), the voices still cached: a release whose every file changed.
        shutil.rmtree(os.path.join(cache, "digests"), ignore_errors=True)
        results["sign-hashing"].append(sign_once(pack, "publish", cache)[0])
        wall, rss, signing = sign_once(pack, "publish", cache)
        results["sign"].append(wall)
        results["signing"].append(signing)
        results["rss"].append(rss)
    med = {k: statistics.median(v) for k, v in results.items()}
    row("packtool sign, first on this machine (every story heard, every file hashed)", first_wall, first_rss,
        "(FFmpeg mapped; reference for the rows below)")
    row("packtool sign, every file hashed (stories heard before)", med["sign-hashing"], None,
        f"/tar = {med['sign-hashing'] / med['tar']:.2f}x; /(tar+sync) = {med['sign-hashing'] / med['tar+sync']:.2f}x (digests forgotten, stories heard before)")
    row("packtool sign (lint, hash, tar, sign, publish, fsync)", med["sign"], max(results["rss"]),
        "(stories heard and files hashed before: the user cache)")
    # Bare tar does not hash or flush: the ratio is shown for reference, the comparison that counts is with the durable
    # peer (tar then sync) and the format's floor (DESIGN.md §7).
    row("GNU tar --sort=name --mtime=@0 --owner=0 --group=0", med["tar"], None, f"sign/tar = {med['sign'] / med['tar']:.2f}x (target <= 1.2x, issue 43)")
    row("GNU tar, then sync of the archive", med["tar+sync"], None, f"sign/(tar+sync) = {med['sign'] / med['tar+sync']:.2f}x")
    row("flushing the tar's bytes alone (the disk's time)", med["disk"], None,
        f"sign/flush = {med['sign'] / med['disk']:.2f}x; flush/tar = {med['disk'] / med['tar']:.2f}x")
    row("format-floor sign (hash files, then copy + hash + fsync)", med["floor"], None,
        f"sign/floor = {med['sign'] / med['floor']:.2f}x; floor/tar = {med['floor'] / med['tar']:.2f}x")
    row("tar + sha256sum + openssl pkeyutl -sign", med["tar+sha+openssl"], None,
        f"sign/(tar+sha+openssl) = {med['sign'] / med['tar+sha+openssl']:.2f}x (target <= 0.4x)")
    print(f"  signing alone (manifest + index): {med['signing']:.2f} ms (target <= 5 ms)")
    print(f"  peak RSS of packtool sign: {max(results['rss']) / 1024:.1f} MiB (target <= 32 MiB)")
    return med, max(results["rss"])


def library(function, request):
    """packverify-run FUNCTION REQUEST: one libpackverify call in a process of its own (the library as an app embeds
    it). Returns (wall seconds, peak RSS KiB, reply)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", PACKVERIFY_RUN, function, json.dumps(request)], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"packverify {function} failed: {p.stdout} {p.stderr}")
    return wall, int(p.stderr.strip().splitlines()[-1]), json.loads(p.stdout)


def disk_write(source):
    """Seconds the disk takes to make `source`'s bytes durable: a copy is made in the page cache (untimed), then only
    its flush (`sync FILE`) is timed. No durable install or publish of those bytes can take less."""
    target = os.path.join(WORK, "flush-copy")
    if os.path.exists(target):
        os.remove(target)
    settle()
    shutil.copyfile(source, target)
    t0 = time.perf_counter()
    subprocess.run(["sync", target], check=True)
    wall = time.perf_counter() - t0
    os.remove(target)
    return wall


def settle():
    """Flushes other writes before a timed run, so no command pays for the previous one's dirty pages."""
    subprocess.run(["sync"], check=True)


def bench_client(label, pack, repeat):
    """Publishes `pack` once, then times the client side against the standard tools on the same files. Client figures
    come from libpackverify (through packverify-run); packtool install is shown beside it."""
    keys, state, out = fresh_state("client")
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(int(time.time())))
    subprocess.run([PACKTOOL, "sign", pack, "--state", state, "--manifest-key", f"{keys}/manifest.pem", "--index-key", f"{keys}/index.pem",
                    "--publish", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    archive = os.path.join(out, "packs", "royal-mile", "1", "royal-mile-1.tar")
    root = os.path.join(state, "root", "1.root.json")
    size = os.path.getsize(archive)
    print(f"\n{label}: archive {size / 1e6:.0f} MB")
    client_state = os.path.join(WORK, "client-app-state")
    target = os.path.join(WORK, "client-install")
    extract = os.path.join(WORK, "bsdtar-extract")
    results = {"lib": [], "packtool": [], "bsdtar": [], "bsdtar+sync": [], "disk": [], "floor": []}
    floor_list = os.path.join(WORK, "floor-install.txt")
    with tarfile.open(archive) as t, open(floor_list, "w") as f:
        for member in t.getmembers()[1:]:
            f.write(f"{member.offset_data} {member.size} {member.name}\n")
    rss_lib = rss_packtool = 0
    for _ in range(repeat):
        shutil.rmtree(client_state, ignore_errors=True)
        library("pin_root", {"state": client_state, "root": root})
        shutil.rmtree(target, ignore_errors=True)
        settle()
        wall, rss, _ = library("install", {"state": client_state, "archive": archive, "into": target})
        results["lib"].append(wall)
        rss_lib = max(rss_lib, rss)
        packtool_target = target + "-packtool"
        shutil.rmtree(packtool_target, ignore_errors=True)
        settle()
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", PACKTOOL, "install", archive, "--into", packtool_target, "--root", root], capture_output=True, text=True)
        results["packtool"].append(time.perf_counter() - t0)
        if p.returncode != 0:
            raise SystemExit(p.stderr)
        rss_packtool = max(rss_packtool, int(p.stderr.strip().splitlines()[-1]))
        shutil.rmtree(packtool_target)
        for key, durable in (("bsdtar", False), ("bsdtar+sync", True)):
            shutil.rmtree(extract, ignore_errors=True)
            os.makedirs(extract)
            settle()
            t0 = time.perf_counter()
            subprocess.run(["bsdtar", "-xf", archive, "-C", extract], check=True)
            if durable:
                subprocess.run(["sync", "-f", extract], check=True)
            results[key].append(time.perf_counter() - t0)
        shutil.rmtree(extract)
        os.makedirs(extract)
        settle()
        t0 = time.perf_counter()
        subprocess.run([FORMAT_FLOOR, "install", archive, floor_list, extract], check=True)
        results["floor"].append(time.perf_counter() - t0)
        results["disk"].append(disk_write(archive))
    shutil.rmtree(extract, ignore_errors=True)
    current = os.path.realpath(os.path.join(target, "royal-mile", "current"))
    files = [f for f in files_under(current, follow=True) if not f.endswith(".manifest.json")]
    if len(files) < 100:
        raise SystemExit(f"expected the installed pack's files under {current}, found {len(files)}")
    listing = subprocess.run(["sha256sum"] + files, check=True, capture_output=True).stdout
    sums = os.path.join(WORK, "sums.txt")
    open(sums, "wb").write(listing)
    # Interleaved, each after a sync, so background writeback from the installs above weighs on none of them.
    verify = {1: [], 2: []}
    dgsts, checks, cli_verify = [], [], []
    rss_verify = rss_cli_verify = 0
    for _ in range(repeat):
        settle()
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", PACKTOOL, "install", "--verify", "--into", target, "--pack", "royal-mile",
                            "--client-state", client_state], capture_output=True, text=True)
        cli_verify.append(time.perf_counter() - t0)
        if p.returncode != 0:
            raise SystemExit(f"packtool install --verify: {p.stderr}")
        rss_cli_verify = max(rss_cli_verify, int(p.stderr.strip().splitlines()[-1]))
        for threads in (1, 2):
            settle()
            wall, rss, reply = library("verify_installed", {"state": client_state, "into": target, "pack": "royal-mile", "threads": threads})
            if not reply.get("intact"):
                raise SystemExit(f"verify-installed: {reply}")
            verify[threads].append(wall)
            rss_verify = max(rss_verify, rss)
        dgsts.append(timed(["openssl", "dgst", "-sha256"] + files, repeat=1)[0])
        checks.append(timed(["sha256sum", "-c", "--quiet", sums], repeat=1)[0])
    dgst, check = statistics.median(dgsts), statistics.median(checks)
    med = {k: statistics.median(v) for k, v in results.items()}
    one, two = statistics.median(verify[1]), statistics.median(verify[2])
    row("install, libpackverify (verify while writing, flush, switch)", med["lib"], rss_lib, f"install/bsdtar = {med['lib'] / med['bsdtar']:.2f}x (reference only: bsdtar neither hashes nor flushes)")
    row("install, packtool install", med["packtool"], rss_packtool, f"/bsdtar = {med['packtool'] / med['bsdtar']:.2f}x")
    row("bsdtar -xf", med["bsdtar"])
    row("bsdtar -xf, then sync (durable, as install is)", med["bsdtar+sync"], None, f"install/(bsdtar+sync) = {med['lib'] / med['bsdtar+sync']:.2f}x")
    row("flushing the archive's bytes alone (the disk's time)", med["disk"], None,
        f"install/flush = {med['lib'] / med['disk']:.2f}x; flush/bsdtar = {med['disk'] / med['bsdtar']:.2f}x")
    row("format-floor install (copy + hash each file, fdatasync)", med["floor"], None,
        f"install/floor = {med['lib'] / med['floor']:.2f}x; floor/bsdtar = {med['floor'] / med['bsdtar']:.2f}x")
    row("verify-installed, libpackverify, 1 thread", one, None, f"/openssl dgst = {one / dgst:.2f}x (target <= 1.15x)")
    row("verify-installed, libpackverify, 2 threads", two, rss_verify, f"/1 thread = {two / one:.2f}x (target <= 0.65x); /sha256sum -c = {two / check:.2f}x (target <= 0.35x)")
    cli = statistics.median(cli_verify)
    row("packtool install --verify (all cores)", cli, rss_cli_verify, f"/openssl dgst = {cli / dgst:.2f}x (target <= 0.6x, issue 43)")
    row("openssl dgst -sha256 over the same files", dgst)
    row("sha256sum -c over the same files", check)
    print(f"  peak RSS, libpackverify: install {rss_lib / 1024:.1f} MiB, verify-installed {rss_verify / 1024:.1f} MiB (target <= 16 MiB); "
          f"packtool install {rss_packtool / 1024:.1f} MiB")
    manifest = os.path.join(out, "packs", "royal-mile", "1", "manifest.json")
    p = subprocess.run([PACKTOOL, "access", manifest, "--root", root, "--scene", "03-mercat-cross",
                        "--purchase", "uk.example.walks.trippass72@" + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600)),
                        "--repeat", "200000"], capture_output=True, text=True)
    print(f"  one access decision: {p.stderr.strip()} (target <= 50 µs)")


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(root):
    """A real nginx on a free loopback port serving `root` at / and, throttled to 25 MB/s as a good Wi-Fi link, at
    /wifi/. Returns (process, base URL)."""
    folder = os.path.join(WORK, "nginx")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "logs"))
    port = free_port()
    conf = os.path.join(folder, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/logs/error.log;
events {{ worker_connections 64; }}
http {{
  access_log off;
  sendfile on;
  server {{
    listen 127.0.0.1:{port};
    root {root};
    location /wifi/ {{ alias {root}/; limit_rate 25m; }}
  }}
}}
""")
    proc = subprocess.Popen([NGINX, "-c", conf, "-p", folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/"
    for _ in range(100):
        if subprocess.run(["curl", "-s", "-o", "/dev/null", base + "index.json"]).returncode == 0:
            return proc, base
        time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"nginx did not start; see {folder}/logs/error.log")


def curl(url, out, byte_range=None):
    """Seconds curl takes to fetch `url` into `out` (after a sync, the file removed first)."""
    if os.path.exists(out):
        os.remove(out)
    settle()
    cmd = ["curl", "-sf", "-o", out, url] + (["-r", byte_range] if byte_range else [])
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t0


def allocated_bytes(*folders):
    """Bytes the file system has allocated to every file under `folders` (st_blocks, so holes do not count)."""
    total = 0
    for folder in folders:
        for parent, _, names in os.walk(folder):
            for name in names:
                try:
                    total += os.lstat(os.path.join(parent, name)).st_blocks * 512
                except FileNotFoundError:
                    pass
    return total


class PeakDisk:
    """Samples the disk space allocated under some folders every 20 ms on a thread of its own; `peak` is the most seen
    (a walk of a few hundred files takes about a millisecond)."""

    def __init__(self, *folders):
        self.folders, self.peak, self.done = folders, 0, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.done.is_set():
            self.peak = max(self.peak, allocated_bytes(*self.folders))
            self.done.wait(0.02)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()
        self.peak = max(self.peak, allocated_bytes(*self.folders))


def streamed_update(base, state, target, root):
    """packverify_update into an empty folder (a first install over HTTP) in a process of its own: (wall, RSS KiB,
    peak bytes allocated under the state and install folders while it ran)."""
    shutil.rmtree(state, ignore_errors=True)
    shutil.rmtree(target, ignore_errors=True)
    library("pin_root", {"state": state, "root": root})
    os.makedirs(target, exist_ok=True)
    settle()
    with PeakDisk(state, target) as disk:
        wall, rss, reply = library("update", {"state": state, "into": target, "pack": "royal-mile", "from": base})
    if reply.get("toVersion") != 1:
        raise SystemExit(f"update: {reply}")
    return wall, rss, disk.peak


def packtool_update_timed(base, state, target, root):
    """packtool update into an empty folder, reading its progress lines as they come: (wall, seconds until the first
    stop was reported verified)."""
    shutil.rmtree(state, ignore_errors=True)
    shutil.rmtree(target, ignore_errors=True)
    settle()
    t0 = time.perf_counter()
    p = subprocess.Popen([PACKTOOL, "update", "--tree", base, "--into", target, "--pack", "royal-mile", "--root", root, "--client-state", state],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = None
    for line in p.stderr:
        if first is None and " verified (1 of " in line:
            first = time.perf_counter() - t0
    if p.wait() != 0 or first is None:
        raise SystemExit("packtool update failed or reported no verified stop")
    return time.perf_counter() - t0, first


def bench_stream(label, pack, repeat, throttled=True):
    """A first install over HTTP from nginx on loopback, verified and written while it downloads, beside curl."""
    keys, state, out = fresh_state("stream")
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(int(time.time())))
    subprocess.run([PACKTOOL, "sign", pack, "--state", state, "--manifest-key", f"{keys}/manifest.pem", "--index-key", f"{keys}/index.pem",
                    "--publish", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    relative = "packs/royal-mile/1/royal-mile-1.tar"
    archive = os.path.join(out, relative)
    root = os.path.join(state, "root", "1.root.json")
    size = os.path.getsize(archive)
    free = json.load(open(os.path.join(pack, "pack.json")))["access"]["freeStops"][0]
    with tarfile.open(archive) as t:
        stop_end = max(m.offset_data + m.size for m in t.getmembers() if m.name.startswith(f"stops/{free}/"))
    floor_list = os.path.join(WORK, "floor-stream.txt")
    with tarfile.open(archive) as t, open(floor_list, "w") as f:
        for member in t.getmembers()[1:]:
            f.write(f"{member.offset_data} {member.size} {member.name}\n")
    print(f"\n{label}: archive {size / 1e6:.0f} MB over HTTP from nginx on 127.0.0.1; Stop I ({free}) ends at byte {stop_end:,}")
    proc, base = start_nginx(out)
    downloaded = os.path.join(WORK, "curl-archive.tar")
    extract = os.path.join(WORK, "curl-extract")
    client_state, target = os.path.join(WORK, "stream-client-state"), os.path.join(WORK, "stream-install")
    results = {"lib": [], "packtool": [], "curl": [], "curl+bsdtar": [], "curl+bsdtar+sync": [], "floor": []}
    rss = 0
    disk = 0
    try:
        for _ in range(repeat):
            wall, r, d = streamed_update(base, client_state, target, root)
            results["lib"].append(wall)
            rss = max(rss, r)
            disk = max(disk, d)
            results["packtool"].append(packtool_update_timed(base, client_state + "-cli", target + "-cli", root)[0])
            results["curl"].append(curl(base + relative, downloaded))
            for key, durable in (("curl+bsdtar", False), ("curl+bsdtar+sync", True)):
                shutil.rmtree(extract, ignore_errors=True)
                os.makedirs(extract)
                wall = curl(base + relative, downloaded)
                t0 = time.perf_counter()
                subprocess.run(["bsdtar", "-xf", downloaded, "-C", extract], check=True)
                if durable:
                    subprocess.run(["sync", "-f", extract], check=True)
                results[key].append(wall + time.perf_counter() - t0)
            # The same work by standard tools: the download, every file copied, hashed and flushed, the archive hashed, at once.
            shutil.rmtree(extract, ignore_errors=True)
            os.makedirs(extract)
            settle()
            t0 = time.perf_counter()
            jobs = [subprocess.Popen(["curl", "-sf", "-o", downloaded + ".floor", base + relative]),
                    subprocess.Popen([FORMAT_FLOOR, "install", downloaded, floor_list, extract]),
                    subprocess.Popen(["openssl", "dgst", "-sha256", downloaded], stdout=subprocess.DEVNULL)]
            if any(j.wait() != 0 for j in jobs):
                raise SystemExit("the floor's jobs failed")
            results["floor"].append(time.perf_counter() - t0)
            os.remove(downloaded + ".floor")
        med = {k: statistics.median(v) for k, v in results.items()}
        row("first install over HTTP, libpackverify (download, verify, write, flush, switch)", med["lib"], rss,
            f"/curl -o = {med['lib'] / med['curl']:.2f}x (target <= 1.15x)")
        row("first install over HTTP, packtool update", med["packtool"], None, f"/curl -o = {med['packtool'] / med['curl']:.2f}x")
        row("curl -o (the archive alone)", med["curl"])
        row("curl -o, then bsdtar -xf", med["curl+bsdtar"], None, f"install/(curl+bsdtar) = {med['lib'] / med['curl+bsdtar']:.2f}x (target <= 0.8x)")
        row("curl -o, then bsdtar -xf, then sync (durable)", med["curl+bsdtar+sync"], None,
            f"install/(curl+bsdtar+sync) = {med['lib'] / med['curl+bsdtar+sync']:.2f}x")
        row("the same work by standard tools at once: curl -o | format-floor install | openssl dgst", med["floor"], None,
            f"install/(same work) = {med['lib'] / med['floor']:.2f}x; (same work)/curl = {med['floor'] / med['curl']:.2f}x")
        print(f"  peak RSS, libpackverify update: {rss / 1024:.1f} MiB (target <= 16 MiB)")
        installed = allocated_bytes(target)
        print(f"  peak disk space during the install (state and install folders): {disk / 2**20:.1f} MiB; the installed pack "
              f"{installed / 2**20:.1f} MiB, the archive {size / 2**20:.1f} MiB: peak - archive = {(disk - size) / 2**20:+.1f} MiB "
              f"(target <= +2 MiB)")
        if not throttled:
            return
        wifi = {"update": [], "curl": [], "stop": [], "stop-bytes": []}
        for _ in range(3):
            wall, first = packtool_update_timed(base + "wifi/", client_state, target, root)
            wifi["update"].append(wall)
            wifi["stop"].append(first)
            wifi["curl"].append(curl(base + "wifi/" + relative, downloaded))
            wifi["stop-bytes"].append(curl(base + "wifi/" + relative, downloaded, f"0-{stop_end - 1}"))
        w = {k: statistics.median(v) for k, v in wifi.items()}
        row("first install at 25 MB/s (nginx limit_rate 25m), packtool update", w["update"], None,
            f"/curl -o = {w['update'] / w['curl']:.3f}x (target <= 1.03x)")
        row("curl -o at 25 MB/s", w["curl"])
        row("Stop I reported verified (from the start of packtool update)", w["stop"], None,
            f"/its bytes' arrival = {w['stop'] / w['stop-bytes']:.2f}x (target <= 1.5x)")
        row(f"curl of Stop I's bytes (0-{stop_end - 1}) at 25 MB/s", w["stop-bytes"])
    finally:
        proc.terminate()
        proc.wait()
        for path in (downloaded, extract, target, target + "-cli"):
            shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else (os.remove(path) if os.path.exists(path) else None)


def bench_delta(pack_template):
    """v1 published and installed; then one plate replaced by a 4.5 MB one and a transcript edited; v2 by delta."""
    work = os.path.join(WORK, "delta")
    shutil.rmtree(work, ignore_errors=True)
    pack = os.path.join(work, "pack")
    shutil.copytree(pack_template, pack)
    keys, state, out = fresh_state("delta")
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(int(time.time())))
    sign = [PACKTOOL, "sign", pack, "--state", state, "--manifest-key", f"{keys}/manifest.pem", "--index-key", f"{keys}/index.pem", "--publish", out]
    subprocess.run(sign, check=True, capture_output=True, env=env)
    root = os.path.join(state, "root", "1.root.json")
    app = os.path.join(work, "app")
    app_state = os.path.join(work, "app-state")
    library("pin_root", {"state": app_state, "root": root})
    update_request = {"state": app_state, "into": app, "pack": "royal-mile", "from": "file://" + out}
    library("update", update_request)
    # The same through packtool, into a second install, for comparison.
    cli_app = os.path.join(work, "cli-app")
    update = [PACKTOOL, "update", "--tree", "file://" + out, "--into", cli_app, "--pack", "royal-mile", "--root", root]
    subprocess.run(update, check=True, capture_output=True)
    scene = os.path.join(pack, "stops", "03-mercat-cross")
    old_scene = os.path.join(work, "old-scene")
    shutil.copytree(scene, old_scene)
    plate = os.path.join(scene, "layers", "1824-16x9.heic")
    base = open(os.path.join(pack, "stops", "02-gladstones-land", "layers", "1647-16x9.heic"), "rb").read()
    box = base[:base.find(b"free") - 4] if b"free" in base else base
    filler = 4_500_000 - len(box) - 8
    open(plate, "wb").write(box + (filler + 8).to_bytes(4, "big") + b"free" + os.urandom(filler))
    vtt = os.path.join(scene, "story.vtt")
    text = open(vtt).read()
    open(vtt, "w").write(text.replace("Stand here", "Please stand here"))
    subprocess.run([PACKTOOL, "review", "sign", scene, "--reviewer-key", KEY, "--reviewer", "example-historian"], check=True, capture_output=True, env=env)
    p = subprocess.run(sign, check=True, capture_output=True, text=True, env=env)
    build_ms = float(p.stdout.split(" written in ")[1].split(" ms")[0])
    delta = os.path.join(out, "packs", "royal-mile", "deltas", "03-mercat-cross", "1-2.tar")
    changed = ["layers/1824-16x9.heic", "story.vtt", "signoff.json"]
    changed_bytes = sum(os.path.getsize(os.path.join(scene, c)) for c in changed)
    print(f"\ndelta: one 4.5 MB plate replaced and a transcript edited (scene 03-mercat-cross)")
    size = os.path.getsize(delta)
    print(f"  delta size: {size:,} bytes for {changed_bytes:,} changed bytes = changed + {size - changed_bytes:,} (target <= changed + 8,192)")
    print(f"  delta build time (inside sign): {build_ms:.1f} ms")
    # Five rounds, each from the same v1 install (copied back before every round) and after a sync.
    snapshots = {}
    for folder in (app, app_state, cli_app):
        snapshots[folder] = folder + ".v1"
        subprocess.run(["cp", "-a", folder, snapshots[folder]], check=True)
    applies, cli_applies, baselines, apply_rss = [], [], [], 0
    extract = os.path.join(work, "extract")
    for _ in range(5):
        for folder, copy in snapshots.items():
            shutil.rmtree(folder)
            subprocess.run(["cp", "-a", copy, folder], check=True)
        settle()
        wall, rss, reply = library("update", update_request)
        if reply.get("method") != "deltas":
            raise SystemExit(f"update did not use deltas: {reply}")
        applies.append(wall)
        apply_rss = max(apply_rss, rss)
        settle()
        t0 = time.perf_counter()
        r = subprocess.run(update, capture_output=True, text=True)
        cli_applies.append(time.perf_counter() - t0)
        if "deltas" not in r.stdout:
            raise SystemExit(f"packtool update did not use deltas: {r.stdout} {r.stderr}")
        shutil.rmtree(extract, ignore_errors=True)
        os.makedirs(extract)
        settle()
        t0 = time.perf_counter()
        subprocess.run(["tar", "-xf", delta, "-C", extract] + changed, check=True)
        subprocess.run(["sha256sum"] + [os.path.join(extract, c) for c in changed], check=True, capture_output=True)
        baselines.append(time.perf_counter() - t0)
    apply, cli_apply, baseline = statistics.median(applies), statistics.median(cli_applies), statistics.median(baselines)
    row("apply, libpackverify update from file:// (verify, link, flush, switch)", apply, apply_rss, f"/(tar -xf changed + sha256sum) = {apply / baseline:.2f}x (target <= 1.5x)")
    row("apply, packtool update from file://", cli_apply, None, f"/(tar -xf changed + sha256sum) = {cli_apply / baseline:.2f}x")
    row("tar -xf of the changed files + sha256sum of them", baseline)
    old_tar, new_tar = os.path.join(work, "old.tar"), os.path.join(work, "new.tar")
    subprocess.run(["tar", "--sort=name", "-cf", old_tar, "-C", old_scene, "."], check=True)
    subprocess.run(["tar", "--sort=name", "-cf", new_tar, "-C", scene, "."], check=True)
    for name, cmd, patch in [("xdelta3", ["xdelta3", "-e", "-f", "-s", old_tar, new_tar], os.path.join(work, "x.patch")),
                             ("zstd --patch-from", ["zstd", "-q", "-f", "--patch-from=" + old_tar, new_tar, "-o"], os.path.join(work, "z.patch"))]:
        if not shutil.which(cmd[0]):
            print(f"  {name}: not installed")
            continue
        t0 = time.perf_counter()
        subprocess.run(cmd + [patch], check=True, capture_output=True)
        row(f"{name} (scene tar, same change)", time.perf_counter() - t0, None, f"patch {os.path.getsize(patch):,} bytes")


VENV_BIN = os.path.join(REPO, ".build", "venv", "bin")
S3_ENV = {"AWS_ACCESS_KEY_ID": "PACKTOOLBENCH", "AWS_SECRET_ACCESS_KEY": "packtool-bench-secret", "AWS_DEFAULT_REGION": "us-east-1"}


def start_seaweedfs():
    """SeaweedFS (`weed mini` from the test virtual environment) on loopback with its own credentials. Returns
    (process, endpoint, folder)."""
    folder = os.path.join(WORK, "seaweedfs")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    with open(os.path.join(folder, "s3.json"), "w") as f:
        json.dump({"identities": [{"name": "bench", "credentials": [{"accessKey": S3_ENV["AWS_ACCESS_KEY_ID"], "secretKey": S3_ENV["AWS_SECRET_ACCESS_KEY"]}],
                                   "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
    ports = {}
    while len(set(ports.values())) < 6 or any(p > 55000 for p in ports.values()):
        ports = {n: free_port() for n in ["master", "volume", "filer", "s3", "admin", "webdav"]}
    proc = subprocess.Popen([os.path.join(VENV_BIN, "weed"), "mini", f"-dir={folder}/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                             f"-s3.config={folder}/s3.json", "-admin.ui=false", "-s3.port.iceberg=0", "-s3.port.lance=0", "-bucket=bench"]
                            + [f"-{n}.port={p}" for n, p in ports.items()],
                            stdout=open(os.path.join(folder, "log"), "w"), stderr=subprocess.STDOUT, start_new_session=True)
    endpoint = f"http://127.0.0.1:{ports['s3']}"
    env = dict(os.environ, **S3_ENV)
    for _ in range(200):
        if subprocess.run([os.path.join(VENV_BIN, "aws"), "--endpoint-url", endpoint, "s3", "ls", "s3://bench"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            return proc, endpoint, folder
        time.sleep(0.3)
    os.killpg(proc.pid, 9)
    raise SystemExit(f"SeaweedFS did not start; see {folder}/log")


def bench_upload(label, pack, repeat):
    """`packtool upload` of a published tree to a real S3-compatible store (SeaweedFS on loopback), beside `aws s3 sync`
    of the same tree to the same store, and a rerun with nothing new."""
    keys, state, out = fresh_state("upload")
    env = dict(os.environ, SOURCE_DATE_EPOCH=BENCH_EPOCH)
    subprocess.run([PACKTOOL, "sign", pack, "--state", state, "--manifest-key", f"{keys}/manifest.pem", "--index-key", f"{keys}/index.pem",
                    "--publish", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    size = sum(os.path.getsize(f) for f in files_under(out))
    print(f"\n{label}: a published tree of {size / 1e6:.0f} MB ({len(files_under(out))} objects) to SeaweedFS on 127.0.0.1")
    proc, endpoint, folder = start_seaweedfs()
    env = dict(os.environ, **S3_ENV)
    aws = os.path.join(VENV_BIN, "aws")
    results = {"packtool": [], "aws": [], "again": []}
    rss = 0
    try:
        for n in range(repeat):
            wall, r = timed([PACKTOOL, "upload", out, f"s3://bench/packtool-{n}", "--endpoint", endpoint, "--quiet"], repeat=1, env=env)
            results["packtool"].append(wall)
            rss = max(rss, r)
            results["again"].append(timed([PACKTOOL, "upload", out, f"s3://bench/packtool-{n}", "--endpoint", endpoint, "--quiet"], repeat=1, env=env)[0])
            results["aws"].append(timed([aws, "--endpoint-url", endpoint, "s3", "sync", out, f"s3://bench/aws-{n}", "--only-show-errors"], repeat=1, env=env)[0])
    finally:
        os.killpg(proc.pid, 15)
        proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
    p, a, again = (statistics.median(results[k]) for k in ("packtool", "aws", "again"))
    row("aws s3 sync (awscli; the peer)", a)
    row("packtool upload (checked, index.json last)", p, rss, f"{p / a:.2f}x aws s3 sync (target <= 1.1x)")
    row("packtool upload again, nothing new", again, None, "target <= 0.2 s")
    print(f"  peak RSS {rss / 1024:.1f} MiB (target <= 32 MiB)")


def bench_preview(pack, repeat):
    """packtool preview on a first run and a rerun, beside heif-convert + ffmpeg (libwebp) over the same plates."""
    out = os.path.join(WORK, "preview")
    plates = files_under(pack, (".heic",))
    print(f"\npreview: {os.path.basename(pack)}, {len(plates)} plates")
    firsts, rss = [], []
    for _ in range(repeat):
        shutil.rmtree(out, ignore_errors=True)
        settle()
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", PACKTOOL, "preview", pack, "--out", out, "--quiet"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        firsts.append(time.perf_counter() - t0)
        rss.append(int(p.stderr.strip().splitlines()[-1]))
        if p.returncode != 0:
            sys.exit(f"packtool preview failed: {p.stderr}")
    first = statistics.median(firsts)
    row("packtool preview, first run", first, max(rss), "target <= 3 s")
    again, again_rss = timed([PACKTOOL, "preview", pack, "--out", out, "--quiet"], repeat=repeat)
    row("packtool preview again, nothing changed", again, again_rss, "target <= 0.5 s")
    scratch = os.path.join(WORK, "preview-tools")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    script = ('f="$1"; n=$(echo "$f" | sha256sum | cut -c1-16); heif-convert "$f" "$0/$n.y4m" >/dev/null && '
              'ffmpeg -loglevel error -y -i "$0/$n.y4m" -c:v libwebp -quality 82 -compression_level 2 "$0/$n.webp" && rm "$0/$n.y4m"')
    settle()
    t0 = time.perf_counter()
    subprocess.run(["xargs", "-P", str(os.cpu_count() or 2), "-n", "1", "sh", "-c", script, scratch],
                   input="\n".join(plates), text=True, check=True)
    tools = time.perf_counter() - t0
    row("heif-convert + ffmpeg libwebp, plates only", tools, None, f"preview/tools = {first / tools:.2f}x (both on {os.cpu_count()} cores)")
    return first, again


def bench_renew(label, pack, repeat):
    """`packtool renew` (re-sign the index; no archive read) and `packtool status` on a published catalogue, beside the
    peers a scheduled job could otherwise run: `openssl pkeyutl -sign` of the index's bytes (the signing floor) and
    `sha256sum` of the archive (what any renewal that re-reads content would cost at least)."""
    keys, state, out = fresh_state("renew")
    env = dict(os.environ, SOURCE_DATE_EPOCH=BENCH_EPOCH)
    # renew remembers each tree it renewed; the bench's tree is new each run, so its memory must be too.
    memory = os.path.join(WORK, "renew-xdg-state")
    shutil.rmtree(memory, ignore_errors=True)
    renew_env = dict(os.environ, XDG_STATE_HOME=memory)
    subprocess.run([PACKTOOL, "sign", pack, "--state", state, "--manifest-key", f"{keys}/manifest.pem", "--index-key", f"{keys}/index.pem",
                    "--publish", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    archives = [f for f in files_under(out) if f.endswith(".tar")]
    size = sum(os.path.getsize(f) for f in files_under(out))
    print(f"\n{label}: a published catalogue of {size / 1e6:.0f} MB")
    index_payload = os.path.join(WORK, "renew-index.json")
    shutil.copy(os.path.join(out, "index.json"), index_payload)
    renew, rss = timed([PACKTOOL, "renew", "--index-key", f"{keys}/index.pem", "--publish", out, "--force"], repeat=repeat, env=renew_env)
    fresh, _ = timed([PACKTOOL, "renew", "--index-key", f"{keys}/index.pem", "--publish", out], repeat=repeat, env=renew_env)
    status, _ = timed([PACKTOOL, "status", "--state", state, "--tree", out], repeat=repeat)
    openssl, _ = timed(["openssl", "pkeyutl", "-sign", "-rawin", "-inkey", f"{keys}/index.pem", "-in", index_payload, "-out", os.devnull], repeat=repeat)
    sha, _ = timed(["sha256sum", *archives], repeat=repeat)
    row("openssl pkeyutl -sign of the index (the signing floor)", openssl)
    row("sha256sum of the archive (a renewal that reads content)", sha)
    row("packtool renew (re-sign, compare-and-swap)", renew, rss, f"target <= 0.2 s; {renew / sha:.3f}x sha256sum of the archive")
    row("packtool renew, index still fresh (nothing to do)", fresh)
    row("packtool status --state --tree", status)


def main():
    subprocess.run(["swift", "build", "-c", "release", "--product", "packtool"], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    # The C library under the name it ships as (libpackverify.so.1, beside SwiftPM's libPackVerifyC.so).
    subprocess.run([os.path.join(REPO, "scripts", "libpackverify.sh"), "-c", "release"], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    os.makedirs(WORK, exist_ok=True)
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-I", os.path.join(REPO, "Sources", "CPackVerify", "include"), os.path.join(REPO, "scripts", "packverify-run.c"),
                    "-L", LIBRARY_DIR, "-lpackverify", f"-Wl,-rpath,{LIBRARY_DIR}", "-o", PACKVERIFY_RUN], check=True)
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", os.path.join(REPO, "scripts", "format-floor.c"), "-lcrypto", "-lpthread", "-o", FORMAT_FLOOR], check=True)
    os.chmod(KEY, 0o600)
    print(f"packtool bench  ({os.cpu_count()} cores; medians of repeated runs; peak RSS from GNU time)")
    part = os.environ.get("BENCH", "all")
    if part in ("all", "start"):
        bench_start(repeat=15)
    if part in ("all", "lint"):
        bench_lint("example pack (scenes/royal-mile)", EXAMPLE, repeat=7)
        big = generated_pack("pack-200", 200)
        bench_lint("generated pack (200 scenes)", big, repeat=3)
    if part in ("all", "publish", "publish-245"):
        fresh_state("warmup")
        small = generated_pack("pack-12x240MB", 12, 3_500_000)
        bench_publish("publish: generated 12-scene pack", small, repeat=7)
    if part in ("all", "publish"):
        large = generated_pack("pack-12x2400MB", 12, 35_000_000)
        bench_publish("publish: generated 12-scene pack, 10x larger plates (memory)", large, repeat=1)
    if part in ("all", "delta"):
        bench_delta(generated_pack("pack-12x240MB", 12, 3_500_000))
    if part in ("all", "stream", "stream-245"):
        fresh_state("warmup")
        bench_stream("stream: generated 12-scene pack", generated_pack("pack-12x240MB", 12, 3_500_000), repeat=7, throttled=part != "stream-245")
    if part in ("all", "stream"):
        bench_stream("stream: generated 12-scene pack, 10x larger plates (memory)", generated_pack("pack-12x2400MB", 12, 35_000_000),
                     repeat=3, throttled=False)
    if part in ("all", "upload"):
        bench_upload("upload: generated 12-scene pack", generated_pack("pack-12x240MB", 12, 3_500_000), repeat=3)
        bench_upload("upload: generated 12-scene pack, 10x larger plates (memory)", generated_pack("pack-12x2400MB", 12, 35_000_000), repeat=1)
    if part in ("all", "renew"):
        bench_renew("renew: generated 12-scene pack", generated_pack("pack-12x240MB", 12, 3_500_000), repeat=7)
    if part in ("all", "preview"):
        bench_preview(EXAMPLE, repeat=5)
    if part in ("all", "client", "client-245"):
        fresh_state("warmup")
        bench_client("client: generated 12-scene pack", generated_pack("pack-12x240MB", 12, 3_500_000), repeat=7)
    if part in ("all", "client"):
        bench_client("client: generated 12-scene pack, 10x larger plates (memory)", generated_pack("pack-12x2400MB", 12, 35_000_000), repeat=1)


if __name__ == "__main__":
    sys.exit(main())
