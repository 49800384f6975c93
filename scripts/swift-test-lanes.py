#!/usr/bin/env python3
"""Runs the Swift test bundle in several processes at once ("lanes"), each a share of the test classes, and reports
them as one run.

Why: most of the suite's time is spent waiting (servers that answer slowly on purpose, child processes killed and
restarted, fsync), so on two cores two lanes finish in a little over half the time. `swift test --parallel` starts a
process per test case (and repeats every class's set-up); `swift test` itself holds SwiftPM's build lock for the
whole run, which would stop the other suites `make test` runs beside it. So the bundle is run directly, as
SwiftPM would, with a comma-separated list of classes per lane.

Classes are dealt to lanes longest first, by their time in the previous run's log when there is one (else by their
number of tests), so the lanes end together. Output: each lane's log, concatenated into LOG; on the terminal the
failures and one summary line in `swift test`'s words ("Executed N tests, with F failures"), which
scripts/skipped-suites.sh and the Makefile read. Exit status: 0 when every lane passed, 1 otherwise (a lane that
crashed is named with the test it was running).

Usage: scripts/swift-test-lanes.py --bundle PATH --log LOG [--lanes 2] [--skip REGEX] [--filter REGEX]
"""
import argparse
import collections
import os
import re
import subprocess
import sys

SUITE_TIME = re.compile(r"^Test Suite '([A-Za-z0-9_]+)' (?:passed|failed) at .*$")
EXECUTED = re.compile(r"Executed (\d+) tests?, with (?:(\d+) tests? skipped and )?(\d+) failures? \((\d+) unexpected\)")
STARTED = re.compile(r"^Test Case '([^']+)' started", re.M)


def previous_times(log):
    """Seconds per class name from a previous run's log (`Test Suite 'X' passed …` then `Executed … in T`)."""
    times = {}
    try:
        lines = open(log, encoding="utf-8", errors="replace").read().split("\n")
    except OSError:
        return times
    for line, following in zip(lines, lines[1:]):
        suite = SUITE_TIME.match(line)
        seconds = re.search(r" in ([0-9.]+) \(", following)
        if suite and seconds:
            times[suite.group(1)] = float(seconds.group(1))
    return times


def lanes_for(tests, count, times, class_sizes):
    """`tests` (Module.Class/test names) dealt into `count` lanes of whole classes, longest class first. A class
    with some tests left out is named test by test."""
    classes = collections.OrderedDict()
    for test in tests:
        classes.setdefault(test.split("/")[0], []).append(test)
    weights = {name: times.get(name.split(".")[-1], 0.2 * len(members)) for name, members in classes.items()}
    lanes = [([], 0.0) for _ in range(count)]
    for name in sorted(classes, key=lambda n: -weights[n]):
        index = min(range(count), key=lambda i: lanes[i][1])
        members, total = lanes[index]
        members.append(name if len(classes[name]) == class_sizes[name] else ",".join(classes[name]))
        lanes[index] = (members, total + weights[name])
    return [members for members, _ in lanes if members]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--lanes", type=int, default=2)
    parser.add_argument("--skip", default="")
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    if args.lanes < 1:
        sys.exit("swift-test-lanes: --lanes must be at least 1")

    listed = subprocess.run([args.bundle, "--list-tests"], capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit(f"swift-test-lanes: {args.bundle} --list-tests failed ({listed.returncode}): {listed.stderr.strip()}")
    everything = [line.strip() for line in listed.stdout.split("\n") if re.match(r"^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/\S+$", line.strip())]
    if not everything:
        sys.exit(f"swift-test-lanes: {args.bundle} listed no tests")
    class_sizes = collections.Counter(test.split("/")[0] for test in everything)
    chosen = [t for t in everything if (not args.skip or not re.search(args.skip, t)) and (not args.filter or re.search(args.filter, t))]
    if not chosen:
        sys.exit("swift-test-lanes: no test left after --skip/--filter")

    lanes = lanes_for(chosen, args.lanes, previous_times(args.log), class_sizes)
    logs = [f"{args.log}.lane{n + 1}" for n in range(len(lanes))]
    processes = []
    for members, log in zip(lanes, logs):
        with open(log, "w") as out:
            processes.append(subprocess.Popen([args.bundle, ",".join(members)], stdout=out, stderr=subprocess.STDOUT))
    codes = [p.wait() for p in processes]

    executed = skipped = failures = unexpected = 0
    ok = True
    with open(args.log, "w", encoding="utf-8") as combined:
        for number, (log, code) in enumerate(zip(logs, codes), start=1):
            text = open(log, encoding="utf-8", errors="replace").read()
            combined.write(f"=== lane {number} of {len(lanes)} (exit {code}) ===\n{text}")
            os.remove(log)
            for line in text.split("\n"):
                if "error:" in line or re.search(r"' failed \(", line):
                    print(line)
            totals = [m for m in (EXECUTED.search(l) for l in text.split("\n") if "Executed" in l) if m]
            if code != 0:
                ok = False
                if not totals or code < 0 or code > 1:
                    started = STARTED.findall(text)
                    print(f"swift-test-lanes: lane {number} ended with status {code}"
                          + (f" while running {started[-1]}" if started else ""))
            if totals:
                last = totals[-1]
                executed += int(last.group(1))
                skipped += int(last.group(2) or 0)
                failures += int(last.group(3))
                unexpected += int(last.group(4))
    skips = f"{skipped} test{'s' if skipped != 1 else ''} skipped and " if skipped else ""
    summary = f"Executed {executed} tests, with {skips}{failures} failures ({unexpected} unexpected) in {len(lanes)} lanes"
    with open(args.log, "a", encoding="utf-8") as combined:
        combined.write(f"\t {summary}\n")
    print(f"\t {summary}")
    if executed < len(chosen) and ok:
        print(f"swift-test-lanes: {len(chosen)} tests were chosen but {executed} ran")
        ok = False
    sys.exit(0 if ok and failures == 0 else 1)


if __name__ == "__main__":
    main()
