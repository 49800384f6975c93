#!/usr/bin/env python3
"""SIGKILL at random moments during a streamed install (a whole archive downloaded, verified and written in one
pass), then a rerun: the install is always exactly the old version or the new one, never a mix, and every rerun
completes.

usage: kill_during_install.py PACKTOOL APP SLOW_URL FAST_URL ROOT OLD NEW [RUNS]
APP holds the old version installed (and its client state, APP/.packtool-client); each run works on a copy of it.
SLOW_URL serves the tree throttled so an install lasts long enough to be killed anywhere in it; FAST_URL unthrottled.
"""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time


def installed_version(packtool, app):
    """The version `packtool install --verify` finds intact in APP, or exits with what it said."""
    p = subprocess.run([packtool, "install", "--verify", "--into", app, "--pack", "royal-mile"], capture_output=True, text=True)
    m = re.search(r"version (\d+): \d+ files checked, intact", p.stdout)
    if p.returncode != 0 or not m:
        sys.exit(f"FAIL the install is not intact after a kill: {p.stdout}{p.stderr}")
    return int(m.group(1))


def update(packtool, app, url, root):
    return subprocess.Popen([packtool, "update", "--quiet", "--tree", url, "--into", app, "--pack", "royal-mile", "--root", root, "--timeout", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main():
    packtool, app, slow, fast, root, old, new = sys.argv[1:8]
    old, new = int(old), int(new)
    runs = int(sys.argv[8]) if len(sys.argv) > 8 else 100
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
    rng = random.Random(20261202)
    seen = {old: 0, new: 0}
    for run in range(runs):
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(app, work, symlinks=True)
        p = update(packtool, work, slow, root)
        # Half the kills anywhere in the install, half in its last fifth and past its end (so some land after the switch), where the flush, the state
        # save and the switch happen within milliseconds of one another.
        pause = rng.uniform(0, span) if run % 2 == 0 else rng.uniform(0.8 * span, 1.15 * span)
        time.sleep(pause)
        p.send_signal(signal.SIGKILL)
        p.communicate()
        version = installed_version(packtool, work)
        if version not in seen:
            sys.exit(f"FAIL run {run}: version {version} installed, neither {old} nor {new}")
        seen[version] += 1
        rerun = update(packtool, work, fast, root)
        out, err = rerun.communicate()
        if rerun.returncode != 0:
            sys.exit(f"FAIL run {run}: the rerun after a kill failed: {out}{err}")
        if installed_version(packtool, work) != new:
            sys.exit(f"FAIL run {run}: the rerun did not leave version {new}: {out}")
    shutil.rmtree(work, ignore_errors=True)
    print(f"ok   {runs} SIGKILLs at random moments of a {span:.2f} s streamed install: version {old} left {seen[old]} times, "
          f"version {new} {seen[new]} times, never a mix; every rerun completed")


if __name__ == "__main__":
    main()
