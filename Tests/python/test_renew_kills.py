"""`renew --manifest-key` SIGKILLed at random moments of a re-release (archive written, tree half-populated, ledger
not yet recorded, index not yet swapped): the next run always completes, and the tree and the ledger verify. Rounds:
RENEW_KILL_RUNS (default 12)."""
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import dsse

from test_presign import REPO, packtool

ROUNDS = int(os.environ.get("RENEW_KILL_RUNS", "12"))
KEYS = os.path.join(REPO, "keys-example")


class RenewKilled(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tool = packtool()
        dsse.example_keys()

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="packtool-renew-kill-")
        self.env = dict(os.environ, XDG_STATE_HOME=os.path.join(self.work, "xdg-state"))

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def run_tool(self, *args):
        return subprocess.run([self.tool, *args], capture_output=True, text=True, env=self.env, timeout=300)

    def test_a_rerelease_killed_at_any_moment_is_completed_by_the_next_run(self):
        base = os.path.join(self.work, "base")
        state, cdn = os.path.join(base, "state"), os.path.join(base, "cdn")
        self.assertEqual(self.run_tool("root", "init", "--state", state, "--root-key", f"{KEYS}/root.pem", "--manifest-pub", f"{KEYS}/manifest.pub",
                                       "--index-pub", f"{KEYS}/index.pub", "--grant-pub", f"{KEYS}/grant.pub").returncode, 0)
        signed = self.run_tool("sign", os.path.join(REPO, "scenes/royal-mile"), "--state", state, "--manifest-key", f"{KEYS}/manifest.pem",
                               "--index-key", f"{KEYS}/index.pem", "--publish", cdn, "--manifest-days", "10")
        self.assertEqual(signed.returncode, 0, signed.stderr)
        renew = lambda s, c: [self.tool, "renew", "--index-key", f"{KEYS}/index.pem", "--publish", c, "--state", s, "--manifest-key", f"{KEYS}/manifest.pem"]
        started = time.monotonic()
        trial = os.path.join(self.work, "trial")
        shutil.copytree(base, trial, symlinks=True)
        self.assertEqual(subprocess.run(renew(os.path.join(trial, "state"), os.path.join(trial, "cdn")), capture_output=True, env=self.env).returncode, 0)
        span = time.monotonic() - started
        rng = random.Random()
        killed = once_more = 0
        for n in range(ROUNDS):
            round_dir = os.path.join(self.work, f"round-{n}")
            shutil.copytree(base, round_dir, symlinks=True)
            s, c = os.path.join(round_dir, "state"), os.path.join(round_dir, "cdn")
            shutil.rmtree(os.path.join(self.work, "xdg-state"), ignore_errors=True)
            process = subprocess.Popen(renew(s, c), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
            time.sleep(rng.uniform(0, span))
            process.send_signal(signal.SIGKILL)
            killed += process.wait() == -signal.SIGKILL
            again = self.run_tool(*renew(s, c)[1:])
            self.assertEqual(again.returncode, 0, f"round {n}: the run after a kill failed\n{again.stdout}\n{again.stderr}")
            verified = self.run_tool("verify", c, "--root", os.path.join(s, "root", "1.root.json"))
            self.assertEqual(verified.returncode, 0, f"round {n}: {verified.stdout}{verified.stderr}")
            # The re-release is listed: version 2, or 3 when the kill came between the ledger's record of 2 and the
            # index swap (the ledger records just before the swap), so the next run re-released once more.
            listed = re.search(r"royal-mile: version (\d+),", verified.stdout)
            self.assertIsNotNone(listed, f"round {n}: {verified.stdout}")
            self.assertIn(listed.group(1), ("2", "3"), f"round {n}: the re-release is listed\n{verified.stdout}")
            once_more += listed.group(1) == "3"
            ledger = self.run_tool("ledger", "verify", "--state", s, "--deep")
            self.assertEqual(ledger.returncode, 0, f"round {n}: {ledger.stdout}{ledger.stderr}")
            shutil.rmtree(round_dir)
        print(f"\n  {ROUNDS} re-releases, {killed} killed part-way (the rest had finished), {once_more} killed between the ledger's "
              f"record and the swap (re-released once more); every next run completed and the ledger verified", end=" ")


if __name__ == "__main__":
    unittest.main()
