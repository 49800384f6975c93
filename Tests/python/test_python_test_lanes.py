"""scripts/python-test-lanes.py, which `make test` runs these suites through: a module that fails, cannot start or runs
no test fails the run; a passing one says OK with its count. (A first version ran every module with a relative
interpreter path from Tests/python, started none, and said OK.)"""
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "python-test-lanes.py")


class PythonTestLanesTests(unittest.TestCase):
    def run_lanes(self, python, *modules):
        with tempfile.TemporaryDirectory() as out:
            env = dict(os.environ, PYTHON=python, PACKTOOL_PYTHON_LANES_DIR=out)
            r = subprocess.run([sys.executable, SCRIPT, *modules], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
            path = os.path.join(out, "test-python.log")
            combined = ""
            if os.path.exists(path):
                with open(path) as f:
                    combined = f.read()
            return r, combined

    def test_a_passing_module_is_counted_and_ok(self):
        r, combined = self.run_lanes(sys.executable, "test_required")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"Ran [1-9]\d* tests in [\d.]+s \(1 modules in 2 processes")
        self.assertTrue(r.stdout.rstrip().endswith("OK"), r.stdout)
        self.assertIn("===== test_required (exit 0", combined)

    def test_an_interpreter_that_cannot_start_fails_the_run(self):
        r, _ = self.run_lanes("/nonexistent/python", "test_required")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("FAILED", r.stdout)
        self.assertIn("test_required ran no test", r.stdout)

    def test_a_module_that_runs_no_test_fails_the_run(self):
        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(f.name, 0o755)
        try:
            # An interpreter that exits 0 and runs nothing: the module fails by itself, not only by a total of zero.
            r, _ = self.run_lanes(f.name, "test_required")
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("test_required ran no test (exit 0", r.stdout)
        self.assertIn("FAILED (modules: test_required", r.stdout)

    def test_naming_no_module_that_exists_fails(self):
        r, _ = self.run_lanes(sys.executable, "test_no_such_module")
        self.assertEqual(r.returncode, 1, r.stdout)


if __name__ == "__main__":
    unittest.main()
