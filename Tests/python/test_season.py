"""A season of publishing, simulated over 120 days with a shifted clock (`faketime`, apt): the publisher renews the
index weekly from a scheduled job that holds only the index key, releases new content every 30 days, rotates the
index key on day 45 (a stolen key) and revokes an access code on day 60; clients install fresh or update on random
days, each on its own ascending calendar, against the published folder (file://, as DESIGN.md §8.11 asks: SeaweedFS
ignores faketime). Every client operation must succeed on every day; after day 45 an index signed by the old key is
refused; after day 60 the revoked code is refused on a client that has updated, with its reason. The same season
without renew fails by day 8, so the simulation can fail."""
import datetime
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import unittest

import required
from test_presign import REPO, packtool

START = datetime.datetime(2027, 1, 4, 9, 0, 0, tzinfo=datetime.timezone.utc)
PACK_ID = "royal-mile"
CITY_PACK = "uk.example.walks.royalmile.citypack"
PAID_STOP = "04-tron-kirk"
# How many clients, and the seed of their calendars (printed on failure so a run can be repeated).
CLIENTS = int(os.environ.get("SEASON_CLIENTS", "6"))
SEED = int(os.environ.get("SEASON_SEED", str(random.randrange(1 << 30))))


def day(n, hour=0):
    return START + datetime.timedelta(days=n, hours=hour)


class Season:
    """A publisher's state, keys, pack and published folder, and a way to run packtool on any day."""

    def __init__(self, tool, work):
        self.tool, self.work = tool, work
        self.keys = os.path.join(work, "keys")
        self.state = os.path.join(work, "state")
        self.cdn = os.path.join(work, "cdn")
        self.pack = os.path.join(work, "pack")
        shutil.copytree(os.path.join(REPO, "scenes", PACK_ID), self.pack)
        for role in ("root", "manifest", "index", "grant"):
            self.ok(0, "key", "generate", "--role", role, "--out", self.keys, "--unencrypted")
        self.ok(0, "key", "generate", "--role", "index", "--out", self.keys, "--name", "index-2", "--unencrypted")
        historian = os.path.join(self.keys, "historian.pem")
        shutil.copy(os.path.join(REPO, "keys-example", "historian.pem"), historian)
        os.chmod(historian, 0o600)
        self.index_key = os.path.join(self.keys, "index.pem")
        self.ok(0, "root", "init", "--state", self.state, "--root-key", self.key("root.pem"), "--manifest-pub", self.key("manifest.pub"),
                "--index-pub", self.key("index.pub"), "--grant-pub", self.key("grant.pub"))
        self.root1 = os.path.join(self.state, "root", "1.root.json")
        self.releases = 0

    def key(self, name):
        return os.path.join(self.keys, name)

    def run(self, n, *args, hour=0):
        """packtool on day n (UTC), through faketime."""
        at = day(n, hour).strftime("@%Y-%m-%d %H:%M:%S")
        env = dict(os.environ, TZ="UTC", XDG_STATE_HOME=os.path.join(self.work, "xdg-state"))
        return subprocess.run(["faketime", "-f", at, self.tool, *args, "--unencrypted"], capture_output=True, text=True, env=env, timeout=300)

    def ok(self, n, *args, hour=0):
        run = self.run(n, *args, hour=hour)
        if run.returncode != 0:
            raise AssertionError(f"day {n}: packtool {' '.join(args)} exited {run.returncode}\n{run.stdout}\n{run.stderr}")
        return run

    def release(self, n):
        """New content (one transcript line changed and signed off again), signed and published."""
        if self.releases:
            vtt = os.path.join(self.pack, "stops", "03-mercat-cross", "story.vtt")
            with open(vtt, encoding="utf-8") as f:
                text = f.read()
            with open(vtt, "w", encoding="utf-8") as f:
                f.write(re.sub(r"Stand here|Now stand here \(\d+\)", f"Now stand here ({self.releases})", text, count=1))
            self.ok(n, "review", "sign", os.path.join(self.pack, "stops", "03-mercat-cross"), "--reviewer-key", self.key("historian.pem"), "--reviewer", "example-historian")
        self.releases += 1
        env_epoch = str(int(day(n).timestamp()))
        run = subprocess.run(["faketime", "-f", day(n).strftime("@%Y-%m-%d %H:%M:%S"), self.tool, "sign", self.pack, "--state", self.state,
                              "--manifest-key", self.key("manifest.pem"), "--index-key", self.index_key, "--publish", self.cdn],
                             capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, TZ="UTC", SOURCE_DATE_EPOCH=env_epoch, XDG_STATE_HOME=os.path.join(self.work, "xdg-state")))
        if run.returncode != 0:
            raise AssertionError(f"day {n}: sign exited {run.returncode}\n{run.stdout}\n{run.stderr}")

    def renew(self, n, *extra):
        return self.ok(n, "renew", "--index-key", self.index_key, "--publish", self.cdn, *extra, hour=1)

    def issue(self, n, until_day):
        run = self.ok(n, "grant", "issue", "--grant-key", self.key("grant.pem"), "--products", CITY_PACK, "--not-before", day(n).strftime("%Y-%m-%d"),
                      "--not-after", day(until_day).strftime("%Y-%m-%d"), "--state", self.state, "--pack", self.pack, "--note", "season test")
        code = run.stdout.strip().splitlines()[-1]
        grant = re.search(r"grant ([0-9a-f]{8,})", run.stderr + run.stdout).group(1)
        return code, grant


class Client:
    """An app on one phone: its own install folder and client state, the season's first root pinned."""

    def __init__(self, season, name):
        self.season, self.name = season, name
        self.into = os.path.join(season.work, "clients", name)
        self.installed = False
        self.updated_after = -1

    def update(self, n, cdn=None):
        return self.season.run(n, "update", "--tree", "file://" + (cdn or self.season.cdn), "--into", self.into, "--pack", PACK_ID,
                               "--root", self.season.root1, "--quiet", hour=12)

    def access(self, n, code):
        run = self.season.run(n, "access", "--into", self.into, "--pack", PACK_ID, "--scene", PAID_STOP, "--code", code, "--format", "json", hour=13)
        if run.returncode not in (0, 1) or not run.stdout.strip().startswith("{"):
            raise AssertionError(f"day {n}: {self.name}: access failed ({run.returncode})\n{run.stdout}\n{run.stderr}")
        return json.loads(run.stdout)


class SeasonOfPublishing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        required.need_tool("faketime", "faketime")
        cls.tool = packtool()

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="packtool-season-")
        os.chmod(self.work, 0o755)

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def test_a_season_with_weekly_renew_keeps_every_client_working_through_rotation_and_revocation(self):
        season = Season(self.tool, self.work)
        rng = random.Random(SEED)
        calendars = {f"phone-{i}": sorted(rng.sample(range(0, 121), rng.randint(8, 20))) for i in range(CLIENTS)}
        # One phone starts late (a first install long after the release) and one installs on day 8 exactly.
        calendars["phone-0"] = sorted(set(calendars["phone-0"]) | {8, 46, 61})
        calendars["phone-late"] = [100, 119, 120]
        clients = {name: Client(season, name) for name in calendars}
        season.release(0)
        lost_code, lost = season.issue(0, 150)
        kept_code, _ = season.issue(0, 150)
        old_key_index = None
        counts = {"updates": 0, "decisions": 0, "replays refused": 0, "revoked refusals": 0}
        for n in range(0, 121):
            if n and n % 30 == 0:
                season.release(n)
            if n == 44:
                # A thief's copy of the index key (the old one) signs a fresh index for day 50 on a copy of the tree
                # as it is before the rotation: replayed after day 45 it must be refused.
                stolen = os.path.join(self.work, "stolen")
                shutil.copytree(season.cdn, stolen)
                season.ok(50, "renew", "--index-key", season.index_key, "--publish", stolen, "--force")
                with open(os.path.join(stolen, "index.json"), "rb") as f:
                    old_key_index = f.read()
            if n == 45:
                season.index_key = season.key("index-2.pem")
                season.ok(n, "root", "rotate", "--state", season.state, "--sign-with", season.key("root.pem"), "--index-key", season.index_key,
                          "--publish", season.cdn, hour=1)
            if n == 60:
                season.ok(n, "grant", "revoke", lost, "--reason", "lost at the museum desk", "--state", season.state, "--grant-key", season.key("grant.pem"))
                season.renew(n, "--state", season.state)
            elif n % 7 == 0 and n:
                season.renew(n)
            for name, client in clients.items():
                if n not in calendars[name]:
                    continue
                run = client.update(n)
                self.assertEqual(run.returncode, 0, f"seed {SEED}: day {n}: {name}: update failed\n{run.stdout}\n{run.stderr}")
                client.installed = True
                client.updated_after = n
                counts["updates"] += 1
                kept = client.access(n, kept_code)
                self.assertTrue(kept["allowed"], f"seed {SEED}: day {n}: {name}: a valid code was refused: {kept}")
                lost_decision = client.access(n, lost_code)
                counts["decisions"] += 2
                if n >= 60:
                    counts["revoked refusals"] += 1
                    self.assertFalse(lost_decision["allowed"], f"seed {SEED}: day {n}: {name}: the revoked code still opens: {lost_decision}")
                    self.assertIn("lost at the museum desk", lost_decision["reason"])
                else:
                    self.assertTrue(lost_decision["allowed"], f"seed {SEED}: day {n}: {name}: {lost_decision}")
                if n > 45 and old_key_index is not None:
                    replay = os.path.join(self.work, "replay")
                    shutil.rmtree(replay, ignore_errors=True)
                    shutil.copytree(season.cdn, replay)
                    with open(os.path.join(replay, "index.json"), "wb") as f:
                        f.write(old_key_index)
                    refused = client.update(n, cdn=replay)
                    self.assertEqual(refused.returncode, 1, f"seed {SEED}: day {n}: {name}: an index signed by the retired key was not refused\n{refused.stderr}")
                    self.assertIn("threshold", refused.stderr)
                    counts["replays refused"] += 1
        self.assertTrue(all(c.installed for c in clients.values()))
        print(f"\n  seed {SEED}: {len(clients)} phones, " + ", ".join(f"{v} {k}" for k, v in counts.items()), end=" ")
        self.assertTrue(counts["replays refused"] and counts["revoked refusals"], "the calendars reached past days 45 and 60")
        status = season.run(120, "status", "--state", season.state, "--tree", season.cdn, hour=2)
        self.assertEqual(status.returncode, 0, status.stdout + status.stderr)
        index = json.loads(subprocess.run(["python3", "-c", "import json,base64,sys; e=json.load(open(sys.argv[1])); print(base64.b64decode(e['payload']).decode())",
                                           os.path.join(season.cdn, "index.json")], capture_output=True, text=True, check=True).stdout)
        self.assertEqual(index["packs"][PACK_ID]["version"], 5, "releases on days 0, 30, 60, 90 and 120")
        self.assertEqual(index["rootVersion"], 2)
        self.assertEqual(index["revocations"]["version"], 1)

    def test_the_same_season_without_renew_fails_by_day_8(self):
        season = Season(self.tool, self.work)
        season.release(0)
        fresh = Client(season, "phone")
        self.assertEqual(fresh.update(6).returncode, 0)
        late = Client(season, "late-phone")
        run = late.update(8)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("expired", run.stderr)
        self.assertEqual(fresh.update(8).returncode, 1, "an installed client cannot update either")
        status = season.run(5, "status", "--state", season.state, "--tree", season.cdn)
        self.assertEqual(status.returncode, 1, "status warns two days before the index expires")
        season.renew(5)
        self.assertEqual(season.run(5, "status", "--state", season.state, "--tree", season.cdn).returncode, 0)


if __name__ == "__main__":
    unittest.main()
