"""scripts/check-privacy-manifest.py: the client's PrivacyInfo.xcprivacy is a valid manifest that declares every
required-reason API category the client modules call (issue 30: without it App Store Connect rejects the app with
ITMS-91053), and the check fails when code calls an API of a category the manifest leaves out."""
import os
import plistlib
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "check-privacy-manifest.py")
MANIFEST = os.path.join(REPO, "Sources", "PackPrivacy", "PrivacyInfo.xcprivacy")


class PrivacyManifest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="packtool-privacy-")

    def run_check(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def source(self, text):
        folder = os.path.join(self.work, "src")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "File.swift"), "w") as f:
            f.write(text)
        return folder

    def manifest(self, entries, **top):
        path = os.path.join(self.work, "PrivacyInfo.xcprivacy")
        plist = {"NSPrivacyTracking": False, "NSPrivacyTrackingDomains": [], "NSPrivacyCollectedDataTypes": [],
                 "NSPrivacyAccessedAPITypes": [{"NSPrivacyAccessedAPIType": c, "NSPrivacyAccessedAPITypeReasons": r} for c, r in entries]}
        plist.update(top)
        with open(path, "wb") as f:
            plistlib.dump(plist, f)
        return path

    def test_the_clients_manifest_declares_every_category_its_code_calls(self):
        run = self.run_check()
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("FileTimestamp", run.stdout)
        with open(MANIFEST, "rb") as f:
            plist = plistlib.load(f)
        self.assertIs(plist["NSPrivacyTracking"], False)
        reasons = {e["NSPrivacyAccessedAPIType"]: e["NSPrivacyAccessedAPITypeReasons"] for e in plist["NSPrivacyAccessedAPITypes"]}
        self.assertEqual(reasons["NSPrivacyAccessedAPICategoryFileTimestamp"], ["C617.1"])

    def test_a_call_of_an_undeclared_category_is_named_with_its_line(self):
        folder = self.source("import Darwin\n// statfs( in a comment is not a call\nlet free = statfs(path, &info)\n")
        # A manifest without the disk-space category (the client's own declares it: its install checks free space).
        manifest = self.manifest([("NSPrivacyAccessedAPICategoryFileTimestamp", ["C617.1"]), ("NSPrivacyAccessedAPICategorySystemBootTime", ["35F9.1"])])
        run = self.run_check("--manifest", manifest, "--sources", folder)
        self.assertEqual(run.returncode, 1)
        self.assertIn("File.swift:3: calls a NSPrivacyAccessedAPICategoryDiskSpace API", run.stdout)

    def test_a_manifest_without_file_timestamps_fails_for_code_that_stats_files(self):
        manifest = self.manifest([("NSPrivacyAccessedAPICategorySystemBootTime", ["35F9.1"])])
        run = self.run_check("--manifest", manifest, "--sources", self.source("var info = stat()\nguard fstat(fd, &info) == 0 else { return }\n"))
        self.assertEqual(run.returncode, 1)
        self.assertIn("File.swift:2: calls a NSPrivacyAccessedAPICategoryFileTimestamp API", run.stdout)

    def test_a_malformed_manifest_or_an_unapproved_reason_is_refused(self):
        bad = os.path.join(self.work, "bad.xcprivacy")
        with open(bad, "w") as f:
            f.write("<plist><dict><key>NSPrivacyTracking</key>")
        self.assertEqual(self.run_check("--manifest", bad).returncode, 1)
        made_up = self.manifest([("NSPrivacyAccessedAPICategoryFileTimestamp", ["XXXX.1"])])
        run = self.run_check("--manifest", made_up)
        self.assertEqual(run.returncode, 1)
        self.assertIn("XXXX.1 is not an approved reason", run.stdout)
        no_tracking_key = self.manifest([], NSPrivacyTracking="no")
        self.assertIn("NSPrivacyTracking is missing or not a bool", self.run_check("--manifest", no_tracking_key).stdout)


if __name__ == "__main__":
    unittest.main()
