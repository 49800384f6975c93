""".github/workflows/apple.yml, which this project's CI cannot run (it needs macOS), checked against the package so it
cannot drift: it is valid YAML, it runs every client suite `make test` runs through the CryptoKit stand-in (and the
guide's) expecting Apple's CryptoKit, requires the vectors when they are provided, and builds the client targets and
the guide's code for macOS and the iOS simulator on a runner with nothing installed."""
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
        expected = (shim_suites() - {"CryptoKitShimTests"}) | {"AppleGuideTests", "BackgroundRelaunchTests", "RootedFolderTests", "RootedTakeInTests"}
        self.assertEqual(suites, expected, "the workflow's suites: make test's stand-in suites, the guide's, the relaunch and the rooted layer's")
        # A suite is a test target or a test class (a prefix of one, as the filter is a regular expression).
        test_targets = {t["name"] for t in self.package["targets"] if t["type"] == "test"}
        classes = set()
        for base, _, names in os.walk(os.path.join(REPO, "Tests")):
            for name in names:
                if name.endswith(".swift"):
                    with open(os.path.join(base, name), encoding="utf-8") as f:
                        classes |= set(re.findall(r"class (\w+)\s*:", f.read()))
        for suite in suites:
            self.assertTrue(suite in test_targets or any(c.startswith(suite) for c in classes), f"a suite the package does not have: {suite}")

    def test_both_jobs_run_on_the_pinned_xcode_legs(self):
        for name in ("client-builds", "client-tests"):
            legs = self.workflow["jobs"][name]["strategy"]["matrix"]["include"]
            self.assertEqual([(leg["runner"], leg["xcode"]) for leg in legs], [("macos-14", "15.4"), ("macos-latest", "")], name)
            select = next(step for step in self.workflow["jobs"][name]["steps"] if step.get("name") == "Select Xcode")
            self.assertIn("Xcode_${{ matrix.xcode }}.app", select["run"])

    def test_every_target_it_builds_exists_and_is_a_client_library_or_the_guides_code(self):
        targets = {t["name"] for t in self.package["targets"]}
        legs = self.workflow["jobs"]["client-builds"]["strategy"]["matrix"]["include"]
        built = [leg["targets"].split() for leg in legs]
        self.assertEqual(sorted(built[0]), ["PackBackground", "PackURLSession", "PackVerify"], "Xcode 15.4 (Swift 5.10) builds the client alone")
        self.assertEqual(sorted(built[1]), ["AppleGuideSnippets", "PackBackground", "PackURLSession", "PackVerify"])
        for leg in built:
            self.assertLessEqual(set(leg), targets)
        loops = [run for run in self.runs if "for target in ${{ matrix.targets }}" in run]
        self.assertEqual(len(loops), 2, "one build loop for macOS, one for the iOS simulator")
        self.assertTrue(any("--triple arm64-apple-ios17.0-simulator" in run and "iphonesimulator" in run for run in self.runs))
        strict = next(step for step in self.workflow["jobs"]["client-builds"]["steps"] if "Swift 6 mode" in step.get("name", ""))
        self.assertIn("-swift-version 6 -default-isolation MainActor", strict["run"])
        self.assertIn("-warnings-as-errors", strict["run"])
        snippets = next(t for t in self.package["targets"] if t["name"] == "AppleGuideSnippets")
        deps = {d.get("byName", [None])[0] for d in snippets["dependencies"]}
        self.assertEqual(deps, {"PackVerify", "PackURLSession", "PackBackground"}, "the guide's code needs only what an app adds")

    def test_the_builds_run_on_a_runner_with_nothing_installed(self):
        builds = self.workflow["jobs"]["client-builds"]["steps"]
        self.assertFalse(any("brew" in step.get("run", "") for step in builds))
        self.assertNotIn("env", self.workflow["jobs"]["client-builds"])

    def test_the_tests_require_the_vectors_whenever_they_are_provided(self):
        job = self.workflow["jobs"]["client-tests"]
        self.assertIn("PACKTOOL_TESTDATA_URL", job["env"]["PACKTOOL_REQUIRE_SHARED_TESTDATA"])
        self.assertTrue(job["env"]["PACKTOOL_SHARED"].endswith("/.build/shared"))
        fetch = next(step for step in job["steps"] if step.get("name") == "Third-party vectors")
        self.assertIn("$PACKTOOL_SHARED/testdata", fetch["run"])

    def test_the_package_declares_the_platforms_the_workflow_builds_for(self):
        platforms = {p["platformName"]: p["version"] for p in self.package["platforms"]}
        self.assertEqual(platforms, {"ios": "17.0", "macos": "14.0", "maccatalyst": "17.0"})
        xcode = next(step for step in self.workflow["jobs"]["client-builds"]["steps"] if "xcodebuild" in step.get("run", ""))
        self.assertIn("variant=Mac Catalyst", xcode["run"])
        self.assertIn("generic/platform=iOS Simulator", xcode["run"])

    def test_the_macos_job_installs_every_library_a_system_library_target_names(self):
        """Issue 30: the workflow never installed libheif or libwebp, so `swift test` could not build packtool there."""
        install = next(step for step in self.workflow["jobs"]["client-tests"]["steps"] if step.get("name") == "Publisher libraries")
        for target in self.package["targets"]:
            if target["type"] != "system":
                continue
            brew = [p for p in target.get("providers") or [] if "brew" in p]
            self.assertTrue(brew, f"{target['name']} names no Homebrew formula")
            for formula in brew[0]["brew"][0]:
                self.assertIn(formula, install["run"], f"{target['name']} needs {formula}")


if __name__ == "__main__":
    unittest.main()
