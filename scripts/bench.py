#!/usr/bin/env python3
"""make bench: measures packtool against the standard tools on the same data, in the same run.

Lint: the example pack and a generated 200-scene pack (wall time, peak RSS, scenes per second, and the share of
media bytes the probes read), beside sha256sum over the same files (lint hashes every file to check sign-offs) and
ffprobe / heif-info over the same media (what an author would otherwise run). Timings are medians of repeated runs.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKTOOL = os.path.join(REPO, ".build", "release", "packtool")
EXAMPLE = os.path.join(REPO, "scenes", "royal-mile")
WORK = os.path.join(REPO, ".build", "bench")
KEY = os.path.join(REPO, "keys-example", "historian.pem")


def timed(cmd, repeat=5, **kw):
    """Median wall seconds and max peak RSS (KiB, from GNU time) over `repeat` runs; output discarded."""
    walls, rss = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)
        walls.append(time.perf_counter() - t0)
        rss.append(int(p.stderr.strip().splitlines()[-1]))
    return statistics.median(walls), max(rss)


def files_under(root, suffixes=None):
    out = []
    for d, _, names in os.walk(root):
        for n in names:
            if suffixes is None or n.endswith(suffixes):
                out.append(os.path.join(d, n))
    return sorted(out)


def generate_pack(scenes):
    """A pack of `scenes` stops, copied round-robin from the example, with their own ids, shifted anchors and fresh
    sign-offs, so it lints as a real pack would."""
    target = os.path.join(WORK, f"pack-{scenes}")
    marker = target + ".complete"
    if os.path.exists(marker):
        return target
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(os.path.join(target, "stops"))
    pack = json.load(open(os.path.join(EXAMPLE, "pack.json")))
    sources = sorted(os.listdir(os.path.join(EXAMPLE, "stops")))
    route = []
    for i in range(scenes):
        src = sources[i % len(sources)]
        name = f"{i + 1:03d}-{src.split('-', 1)[1]}"
        dst = os.path.join(target, "stops", name)
        shutil.copytree(os.path.join(EXAMPLE, "stops", src), dst)
        os.remove(os.path.join(dst, "signoff.json"))
        scene = json.load(open(os.path.join(dst, "scene.json")))
        shift = 0.001 * (i // len(sources))
        scene["id"] = name
        scene["anchor"]["lat"] = round(scene["anchor"]["lat"] + shift, 6)
        scene["view"]["target"]["lat"] = round(scene["view"]["target"]["lat"] + shift, 6)
        json.dump(scene, open(os.path.join(dst, "scene.json"), "w"), indent=2)
        route.append(name)
    pack["route"] = route
    pack["access"]["freeStops"] = [route[0]]
    pack["area"]["north"] = 56.2
    pack["sizeBudget"] = 2_000_000_000
    pack["lint"] = {"maxLegDistance": 5000}
    json.dump(pack, open(os.path.join(target, "pack.json"), "w"), indent=2)
    env = dict(os.environ, SOURCE_DATE_EPOCH="1764460800")
    for name in route:
        subprocess.run([PACKTOOL, "review", "sign", os.path.join(target, "stops", name), "--key", KEY, "--reviewer", "example-historian"],
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


def bench_lint(label, pack, repeat):
    files = files_under(pack)
    stories = [f for f in files if f.endswith(".m4a")]
    plates = [f for f in files if f.endswith(".heic")]
    nbytes = sum(os.path.getsize(f) for f in files)
    status, summary, report = lint_report(pack)
    print(f"\n{label}: {report['stops']} scenes, {len(files)} files, {nbytes / 1e6:.1f} MB; lint exit {status}, {summary}")
    wall, rss = timed([PACKTOOL, "lint", pack], repeat=repeat)
    row("packtool lint", wall, rss, f"{report['stops'] / wall:,.0f} scenes/s")
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


def main():
    subprocess.run(["swift", "build", "-c", "release", "--product", "packtool"], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    os.makedirs(WORK, exist_ok=True)
    os.chmod(KEY, 0o600)
    print(f"packtool bench  ({os.cpu_count()} cores; medians of repeated runs; peak RSS from GNU time)")
    bench_lint("example pack (scenes/royal-mile)", EXAMPLE, repeat=7)
    big = generate_pack(200)
    bench_lint("generated pack (200 scenes)", big, repeat=3)


if __name__ == "__main__":
    sys.exit(main())
