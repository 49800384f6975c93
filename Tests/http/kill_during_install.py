#!/usr/bin/env python3
"""SIGKILL at random moments during a streamed install (a whole archive downloaded, verified and written in one
pass), then a rerun: the install is always exactly the old version or the new one, never a mix, and every rerun
completes — resuming from the killed run's journal (issue 32): when the kill left `.resume-<sha>.progress` counting N
verified entries, the rerun asks nginx for the archive from entry N's first header byte on (a Range) and is sent
exactly the rest, so the bytes fetched in all are the archive plus what was in flight when the kill came.

usage: kill_during_install.py PACKTOOL APP SLOW_URL FAST_URL ROOT OLD NEW [RUNS [ACCESS_LOG TREE]]
APP holds the old version installed (and its client state, APP/.packtool-client); each run works on a copy of it.
SLOW_URL serves the tree throttled so an install lasts long enough to be killed anywhere in it; FAST_URL unthrottled.
ACCESS_LOG is nginx's log ("$uri $status $body_bytes_sent $connection $http_range" per line) and TREE the folder it
serves; without them the resume is not checked.
"""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time


def entry_starts(archive):
    """Where each entry's first header byte lies, in archive order, then where the trailer starts."""
    with tarfile.open(archive) as t:
        members = t.getmembers()
    return [m.offset for m in members] + [members[-1].offset_data + (members[-1].size + 511) // 512 * 512]


def journal_progress(app):
    """The verified-entry count of the journal a killed streamed install left in APP/royal-mile, if any. A kill
    between the commit's rename of the staging folder to its version folder and the switch leaves the journal without
    its folder: the rerun takes the version folder back (InstallJournal.reclaimCommitted) and resumes all the same."""
    folder = os.path.join(app, "royal-mile")
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        if name.startswith(".resume-") and name.endswith(".progress"):
            text = open(os.path.join(folder, name)).read()
            return int(text) if text.strip().isdigit() else None
    return None


def archive_requests(log, new):
    """(status, bytes, range) of each request nginx logged for version NEW's archive."""
    out = []
    for line in open(log):
        parts = line.split()
        if parts and parts[0].endswith(f"/royal-mile-{new}.tar"):
            out.append((int(parts[1]), int(parts[2]), parts[4] if len(parts) > 4 else "-"))
    return out


def installed_version(packtool, app):
    """The version `packtool install --verify` finds intact in APP, or exits with what it said."""
    p = subprocess.run([packtool, "install", "--verify", "--into", app, "--pack", "royal-mile"], capture_output=True, text=True)
    m = re.search(r"version (\d+): \d+ files checked, intact", p.stdout)
    if p.returncode != 0 or not m:
        sys.exit(f"FAIL the install is not intact after a kill: {p.stdout}{p.stderr}")
    return int(m.group(1))


def update(packtool, app, url, root, crash_at=None):
    """`packtool update` of APP from URL; with CRASH_AT, the client kills itself at its CRASH_AT-th durability boundary."""
    env = dict(os.environ, PACKVERIFY_CRASH_AT=str(crash_at)) if crash_at else None
    return subprocess.Popen([packtool, "update", "--quiet", "--tree", url, "--into", app, "--pack", "royal-mile", "--root", root, "--timeout", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def main():
    packtool, app, slow, fast, root, old, new = sys.argv[1:8]
    old, new = int(old), int(new)
    runs = int(sys.argv[8]) if len(sys.argv) > 8 else 100
    log, tree = (sys.argv[9], sys.argv[10]) if len(sys.argv) > 10 else (None, None)
    archive = os.path.join(tree, "packs", "royal-mile", str(new), f"royal-mile-{new}.tar") if tree else None
    starts = entry_starts(archive) if archive else []
    size = os.path.getsize(archive) if archive else 0
    resumed, from_zero, overhead = 0, 0, []
    work = app + "-kill"
    # How long an unkilled streamed install takes from the throttled server: kills land anywhere in it.
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(app, work, symlinks=True)
    t0 = time.perf_counter()
    p = update(packtool, work, slow, root)
    out, err = p.communicate()
    span = time.perf_counter() - t0
    if p.returncode != 0 or "(full archive)" not in out:
        sys.exit(f"FAIL the unkilled streamed install did not take the whole archive: {out}{err}")
    seen = {old: 0, new: 0}

    def after_kill(run):
        """The checks after one killed run of WORK: the old version or the new one, intact; then a rerun from the fast
        server that resumes from the journal (a Range for exactly the rest) when the kill left one it can use."""
        nonlocal resumed, from_zero
        version = installed_version(packtool, work)
        if version not in seen:
            sys.exit(f"FAIL run {run}: version {version} installed, neither {old} nor {new}")
        seen[version] += 1
        progress = journal_progress(work) if log and version == old else None
        killed = sum(b for _, b, _ in archive_requests(log, new)) if log else 0
        if log:
            open(log, "w").close()
        rerun = update(packtool, work, fast, root)
        out, err = rerun.communicate()
        if rerun.returncode != 0:
            sys.exit(f"FAIL run {run}: the rerun after a kill failed: {out}{err}")
        if log and version == old:
            requests = archive_requests(log, new)
            if progress is not None and progress > 0:
                offset = starts[progress]
                if requests != [(206, size - offset, f"bytes={offset}-")]:
                    sys.exit(f"FAIL run {run}: the journal counted {progress} entries (offset {offset}), but the rerun fetched {requests}")
                resumed += 1
            else:
                if requests != [(200, size, "-")]:
                    sys.exit(f"FAIL run {run}: no journal to resume from, but the rerun fetched {requests}")
                from_zero += 1
            overhead.append(killed + sum(b for _, b, _ in requests) - size)
        if installed_version(packtool, work) != new:
            sys.exit(f"FAIL run {run}: the rerun did not leave version {new}: {out}")

    def fresh_copy():
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(app, work, symlinks=True)
        if log:
            open(log, "w").close()

    # First at each of the client's durability boundaries in turn (its crash points: the journal's steps, the flush,
    # the state save, the staging folder's rename, the switch), so the narrow windows between them are each hit once
    # whatever the timing; then at random moments of the throttled install.
    boundaries = 0
    for n in range(1, 200):
        fresh_copy()
        p = update(packtool, work, fast, root, crash_at=n)
        p.communicate()
        if p.returncode == 0:
            break
        boundaries += 1
        after_kill(f"boundary {n}")
    if boundaries < 5:
        sys.exit(f"FAIL the streamed install passed only {boundaries} crash points")
    rng = random.Random(20261202)
    for run in range(runs):
        fresh_copy()
        p = update(packtool, work, slow, root)
        # Half the kills anywhere in the install, half in its last fifth and past its end (so some land after the switch), where the flush, the state
        # save and the switch happen within milliseconds of one another.
        pause = rng.uniform(0, span) if run % 2 == 0 else rng.uniform(0.8 * span, 1.15 * span)
        time.sleep(pause)
        p.send_signal(signal.SIGKILL)
        p.communicate()
        after_kill(run)
    shutil.rmtree(work, ignore_errors=True)
    print(f"ok   SIGKILLs at each of {boundaries} durability boundaries and {runs} random moments of a {span:.2f} s streamed install: version {old} left {seen[old]} times, "
          f"version {new} {seen[new]} times, never a mix; every rerun completed")
    if log:
        print(f"ok   after the {seen[old]} kills that left version {old}: {resumed} reruns resumed from the journal with a Range "
              f"(exactly the rest sent), {from_zero} started from zero (killed before the first file was verified); bytes "
              f"fetched in all beyond the {size}-byte archive: at most {max(overhead, default=0)} "
              f"(median {sorted(overhead)[len(overhead) // 2] if overhead else 0}: the file in flight and socket buffers)")


if __name__ == "__main__":
    main()
