#!/usr/bin/env python3
"""The Python suites (Tests/python/test_*.py) in two processes at once, each module run by `python -m unittest` on its
own, longest first (by the times of the last run, kept in .build/python-times.json; by file size the first time).

Most of these suites wait on servers, browsers, killed processes and fsync, so two at a time on two cores overlap
well: one after another they were the longest lane of `make test` (15.7 of CI's 25 minutes). Each module's output goes
to .build/test-python/<module>.log and all of them, in module order, to .build/test-python.log; standard output gets
what `unittest` would print at the end (every FAIL/ERROR line, skipped suites, "Ran N tests", OK or FAILED).

usage: PYTHON=… scripts/python-test-lanes.py [--lanes N] [test_module …]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITES = ROOT / "Tests" / "python"
# PACKTOOL_PYTHON_LANES_DIR puts the logs and times elsewhere (this script's own test runs it inside a real run).
OUT = Path(os.environ.get("PACKTOOL_PYTHON_LANES_DIR", ROOT / ".build"))
LOGS = OUT / "test-python"
TIMES = OUT / "python-times.json"
COMBINED = OUT / "test-python.log"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lanes", type=int, default=2)
    parser.add_argument("modules", nargs="*", help="only these modules (test_x), e.g. to rerun a failure")
    args = parser.parse_args()
    # The suites run in Tests/python, so a relative interpreter path (make's .build/venv/bin/python) is made absolute.
    python = os.path.abspath(os.environ.get("PYTHON", sys.executable))
    modules = sorted(p.stem for p in SUITES.glob("test_*.py") if not args.modules or p.stem in args.modules)
    if not modules:
        print(f"FAILED (no test_*.py in {SUITES})")
        return 1
    try:
        known = json.loads(TIMES.read_text())
    except (OSError, ValueError):
        known = {}
    modules.sort(key=lambda m: -known.get(m, (SUITES / f"{m}.py").stat().st_size / 1000))
    LOGS.mkdir(parents=True, exist_ok=True)
    queue, results, lock = list(modules), {}, threading.Lock()

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                module = queue.pop(0)
            start = time.monotonic()
            log = LOGS / f"{module}.log"
            with open(log, "wb") as out:
                try:
                    status = subprocess.call([python, "-m", "unittest", "-v", module], cwd=SUITES, stdout=out, stderr=subprocess.STDOUT)
                except OSError as error:  # the interpreter cannot be started: the module failed, and says why
                    out.write(f"ERROR: cannot run {python}: {error}\n".encode())
                    status = 127
            with lock:
                results[module] = (status, time.monotonic() - start)

    start = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(max(1, args.lanes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - start

    ran, failed, combined = 0, [], []
    for module in sorted(results):
        text = (LOGS / f"{module}.log").read_text(errors="replace")
        combined.append(f"===== {module} (exit {results[module][0]}, {results[module][1]:.0f} s)\n{text}")
        counted = re.findall(r"^Ran (\d+) tests?", text, re.M)
        ran += int(counted[-1]) if counted else 0
        for line in text.splitlines():
            if re.match(r"^(FAIL|ERROR):", line) or "skipped '" in line:
                print(line)
        if results[module][0] != 0 or not counted:
            failed.append(module)
            if not counted:
                print(f"ERROR: {module} ran no test (exit {results[module][0]}; log in {LOGS / (module + '.log')})")
    COMBINED.write_text("".join(combined))
    known.update({m: round(t, 1) for m, (_, t) in results.items()})
    TIMES.write_text(json.dumps(known, indent=1, sort_keys=True))
    slowest = sorted(results.items(), key=lambda kv: -kv[1][1])[:3]
    print(f"Ran {ran} tests in {wall:.3f}s ({len(results)} modules in {args.lanes} processes; slowest: "
          + ", ".join(f"{m} {t:.0f} s" for m, (_, t) in slowest) + ")")
    missing = [m for m in modules if m not in results]
    if missing:  # a worker that died leaves modules unrun: never an OK
        failed += missing
        print(f"ERROR: {len(missing)} modules never ran: {' '.join(missing)}")
    if ran == 0:
        failed.append("(no test ran)")
    print("OK" if not failed else f"FAILED (modules: {' '.join(failed)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
