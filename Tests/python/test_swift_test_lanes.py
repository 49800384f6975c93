"""scripts/swift-test-lanes.py, which `make test` runs the Swift bundle through: the lanes' results add up, and a
failing or crashing lane fails the run, naming the test it was in."""
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "swift-test-lanes.py")

# A stand-in for an XCTest bundle: lists six tests in three classes and, run with a comma-separated selection, prints
# what XCTest prints for each class; a class named in $FAIL fails one test, one named in $CRASH dies by SIGKILL.
BUNDLE = textwrap.dedent("""\
    #!/usr/bin/env python3
    import os, sys
    tests = {"M.A": ["t1", "t2"], "M.B": ["t1", "t2"], "M.C": ["t1", "t2"]}
    if sys.argv[1] == "--list-tests":
        print("Listing 6 tests in x.xctest:\\n")
        for c, ts in tests.items():
            for t in ts:
                print(f"{c}/{t}")
        sys.exit(0)
    ran = failed = 0
    for item in sys.argv[1].split(","):
        cls, _, one = item.partition("/")
        for t in ([one] if one else tests[cls]):
            print(f"Test Case '{cls.split('.')[1]}.{t}' started at now", flush=True)
            if cls in os.environ.get("CRASH", ""):
                os.kill(os.getpid(), 9)
            ran += 1
            if cls in os.environ.get("FAIL", ""):
                failed += 1
                print(f"x.swift:1: error: {cls}.{t} : XCTAssertTrue failed")
                print(f"Test Case '{cls.split('.')[1]}.{t}' failed (0.1 seconds)")
            else:
                print(f"Test Case '{cls.split('.')[1]}.{t}' passed (0.1 seconds)")
    print(f"\\t Executed {ran} tests, with {failed} failures ({failed} unexpected) in 0.1 (0.1) seconds")
    sys.exit(1 if failed else 0)
    """)


class SwiftTestLanes(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="packtool-lanes-")
        self.bundle = os.path.join(self.work, "fake.xctest")
        with open(self.bundle, "w") as f:
            f.write(BUNDLE)
        os.chmod(self.bundle, stat.S_IRWXU)
        self.log = os.path.join(self.work, "test.log")

    def run_lanes(self, *extra, **env):
        return subprocess.run([sys.executable, SCRIPT, "--bundle", self.bundle, "--log", self.log, *extra],
                              capture_output=True, text=True, env=dict(os.environ, **env), timeout=60)

    def test_two_lanes_run_every_test_once_and_add_up(self):
        run = self.run_lanes("--lanes", "2")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("Executed 6 tests, with 0 failures (0 unexpected) in 2 lanes", run.stdout)
        with open(self.log) as f:
            log = f.read()
        self.assertEqual(log.count("=== lane"), 2)
        self.assertEqual(sorted(l.split("'")[1] for l in log.split("\n") if l.startswith("Test Case") and "started" in l),
                         ["A.t1", "A.t2", "B.t1", "B.t2", "C.t1", "C.t2"])

    def test_a_failing_test_fails_the_run_and_is_printed(self):
        run = self.run_lanes(FAIL="M.B")
        self.assertEqual(run.returncode, 1)
        self.assertIn("error: M.B.t1", run.stdout)
        self.assertIn("with 2 failures", run.stdout)

    def test_a_crashed_lane_fails_the_run_naming_the_test_it_was_in(self):
        run = self.run_lanes(CRASH="M.C")
        self.assertEqual(run.returncode, 1)
        self.assertRegex(run.stdout, r"lane \d ended with status -9 while running C\.t1")

    def test_skip_leaves_out_tests_and_names_the_rest_of_a_class_one_by_one(self):
        run = self.run_lanes("--skip", "M.A/t1|M.C")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("Executed 3 tests", run.stdout)

    def test_a_bundle_that_cannot_list_its_tests_is_an_error(self):
        os.chmod(self.bundle, 0)
        run = self.run_lanes()
        self.assertNotEqual(run.returncode, 0)


if __name__ == "__main__":
    unittest.main()
