"""A scheduled `renew` and a `sign --publish` started together, again and again, against a real SeaweedFS (its S3 API
honours If-Match / If-None-Match on PUT) and against a local folder: whichever writes the index first, the final
index always lists the new release and carries the highest index version either writer reported — a renew never
rolls back a release, a release never loses to a renew. Rounds: RACE_ROUNDS (default 50)."""
import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import random
import unittest

import dsse
import required
from test_presign import REPO, SeaweedFS, packtool
from test_presign import environment as store_environment

ROUNDS = int(os.environ.get("RACE_ROUNDS", "50"))
KEYS = os.path.join(REPO, "keys-example")


def payload(envelope_bytes):
    return json.loads(base64.b64decode(json.loads(envelope_bytes)["payload"]))


class IndexRace(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tool = packtool()
        dsse.example_keys()

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="packtool-race-")
        self.state = os.path.join(self.work, "state")
        dsse.root_init(self.tool, self.state)

    def environment(self):
        """The store's credentials, and this test's own memory of trees (renew keeps one per machine)."""
        return store_environment(XDG_STATE_HOME=os.path.join(self.work, "xdg-state"))

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def race(self, destination, read_index, extra=()):
        sign = [self.tool, "sign", os.path.join(REPO, "scenes/royal-mile"), "--state", self.state, "--manifest-key", f"{KEYS}/manifest.pem",
                "--index-key", f"{KEYS}/index.pem", "--publish", destination, *extra]
        started = time.monotonic()
        first = subprocess.run(sign + ["--version", "1"], capture_output=True, text=True, env=self.environment(), timeout=300)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        # Each renew starts at a random moment within a sign's run, so over the rounds its index write lands before,
        # during and after the sign's.
        span = time.monotonic() - started
        rng = random.Random()
        renewals_that_built_on_another = releases_after_a_renew = 0
        for release in range(2, ROUNDS + 2):
            # Same content, a new version each round (a re-release), so every round has a release to lose.
            signing = subprocess.Popen(sign + ["--version", str(release)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.environment())
            time.sleep(rng.uniform(0, span * 1.1))
            writers = [signing,
                       subprocess.Popen([self.tool, "renew", "--index-key", f"{KEYS}/index.pem", "--publish", destination, "--force", *extra],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.environment())]
            outputs = [w.communicate(timeout=300) for w in writers]
            for w, (out, err) in zip(writers, outputs):
                self.assertEqual(w.returncode, 0, f"round {release}: {' '.join(w.args[:2])} failed\n{out}\n{err}")
            seen = [int(v) for out, _ in outputs for v in re.findall(r"index(?:\.json)?[^\n]*version (\d+)", out)]
            self.assertTrue(seen, f"round {release}: no index version reported\n{outputs}")
            renewals_that_built_on_another += "built on another writer" in outputs[1][0]
            sign_versions = [int(v) for v in re.findall(r"index(?:\.json)?[^\n]*version (\d+)", outputs[0][0])]
            renew_versions = [int(v) for v in re.findall(r"version (\d+)", outputs[1][0])]
            self.assertTrue(sign_versions and renew_versions, f"round {release}: no index version reported\n{outputs}")
            sign_version, renew_version = max(sign_versions), max(renew_versions)
            releases_after_a_renew += sign_version > renew_version
            index = payload(read_index())
            self.assertEqual(index["packs"]["royal-mile"]["version"], release, f"round {release}: the release was lost: {index}")
            self.assertEqual(index["version"], max(seen), f"round {release}: the index is not the newest either writer wrote ({seen})")
        print(f"\n  {ROUNDS} rounds: a renew lost the race and rebuilt on the release's index {renewals_that_built_on_another} times; "
              f"the release was written over a renew's index {releases_after_a_renew} times", end=" ")

    def test_renew_and_sign_racing_on_a_folder_never_lose_a_release(self):
        cdn = os.path.join(self.work, "cdn")
        def read():
            with open(os.path.join(cdn, "index.json"), "rb") as f:
                return f.read()
        self.race(cdn, read)

    def test_renew_and_sign_racing_on_seaweedfs_never_lose_a_release(self):
        required.need_weed()
        store = SeaweedFS()
        try:
            self.race("s3://public/race", lambda: store.client.get_object(Bucket="public", Key="race/index.json")["Body"].read(),
                      extra=("--endpoint", store.endpoint))
        finally:
            store.stop()

    def test_signing_into_another_catalogues_bucket_sends_signs_and_records_nothing(self):
        required.need_weed()
        store = SeaweedFS()
        try:
            # Another publisher's catalogue, with keys of its own.
            other = os.path.join(self.work, "other")
            for role in ("root", "manifest", "index", "grant"):
                subprocess.run([self.tool, "key", "generate", "--role", role, "--out", f"{other}/keys", "--unencrypted"], check=True, capture_output=True)
            subprocess.run([self.tool, "root", "init", "--state", f"{other}/state", "--root-key", f"{other}/keys/root.pem", "--manifest-pub", f"{other}/keys/manifest.pub",
                            "--index-pub", f"{other}/keys/index.pub", "--grant-pub", f"{other}/keys/grant.pub"], check=True, capture_output=True)
            theirs = subprocess.run([self.tool, "sign", os.path.join(REPO, "scenes/royal-mile"), "--state", f"{other}/state", "--manifest-key", f"{other}/keys/manifest.pem",
                                     "--index-key", f"{other}/keys/index.pem", "--publish", "s3://public/theirs", "--endpoint", store.endpoint],
                                    capture_output=True, text=True, env=self.environment(), timeout=300)
            self.assertEqual(theirs.returncode, 0, theirs.stderr)
            listing = lambda: sorted((o["Key"], o["ETag"]) for o in store.client.list_objects_v2(Bucket="public", Prefix="theirs/").get("Contents", []))
            before = listing()
            ours = subprocess.run([self.tool, "sign", os.path.join(REPO, "scenes/royal-mile"), "--state", self.state, "--manifest-key", f"{KEYS}/manifest.pem",
                                   "--index-key", f"{KEYS}/index.pem", "--publish", "s3://public/theirs", "--endpoint", store.endpoint, "--version", "7"],
                                  capture_output=True, text=True, env=self.environment(), timeout=300)
            self.assertEqual(ours.returncode, 1, ours.stdout + ours.stderr)
            self.assertIn("not an index this catalogue signed", ours.stderr)
            self.assertEqual(listing(), before, "nothing was sent into the other catalogue")
            self.assertFalse(os.path.exists(os.path.join(self.state, "ledger.sqlite")), "nothing was recorded")
        finally:
            store.stop()


if __name__ == "__main__":
    unittest.main()
