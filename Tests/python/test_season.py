"""A season of publishing, simulated over 120 days with a shifted clock (`faketime`, apt), with its bad days rehearsed
as drills (issue 41). The publisher renews the index daily from a scheduled job that holds only the index key (a
"cron machine" with its own memory), releases new content every 30 days, and on incident days:

- day 10  revokes an access code lost at the museum desk;
- day 12  someone who can write to the host puts back the index from day 9 (it binds no revocation list): the cron
          renew on a fresh machine must refuse it, status must call it critical, and `renew --state` repairs it;
- day 40  the grant key is stolen (the thief prints a code with it): one `root rotate --grant-key` signs the list again
          under the new key and binds it; genuine codes are re-issued with the new key;
- day 45  the index key is stolen (the thief signs an index on a copy of the tree): one `root rotate --index-key`;
- day 70  the manifest key is stolen: one `root rotate --manifest-key` re-releases every pack from the ledger;
- day 80  the cron job runs on a machine whose clock is a week ahead: status calls it critical, a renew at the right time
          repairs it;
- day 100 a root key is stolen: the root role moves to a new key;
- day 110 the historian's key is stolen: pack.json lists a new one, `review sign PACK` signs every stop again, and the
          next release ships only sign-offs by the new key.

Clients install fresh or update on random days, each on its own ascending calendar, against the published folder
(file://, DESIGN.md §8.11: SeaweedFS ignores faketime). Every client operation on every calendared day succeeds; after
each drill the stolen key's documents are refused; the revoked code never opens again on any client, fresh or updated.
The same season without renew fails by day 8, so the simulation can fail."""
import base64
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


def payload(path):
    with open(path, encoding="utf-8") as f:
        return json.loads(base64.b64decode(json.load(f)["payload"]))


class Season:
    """A publisher's state, keys, pack and published folder, and a way to run packtool on any day, on any machine."""

    def __init__(self, tool, work):
        self.tool, self.work = tool, work
        self.keys = os.path.join(work, "keys")
        self.state = os.path.join(work, "state")
        self.cdn = os.path.join(work, "cdn")
        self.pack = os.path.join(work, "pack")
        shutil.copytree(os.path.join(REPO, "scenes", PACK_ID), self.pack)
        # Keys at rest are encrypted (issue 41); the jobs read the passphrase from a file, as cron and CI do.
        self.passphrase = os.path.join(work, "passphrase")
        with open(self.passphrase, "w") as f:
            f.write("the season's passphrase\n")
        os.chmod(self.passphrase, 0o600)
        for role, name in [("root", "root"), ("manifest", "manifest"), ("index", "index"), ("grant", "grant"),
                           ("index", "index-2"), ("grant", "grant-2"), ("manifest", "manifest-2"), ("root", "root-2"), ("reviewer", "historian-2")]:
            self.ok(0, "key", "generate", "--role", role, "--out", self.keys, "--id", name)
        historian = os.path.join(self.keys, "historian.pem")
        shutil.copy(os.path.join(REPO, "keys-example", "historian.pem"), historian)
        os.chmod(historian, 0o600)
        self.historian = historian
        self.index_key, self.grant_key, self.manifest_key, self.root_key = (self.key(n + ".pem") for n in ("index", "grant", "manifest", "root"))
        self.ok(0, "root", "init", "--state", self.state, "--root-key", self.root_key, "--manifest-pub", self.key("manifest.pub"),
                "--index-pub", self.key("index.pub"), "--grant-pub", self.key("grant.pub"))
        self.root1 = os.path.join(self.state, "root", "1.root.json")
        self.releases = 0

    def key(self, name):
        return os.path.join(self.keys, name)

    def run(self, n, *args, hour=0, machine="publisher", extra_env=None):
        """packtool on day n (UTC), through faketime, on `machine` (its own memory of trees: XDG_STATE_HOME)."""
        at = day(n, hour).strftime("@%Y-%m-%d %H:%M:%S")
        env = dict(os.environ, TZ="UTC", XDG_STATE_HOME=os.path.join(self.work, "machines", machine), PACKTOOL_PASSPHRASE_FILE=self.passphrase)
        env.update(extra_env or {})
        return subprocess.run(["faketime", "-f", at, self.tool, *args], capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)

    def ok(self, n, *args, hour=0, machine="publisher", extra_env=None, allow=(0,)):
        run = self.run(n, *args, hour=hour, machine=machine, extra_env=extra_env)
        if run.returncode not in allow:
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
            self.ok(n, "review", "sign", os.path.join(self.pack, "stops", "03-mercat-cross"), "--reviewer-key", self.historian, "--reviewer", "example-historian")
        self.releases += 1
        self.ok(n, "sign", self.pack, "--state", self.state, "--manifest-key", self.manifest_key, "--index-key", self.index_key, "--publish", self.cdn,
                extra_env={"SOURCE_DATE_EPOCH": str(int(day(n).timestamp()))})

    def cron_renew(self, n, machine="cron", hour=1, allow=(0,)):
        """The scheduled job: the index key and the tree, nothing else (no --state)."""
        return self.ok(n, "renew", "--index-key", self.index_key, "--publish", self.cdn, "--quiet", "--wait", "2", hour=hour, machine=machine, allow=allow)

    def status(self, n, hour):
        return self.run(n, "status", "--state", self.state, "--tree", self.cdn, "--format", "json", hour=hour)

    def issue(self, n, until_day):
        run = self.ok(n, "grant", "issue", "--grant-key", self.grant_key, "--products", CITY_PACK, "--not-before", day(n).strftime("%Y-%m-%d"),
                      "--not-after", day(until_day).strftime("%Y-%m-%d"), "--state", self.state, "--pack-dir", self.pack, "--note", "season test")
        code = run.stdout.strip().splitlines()[-1]
        grant = re.search(r"grant ([0-9a-f]{8,})", run.stderr + run.stdout).group(1)
        return code, grant

    def index(self, tree=None):
        return payload(os.path.join(tree or self.cdn, "index.json"))


class Client:
    """An app on one phone: its own install folder and client state, the season's first root pinned."""

    def __init__(self, season, name):
        self.season, self.name = season, name
        self.into = os.path.join(season.work, "clients", name)
        self.installed = False

    def update(self, n, cdn=None, hour=12):
        return self.season.run(n, "update", "--tree", cdn or self.season.cdn, "--into", self.into, "--pack", PACK_ID,
                               "--root", self.season.root1, "--quiet", hour=hour, machine="phone-" + self.name)

    def access(self, n, code, hour=13):
        run = self.season.run(n, "access", "--into", self.into, "--pack", PACK_ID, "--scene", PAID_STOP, "--code", code, "--format", "json", hour=hour)
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

    def assertRefusedWith(self, run, code, what):
        self.assertEqual(run.returncode, 1, f"seed {SEED}: {what} was not refused\n{run.stdout}\n{run.stderr}")
        self.assertIn(f"[{code}]", run.stderr, f"seed {SEED}: {what}")

    def test_a_season_with_its_incidents_keeps_every_client_working_and_every_stolen_key_refused(self):
        season = Season(self.tool, self.work)
        rng = random.Random(SEED)
        calendars = {f"phone-{i}": sorted(rng.sample(range(0, 121), rng.randint(8, 20))) for i in range(CLIENTS)}
        # One phone is there on every incident day; one starts late (a first install long after the release); one
        # installs for the first time on the day after each drill.
        calendars["phone-0"] = sorted(set(calendars["phone-0"]) | {8, 12, 41, 46, 71, 80, 101, 111})
        calendars["phone-late"] = [100, 119, 120]
        for first in (13, 41, 46, 71, 81, 101, 111):
            calendars[f"phone-new-{first}"] = [first]
        clients = {name: Client(season, name) for name in calendars}
        season.release(0)
        lost_code, lost = season.issue(0, 150)
        kept_code, _ = season.issue(0, 150)
        counts = {"updates": 0, "decisions": 0, "drills": 0, "stolen documents refused": 0, "revoked refusals": 0}
        put_back = thief_code = old_index = pre_manifest_rotation = None
        for n in range(0, 121):
            renewed_by_drill = False
            if n and n % 30 == 0:
                season.release(n)
            if n == 9:
                put_back = season.index()   # kept to be put back on day 12; read from the tree below
                shutil.copy(os.path.join(season.cdn, "index.json"), os.path.join(self.work, "index-day-9.json"))
            if n == 10:
                # Typed in capitals from the museum's e-mail: the ledger still finds it, and the list carries it canonically.
                season.ok(n, "grant", "revoke", lost.upper(), "--reason", "lost at the museum desk", "--state", season.state,
                          "--grant-key", season.grant_key, hour=1)
                season.ok(n, "renew", "--state", season.state, "--index-key", season.index_key, "--publish", season.cdn, hour=1)
                self.assertEqual(season.index()["revocations"]["version"], 1)
                renewed_by_drill = True
            if n == 12:
                # Someone who can write to the host puts the day-9 index back (valid until day 16, binding no list).
                self.assertNotIn("revocations", put_back)
                shutil.copy(os.path.join(self.work, "index-day-9.json"), os.path.join(season.cdn, "index.json"))
                refused = season.cron_renew(n, machine="fresh-ci-runner", allow=(2,))
                self.assertIn("binds revocation list none, below version 1", refused.stderr)
                self.assertNotIn("revocations", season.index(), "the put-back index was not signed again")
                alarm = season.status(n, hour=2)
                self.assertEqual(alarm.returncode, 2, alarm.stdout)
                self.assertIn("An older index was put back", alarm.stdout)
                season.ok(n, "renew", "--state", season.state, "--index-key", season.index_key, "--publish", season.cdn, hour=3, allow=(0, 1))
                self.assertEqual(season.index()["revocations"]["version"], 1)
                counts["drills"] += 1
                renewed_by_drill = True
            if n == 39:
                thief_code, _ = season.issue(n, 150)   # printed with the grant key the thief has
            if n == 40:
                season.ok(n, "root", "rotate", "--state", season.state, "--sign-with", season.root_key, "--grant-key", season.key("grant-2.pem"),
                          "--index-key", season.index_key, "--publish", season.cdn, hour=1)
                season.grant_key = season.key("grant-2.pem")
                kept_code, _ = season.issue(n, 150)   # genuine codes re-issued under the new key
                self.assertEqual(season.index()["revocations"]["version"], 2, "the list, signed again under the new key, is bound")
                counts["drills"] += 1
                renewed_by_drill = True
            if n == 44:
                # A thief's copy of the index key (the old one) signs a fresh index for day 50 on a copy of the tree
                # as it is before the rotation: replayed after day 45 it must be refused.
                stolen = os.path.join(self.work, "stolen")
                shutil.copytree(season.cdn, stolen)
                season.ok(50, "renew", "--index-key", season.index_key, "--publish", stolen, "--force", machine="thief", allow=(0, 1))
                with open(os.path.join(stolen, "index.json"), "rb") as f:
                    old_index = f.read()
            if n == 45:
                season.ok(n, "root", "rotate", "--state", season.state, "--sign-with", season.root_key, "--index-key", season.key("index-2.pem"),
                          "--publish", season.cdn, hour=1)
                season.index_key = season.key("index-2.pem")
                counts["drills"] += 1
                renewed_by_drill = True
            if n == 69:
                pre_manifest_rotation = os.path.join(self.work, "pre-manifest-rotation")
                shutil.copytree(season.cdn, pre_manifest_rotation)
            if n == 70:
                season.ok(n, "root", "rotate", "--state", season.state, "--sign-with", season.root_key, "--manifest-key", season.key("manifest-2.pem"),
                          "--index-key", season.index_key, "--publish", season.cdn, hour=1)
                season.manifest_key = season.key("manifest-2.pem")
                counts["drills"] += 1
                renewed_by_drill = True
            if n == 80:
                # The cron job runs on a machine whose clock is a week ahead.
                season.ok(n + 7, "renew", "--index-key", season.index_key, "--publish", season.cdn, "--force", "--quiet", hour=1, machine="cron", allow=(0, 1))
                alarm = season.status(n, hour=2)
                self.assertEqual(alarm.returncode, 2, alarm.stdout)
                self.assertIn('"code" : "clock-skew"', alarm.stdout)
                probe = Client(season, "probe-80")
                self.assertRefusedWith(probe.update(n, hour=2), "clock-skew", "an index created a week ahead")
                repair = season.cron_renew(n, machine="publisher", hour=3, allow=(1,))
                self.assertIn("ahead of this machine's clock", repair.stderr)
                self.assertEqual(season.status(n, hour=4).returncode, 0)
                counts["drills"] += 1
                renewed_by_drill = True
            if n == 100:
                season.ok(n, "root", "rotate", "--state", season.state, "--sign-with", season.root_key, "--root-key", season.key("root-2.pem"),
                          "--publish", season.cdn, hour=1)
                season.root_key = season.key("root-2.pem")
                counts["drills"] += 1
            if n == 110:
                # The historian's key is stolen: pack.json lists the new one, and every stop is signed again with it.
                pack_json = os.path.join(season.pack, "pack.json")
                with open(pack_json, encoding="utf-8") as f:
                    text = f.read()
                new_key = season.ok(n, "inspect", season.key("historian-2.pub")).stdout
                raw = re.search(r"public key: ([0-9a-f]{64})", new_key).group(1)
                old_raw = re.search(r'"publicKey"\s*:\s*"([0-9a-f]{64})"', text).group(1)
                with open(pack_json, "w", encoding="utf-8") as f:
                    f.write(text.replace(old_raw, raw))
                stale = season.run(n, "sign", season.pack, "--state", season.state, "--manifest-key", season.manifest_key, "--index-key", season.index_key,
                                   "--publish", season.cdn, "--version", "99")
                self.assertNotEqual(stale.returncode, 0, "sign-offs by the stolen key no longer count")
                season.historian = season.key("historian-2.pem")
                signed = season.ok(n, "review", "sign", season.pack, "--reviewer-key", season.historian, "--reviewer", "example-historian")
                self.assertEqual(sum(line.startswith("signed ") for line in signed.stdout.splitlines()), 7, signed.stdout)
                season.release(n)
                counts["drills"] += 1
            if n and not renewed_by_drill:
                season.cron_renew(n, allow=(0, 1))

            for name, client in clients.items():
                if n not in calendars[name]:
                    continue
                run = client.update(n)
                self.assertEqual(run.returncode, 0, f"seed {SEED}: day {n}: {name}: update failed\n{run.stdout}\n{run.stderr}")
                client.installed = True
                counts["updates"] += 1
                kept = client.access(n, kept_code)
                self.assertTrue(kept["allowed"], f"seed {SEED}: day {n}: {name}: a valid code was refused: {kept}")
                lost_decision = client.access(n, lost_code)
                counts["decisions"] += 2
                if n >= 10:
                    counts["revoked refusals"] += 1
                    self.assertFalse(lost_decision["allowed"], f"seed {SEED}: day {n}: {name}: the revoked code still opens: {lost_decision}")
                    if n < 40:
                        self.assertIn("lost at the museum desk", lost_decision["reason"])
                else:
                    self.assertTrue(lost_decision["allowed"], f"seed {SEED}: day {n}: {name}: {lost_decision}")
                if n > 40:
                    thief = client.access(n, thief_code)
                    self.assertFalse(thief["allowed"], f"seed {SEED}: day {n}: {name}: the stolen grant key's code opens: {thief}")
                    counts["stolen documents refused"] += 1
                if n > 45 and old_index is not None:
                    replay = os.path.join(self.work, "replay")
                    shutil.rmtree(replay, ignore_errors=True)
                    shutil.copytree(season.cdn, replay)
                    with open(os.path.join(replay, "index.json"), "wb") as f:
                        f.write(old_index)
                    self.assertRefusedWith(client.update(n, cdn=replay), "threshold", f"day {n}: {name}: an index signed by the retired index key")
                    counts["stolen documents refused"] += 1
                if 70 < n < 75 and pre_manifest_rotation is not None:   # the day-68 index it holds expires on day 75
                    # The tree from before the rotation, with the new root beside it: its manifest is the old key's.
                    old_release = os.path.join(self.work, "old-release")
                    shutil.rmtree(old_release, ignore_errors=True)
                    shutil.copytree(pre_manifest_rotation, old_release)
                    for name_ in os.listdir(os.path.join(season.cdn, "root")):
                        shutil.copy(os.path.join(season.cdn, "root", name_), os.path.join(old_release, "root", name_))
                    fresh = Client(season, f"fresh-{name}-{n}")
                    run = fresh.update(n, cdn=old_release)
                    self.assertNotEqual(run.returncode, 0, f"seed {SEED}: day {n}: a manifest signed by the retired manifest key installed")
                    self.assertIn("[threshold]", run.stderr)
                    counts["stolen documents refused"] += 1
        self.assertTrue(all(c.installed for c in clients.values()))
        print(f"\n  seed {SEED}: {len(clients)} phones, " + ", ".join(f"{v} {k}" for k, v in counts.items()), end=" ")
        self.assertEqual(counts["drills"], 7)
        self.assertTrue(counts["stolen documents refused"] and counts["revoked refusals"], "the calendars reached past the drills")
        status = season.run(120, "status", "--state", season.state, "--tree", season.cdn, hour=2)
        self.assertEqual(status.returncode, 0, status.stdout + status.stderr)
        index = season.index()
        self.assertEqual(index["packs"][PACK_ID]["version"], 7, "releases on days 0, 30, 60, 90, 110 and 120, and the re-release of day 70")
        self.assertEqual(index["rootVersion"], 5, "grant, index, manifest and root rotations")
        self.assertEqual(index["revocations"]["version"], 2)
        revoked = payload(os.path.join(season.cdn, index["revocations"]["path"]))["revoked"]
        self.assertEqual([r["id"] for r in revoked], [lost], "written in canonical form though typed in capitals")

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
        # At noon on day 5, a day and a half before the index signed at midnight on day 0 expires: well inside the
        # two-day horizon (at midnight it would be exactly two days, and which side wins would depend on how long
        # the release took to sign under faketime's running clock).
        status = season.run(5, "status", "--state", season.state, "--tree", season.cdn, hour=12)
        self.assertEqual(status.returncode, 1, "status warns two days before the index expires: " + status.stdout + status.stderr)
        self.assertEqual(season.run(8, "status", "--state", season.state, "--tree", season.cdn).returncode, 2, "and is critical once clients refuse")
        season.cron_renew(5)
        self.assertEqual(season.run(5, "status", "--state", season.state, "--tree", season.cdn, hour=2).returncode, 0)


if __name__ == "__main__":
    unittest.main()
