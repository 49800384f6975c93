""".github/workflows/apple.yml, which this project's CI cannot run (it needs macOS), checked against the package so it
cannot drift: it is valid YAML, it runs every client suite `make test` runs through the CryptoKit stand-in (and the
guide's) expecting Apple's CryptoKit, and every target, product and scheme it names exists."""
import os
import re
import subprocess
import json
import unittest

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKFLOW = os.path.join(REPO, ".github", "workflows", "apple.yml")


def package():
    dump = subprocess.run(["swift", "package", "dump-package"], cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(dump.stdout)


def shim_suites():
    with open(os.path.join(REPO, "Makefile"), encoding="utf-8") as f:
        line = next(l for l in f if l.startswith("SHIM_SUITES"))
    return set(line.split(":=", 1)[1].strip().split("|"))


class AppleWorkflow(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(WORKFLOW, encoding="utf-8") as f:
            cls.workflow = yaml.safe_load(f)
        cls.package = package()
        cls.runs = [step.get("run", "") for job in cls.workflow["jobs"].values() for step in job["steps"]]

    def test_the_macos_job_tests_the_client_suites_through_cryptokit(self):
        tests = [run for run in self.runs if "swift test" in run]
        self.assertEqual(len(tests), 1, tests)
        self.assertIn("PACKTOOL_EXPECT_CRYPTO_BACKEND=CryptoKit", tests[0])
        suites = set(re.search(r"--filter '([^']+)'", tests[0]).group(1).split("|"))
        expected = (shim_suites() - {"CryptoKitShimTests"}) | {"AppleGuideTests"}
        self.assertEqual(suites, expected, "the workflow's suites should be make test's stand-in suites and the guide's")
        test_targets = {t["name"] for t in self.package["targets"] if t["type"] == "test"}
        self.assertLessEqual(suites, test_targets, "a suite the package does not have")

    def test_every_target_and_scheme_it_builds_exists_and_is_a_client_library(self):
        targets = {t["name"] for t in self.package["targets"]}
        products = {p["name"] for p in self.package["products"]}
        built = [m for run in self.runs for m in re.findall(r"swift build --target (\w+)", run)]
        schemes = [m for run in self.runs for m in re.findall(r"for scheme in ([\w ]+);", run) for m in m.split()]
        self.assertEqual(sorted(built), ["PackURLSession", "PackVerify"])
        self.assertEqual(sorted(schemes), ["PackURLSession", "PackVerify"])
        self.assertLessEqual(set(built), targets)
        self.assertLessEqual(set(schemes), products)
        self.assertTrue(any("platform=iOS Simulator" in run for run in self.runs))

    def test_the_package_declares_the_platforms_the_workflow_builds_for(self):
        platforms = {p["platformName"]: p["version"] for p in self.package["platforms"]}
        self.assertEqual(platforms, {"ios": "17.0", "macos": "14.0"})


if __name__ == "__main__":
    unittest.main()
