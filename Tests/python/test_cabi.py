"""libpackverify through Python ctypes, as a non-Swift runtime uses it: JSON in, JSON out, every result freed with
packverify_free. The pack is published with fresh keys by the built packtool."""
import base64
import ctypes
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

import dsse
from datetime import datetime, timedelta, timezone

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def bin_path():
    """The debug build's folder with libpackverify and packtool: PACKTOOL_BIN_DIR under `make test`, which builds both
    first; run alone, the suite builds them."""
    if os.environ.get("PACKTOOL_BIN_DIR"):
        return os.environ["PACKTOOL_BIN_DIR"]
    subprocess.run(["swift", "build", "--product", "packtool"], cwd=REPO, check=True, capture_output=True)
    # The library under the name it ships as (libpackverify.so.1), laid out beside SwiftPM's libPackVerifyC.so.
    return subprocess.run([os.path.join(REPO, "scripts", "libpackverify.sh")], cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()


# packverify_cancel_progress_fn: int (*)(const char *progress_json, void *context); non-zero cancels.
CANCEL_PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class CABI(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.build = bin_path()
        cls.work = tempfile.mkdtemp(prefix="packverify-ctypes-")
        packtool = os.path.join(cls.build, "packtool")
        keys = os.path.join(cls.work, "keys")
        for role in ["root", "manifest", "index", "grant"]:
            subprocess.run([packtool, "key", "generate", "--role", role, "--out", keys, "--unencrypted"], check=True, capture_output=True)
        cls.pub = os.path.join(cls.work, "pub")
        subprocess.run([packtool, "root", "init", "--state", cls.pub, "--root-key", f"{keys}/root.pem", "--manifest-pub", f"{keys}/manifest.pub",
                        "--index-pub", f"{keys}/index.pub", "--grant-pub", f"{keys}/grant.pub"], check=True, capture_output=True)
        cls.cdn = os.path.join(cls.work, "cdn")
        subprocess.run([packtool, "sign", os.path.join(REPO, "scenes", "royal-mile"), "--state", cls.pub, "--manifest-key", f"{keys}/manifest.pem",
                        "--index-key", f"{keys}/index.pem", "--publish", cls.cdn], check=True, capture_output=True)
        subprocess.run([packtool, "grant", "issue", "--grant-key", f"{keys}/grant.pem", "--products", "uk.example.walks.royalmile.citypack",
                        "--not-before", "2026-01-01T00:00:00Z", "--not-after", "2026-01-08T00:00:00Z"], check=True, capture_output=True)
        today = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        cls.code_end = (today + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
        cls.code = subprocess.run([packtool, "grant", "issue", "--grant-key", f"{keys}/grant.pem", "--products", "uk.example.walks.trippass72",
                                   "--not-before", today.strftime("%Y-%m-%dT%H:%M:%SZ"), "--not-after", cls.code_end],
                                  check=True, capture_output=True, text=True).stdout.strip()
        lib = ctypes.CDLL(os.path.join(cls.build, "libpackverify.so.1"))
        for name in ["packverify_pin_root", "packverify_repin_root", "packverify_update_roots", "packverify_install", "packverify_verify_installed", "packverify_access", "packverify_accept_index",
                     "packverify_update"]:
            fn = getattr(lib, name)
            fn.argtypes = [ctypes.c_char_p]
            fn.restype = ctypes.c_void_p  # a pointer we must free, so not c_char_p (which would copy and lose it)
        lib.packverify_update_cancellable.argtypes = [ctypes.c_char_p, CANCEL_PROGRESS, ctypes.c_void_p]
        lib.packverify_update_cancellable.restype = ctypes.c_void_p
        lib.packverify_free.argtypes = [ctypes.c_void_p]
        lib.packverify_version.restype = ctypes.c_char_p
        cls.lib = lib

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def call(self, name, request):
        raw = getattr(self.lib, name)(json.dumps(request).encode())
        try:
            return json.loads(ctypes.string_at(raw).decode())
        finally:
            self.lib.packverify_free(raw)

    def test_install_verify_and_decide(self):
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        self.assertEqual(self.lib.packverify_version().decode(), "0.1.0")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": os.path.join(self.pub, "root", "1.root.json")})["ok"])
        clock = {"wall": time.time(), "boot": 100}
        index = self.call("packverify_accept_index", {"state": state, "index": os.path.join(self.cdn, "index.json")})
        self.assertTrue(index["ok"], index)
        result = self.call("packverify_install", {"state": state, "into": into, "clock": clock,
                                                   "archive": os.path.join(self.cdn, "packs", "royal-mile", "1", "royal-mile-1.tar")})
        self.assertTrue(result["ok"], result)
        self.assertEqual(result["files"], 76)
        report = self.call("packverify_verify_installed", {"state": state, "into": into, "pack": "royal-mile"})
        self.assertTrue(report["intact"], report)

        def access(scene, **request):
            body = {"scene": scene, "purchases": [], "codes": [], "revokedCodes": []}
            body.update(request)
            return self.call("packverify_access", {"state": state, "into": into, "pack": "royal-mile", "request": body, "clock": clock})

        self.assertEqual(access("01-castle-esplanade")["code"], "free")
        closed = access("05-netherbow")
        self.assertFalse(closed["allowed"])
        self.assertIn("no purchase", closed["reason"])
        opened = access("05-netherbow", codes=[self.code])
        self.assertEqual(opened["code"], "access-code", opened)
        self.assertEqual(opened["until"], self.code_end)
        # The same process with the clock set back a week: timed access closes, the free stop stays open.
        clock["wall"] = time.time() - 7 * 86400
        self.assertEqual(access("05-netherbow", codes=[self.code])["code"], "clock-rollback")
        self.assertEqual(access("01-castle-esplanade")["code"], "free")

    def test_update_installs_from_a_published_folder(self):
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": os.path.join(self.pub, "root", "1.root.json")})["ok"])
        request = {"state": state, "into": into, "pack": "royal-mile", "from": "file://" + self.cdn}
        first = self.call("packverify_update", request)
        self.assertTrue(first["ok"], first)
        self.assertEqual((first["method"], first["toVersion"]), ("full archive", 1))
        self.assertNotIn("fromVersion", first, "nothing was installed before")
        self.assertEqual(first["fallbacks"], [], "a first install as planned reports no fallback")
        again = self.call("packverify_update", request)
        self.assertEqual((again["method"], again["fromVersion"]), ("up to date", 1))
        report = self.call("packverify_verify_installed", {"state": state, "into": into, "pack": "royal-mile", "threads": 1})
        self.assertTrue(report["intact"], report)
        missing = self.call("packverify_update", dict(request, **{"from": "file://" + os.path.join(client, "nowhere")}))
        self.assertFalse(missing["ok"])
        self.assertEqual(missing["error"]["code"], "fetch-missing", missing)

    def test_an_update_timeout_outside_the_range_is_a_request_error_and_changes_nothing(self):
        """Issue 29, finding 5: "timeout" takes seconds from 0.1 to 3600. 1e-7 once became a zero socket timeout (no
        timeout at all) and 1e300 trapped; these and non-numbers are "request" errors before anything is fetched."""
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": os.path.join(self.pub, "root", "1.root.json")})["ok"])

        def snapshot():
            out = {}
            for folder, _, files in os.walk(client):
                for name in files:
                    with open(os.path.join(folder, name), "rb") as f:
                        out[os.path.relpath(os.path.join(folder, name), client)] = f.read()
            return out

        before = snapshot()
        request = {"state": state, "into": into, "pack": "royal-mile", "from": "file://" + self.cdn}
        for timeout in [1e-7, 0.0000001, 1e300, 3000000, 0, -1, 0.09, 3600.5, "15", True, [], {}]:
            refused = self.call("packverify_update", dict(request, timeout=timeout))
            self.assertFalse(refused["ok"], (timeout, refused))
            self.assertEqual(refused["error"]["code"], "request", (timeout, refused))
            self.assertIn("0.1 to 3600", refused["error"]["message"], refused)
            self.assertEqual(snapshot(), before, f"timeout {timeout!r} changed the client folder")
            self.assertFalse(os.path.exists(into), f"timeout {timeout!r} created the install folder")
        for timeout in [0.1, 3600, None]:
            accepted = self.call("packverify_update", dict(request, timeout=timeout))
            self.assertTrue(accepted["ok"], (timeout, accepted))

    def test_a_minimal_access_request_works_and_a_bad_one_names_the_field(self):
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": os.path.join(self.pub, "root", "1.root.json")})["ok"])
        clock = {"wall": time.time(), "boot": 100}
        self.assertTrue(self.call("packverify_install", {"state": state, "into": into, "clock": clock,
                                                         "archive": os.path.join(self.cdn, "packs", "royal-mile", "1", "royal-mile-1.tar")})["ok"])

        def access(request):
            return self.call("packverify_access", {"state": state, "into": into, "pack": "royal-mile", "request": request, "clock": clock})

        minimal = access({"scene": "05-netherbow"})
        self.assertTrue(minimal["ok"], minimal)
        self.assertEqual(minimal["code"], "no-entitlement")
        for request, named in [({}, 'missing field "scene"'), ({"scene": 5}, "scene"), ({"scene": "05-netherbow", "purchases": [{"productId": "x"}]}, "purchaseDate"),
                               ({"scene": "05-netherbow", "codes": "PTG1.x"}, "codes")]:
            bad = access(request)
            self.assertFalse(bad["ok"], request)
            self.assertEqual(bad["error"]["code"], "request", bad)
            self.assertIn(named, bad["error"]["message"])
            self.assertNotIn("DecodingError", bad["error"]["message"])
            self.assertNotIn("CodingKeys", bad["error"]["message"])
        # A refund date the parser does not read is an error naming the purchase and the field, never a pass.
        city = "uk.example.walks.royalmile.citypack"
        for date in ["2026-12-01 05:35:23Z", "2026-12-01", "1764567323"]:
            bad = access({"scene": "05-netherbow", "purchases": [{"productId": city, "purchaseDate": "2026-11-01T00:00:00Z", "revocationDate": date}]})
            self.assertFalse(bad["ok"], bad)
            self.assertEqual(bad["error"]["code"], "request", bad)
            self.assertIn("purchases[0]", bad["error"]["message"])
            self.assertIn("revocationDate", bad["error"]["message"])

    def test_a_transaction_listed_twice_counts_once_and_one_id_with_two_dates_is_a_request_error(self):
        """Issue 30, item 7: an app merging Transaction.all with its own record of finished Trip Passes lists a pass
        twice; "transactionId" makes it one pass, refunded if either listing is."""
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": os.path.join(self.pub, "root", "1.root.json")})["ok"])
        now = time.time()
        clock = {"wall": now, "boot": 100}
        self.assertTrue(self.call("packverify_install", {"state": state, "into": into, "clock": clock,
                                                         "archive": os.path.join(self.cdn, "packs", "royal-mile", "1", "royal-mile-1.tar")})["ok"])

        def access(purchases):
            return self.call("packverify_access", {"state": state, "into": into, "pack": "royal-mile", "clock": clock,
                                                   "request": {"scene": "05-netherbow", "purchases": purchases}})

        def rfc3339(t):
            return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))

        bought = {"productId": "uk.example.walks.trippass72", "purchaseDate": rfc3339(now - 3600), "transactionId": "2000000123456789"}
        once = access([bought])
        self.assertEqual(once["code"], "trip-pass", once)
        twice = access([bought, dict(bought)])
        self.assertEqual(twice["until"], once["until"], "listed twice, still one pass of 72 hours")
        refunded = access([bought, dict(bought, revocationDate=rfc3339(now - 60))])
        self.assertTrue(refunded["ok"], refunded)
        self.assertEqual([refunded["allowed"], refunded["code"]], [False, "no-entitlement"])
        conflict = access([bought, dict(bought, purchaseDate=rfc3339(now - 7200))])
        self.assertEqual(conflict["error"]["code"], "request", conflict)
        self.assertIn("transaction 2000000123456789 is listed with different purchase dates", conflict["error"]["message"])

    def test_a_misspelt_key_is_a_request_error_naming_it_never_ignored(self):
        """Issue 30: an unknown key used to be ignored, so "purchace" dropped a paid City Pack and sent the customer to
        the paywall. Every unknown key, at the top, in "request", in a purchase or in "clock", is refused by name, with
        the key it was probably meant to be, and nothing is installed, pinned or decided."""
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        root = os.path.join(self.pub, "root", "1.root.json")
        pinned = self.call("packverify_pin_root", {"state": state, "root": root, "roots": []})
        self.assertEqual(pinned["error"]["code"], "request", pinned)
        self.assertIn('unknown key "roots"', pinned["error"]["message"])
        self.assertFalse(os.path.exists(state), "a refused request pinned nothing")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": root})["ok"])
        clock = {"wall": time.time(), "boot": 100}
        archive = os.path.join(self.cdn, "packs", "royal-mile", "1", "royal-mile-1.tar")
        typo = self.call("packverify_install", {"state": state, "into": into, "clock": clock, "archive": archive, "int0": into})
        self.assertEqual(typo["error"]["code"], "request", typo)
        self.assertIn('unknown key "int0"; did you mean "into"?', typo["error"]["message"])
        self.assertFalse(os.path.exists(into), "a refused install wrote nothing")
        self.assertTrue(self.call("packverify_install", {"state": state, "into": into, "clock": clock, "archive": archive})["ok"])
        city = "uk.example.walks.royalmile.citypack"
        purchase = {"productId": city, "purchaseDate": "2026-11-01T00:00:00Z"}
        paid = self.call("packverify_access", {"state": state, "into": into, "pack": "royal-mile", "clock": clock,
                                               "request": {"scene": "05-netherbow", "purchases": [purchase]}})
        self.assertTrue(paid["ok"] and paid["allowed"], paid)
        for request, named in [
            ({"scene": "05-netherbow", "purchace": [purchase]}, 'unknown key "purchace"; did you mean "purchases"?'),
            ({"scene": "05-netherbow", "purchases": [dict(purchase, revokedDate="2026-11-02T00:00:00Z")]}, 'purchases[0] has an unknown key "revokedDate"'),
        ]:
            bad = self.call("packverify_access", {"state": state, "into": into, "pack": "royal-mile", "clock": clock, "request": request})
            self.assertFalse(bad["ok"], bad)
            self.assertEqual(bad["error"]["code"], "request", bad)
            self.assertIn(named, bad["error"]["message"])
        for extra, named in [({"timout": 5}, 'did you mean "timeout"?'), ({"clock": {"wall": "now"}}, '"clock" must be'),
                             ({"clock": {"wall": 1, "boots": 2}}, '"clock" has an unknown key "boots"')]:
            bad = self.call("packverify_update", dict({"state": state, "into": into, "pack": "royal-mile", "from": "file://" + self.cdn}, **extra))
            self.assertEqual(bad["error"]["code"], "request", bad)
            self.assertIn(named, bad["error"]["message"])
        # A repeated key (readers disagree on which wins) and a NUL inside a path (C would cut the name there) are
        # refused, not resolved (the outside review's D7: the first "state" won, and "st\u0000zz" made "st%00zz").
        repeated = self.raw_call("packverify_pin_root", b'{"state": "%s", "root": "%s", "state": "/tmp/other"}' % (state.encode(), root.encode()))
        self.assertEqual(repeated["error"]["code"], "request", repeated)
        self.assertIn('repeats the key "state"', repeated["error"]["message"])
        nul_state = os.path.join(client, "st\u0000zz")
        nul = self.call("packverify_pin_root", {"state": nul_state, "root": root})
        self.assertEqual(nul["error"]["code"], "request", nul)
        self.assertIn('"state" holds a NUL character', nul["error"]["message"])
        self.assertEqual(sorted(os.listdir(client)), ["install", "state"], "nothing was created for the refused requests")
        roots = self.call("packverify_update_roots", {"state": state, "roots": [root, 5]})
        self.assertEqual(roots["error"]["code"], "request", roots)
        self.assertIn('"roots" must be an array of strings', roots["error"]["message"])

    def test_a_bad_request_has_the_outcome_request_not_io_and_names_the_key(self):
        """Issue 30: a malformed request is its own outcome ("request"), apart from I/O failures, whatever is wrong
        with it: an unknown key, a value of the wrong type, bytes that are not UTF-8."""
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        root = os.path.join(self.pub, "root", "1.root.json")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": root})["ok"])
        purchase = {"productId": "uk.example.walks.royalmile.citypack", "purchaseDate": "2026-11-01T00:00:00Z"}
        cases = [
            ("packverify_access", {"state": state, "into": into, "pack": "royal-mile", "request": {"scene": "05-netherbow", "purchace": [purchase]}},
             'unknown key "purchace"'),
            ("packverify_pin_root", {"state": state, "root": 5}, '"root"'),
            ("packverify_update_roots", {"state": state, "roots": "1.root.json"}, '"roots" must be an array'),
            ("packverify_verify_installed", {"state": state, "into": into, "pack": "royal-mile", "threads": "2"}, '"threads"'),
            ("packverify_update", {"state": state, "into": into, "pack": "royal-mile", "from": "file://" + self.cdn, "timeout": "5"}, '"timeout"'),
        ]
        for name, request, named in cases:
            bad = self.call(name, request)
            self.assertFalse(bad["ok"], (name, bad))
            self.assertEqual((bad["error"]["code"], bad["error"]["outcome"]), ("request", "request"), (name, bad))
            self.assertIn(named, bad["error"]["message"], name)
        not_utf8 = self.raw_call("packverify_pin_root", b'{"root": "%s", "state": "%s/st\xff"}' % (root.encode(), client.encode()))
        self.assertEqual((not_utf8["error"]["code"], not_utf8["error"]["outcome"]), ("request", "request"), not_utf8)
        self.assertIn('ill-formed sequence at byte', not_utf8["error"]["message"])
        self.assertIn('in "state"', not_utf8["error"]["message"], "the key holding the bad bytes is named")
        self.assertFalse(os.path.exists(into), "nothing was installed")
        # An I/O failure keeps its own outcome: the two are told apart.
        missing = self.call("packverify_install", {"state": state, "into": into, "archive": os.path.join(client, "nowhere.tar")})
        self.assertEqual(missing["error"]["outcome"], "I/O", missing)

    def version_2_tree(self, client):
        """A copy of the published tree with version 2 added, its pack.json retitled: a pack-level file changed, so
        an update from version 1 downloads the whole archive."""
        packtool, keys = os.path.join(self.build, "packtool"), os.path.join(self.work, "keys")
        pub, cdn, pack = os.path.join(client, "pub2"), os.path.join(client, "cdn2"), os.path.join(client, "pack2")
        shutil.copytree(self.pub, pub)
        shutil.copytree(self.cdn, cdn)
        shutil.copytree(os.path.join(REPO, "scenes", "royal-mile"), pack)
        with open(os.path.join(pack, "pack.json")) as f:
            text = f.read()
        with open(os.path.join(pack, "pack.json"), "w") as f:
            f.write(text.replace('"title": "Edinburgh, the Royal Mile, c. 1824"', '"title": "Edinburgh, the Royal Mile, 1824"', 1))
        subprocess.run([packtool, "sign", pack, "--state", pub, "--manifest-key", f"{keys}/manifest.pem", "--index-key", f"{keys}/index.pem", "--publish", cdn],
                       check=True, capture_output=True)
        return cdn

    def test_a_progress_callback_cancels_an_update_mid_download_and_the_next_update_resumes(self):
        """Issue 30: packverify_update_cancellable's callback returns non-zero once half of version 2's archive is in;
        the update returns "cancelled", version 1 stays installed and intact, the verified files are kept with their
        journal (issue 32: no copy of the archive, no .part), and the next update resumes from the journal (a Range
        request from the first unverified entry's header) and installs version 2."""
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": os.path.join(self.pub, "root", "1.root.json")})["ok"])
        installed = self.call("packverify_install", {"state": state, "into": into, "archive": os.path.join(self.cdn, "packs", "royal-mile", "1", "royal-mile-1.tar")})
        self.assertEqual(installed["version"], 1, installed)
        cdn = self.version_2_tree(client)
        ranges = os.path.join(client, "ranges.log")
        server = subprocess.Popen([sys.executable, os.path.join(REPO, "Tests", "http", "misbehaving_server.py"), "0", cdn, "slow", ranges],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.addCleanup(server.stdout.close)
        self.addCleanup(server.wait)
        self.addCleanup(server.stdin.close)
        port = int(server.stdout.readline())
        request = {"state": state, "into": into, "pack": "royal-mile", "from": f"http://127.0.0.1:{port}"}
        records, cancelled_at = [], []

        def cancel_after_some_bytes(record, _context):
            progress = json.loads(record)
            records.append(progress)
            if not cancelled_at and progress["event"] == "bytes" and progress["bytesTotal"] // 2 < progress["bytesDone"] < progress["bytesTotal"]:
                cancelled_at.append(progress["bytesDone"])
                return 1
            return 0

        callback = CANCEL_PROGRESS(cancel_after_some_bytes)
        raw = self.lib.packverify_update_cancellable(json.dumps(request).encode(), callback, None)
        try:
            result = json.loads(ctypes.string_at(raw).decode())
        finally:
            self.lib.packverify_free(raw)
        self.assertEqual(len(cancelled_at), 1, ("the callback never saw a byte report mid-download", records))
        self.assertFalse(result["ok"], result)
        self.assertEqual((result["error"]["code"], result["error"]["outcome"]), ("cancelled", "cancelled"), result)
        self.assertNotIn("installed", [r["event"] for r in records], "nothing was switched in")
        report = self.call("packverify_verify_installed", {"state": state, "into": into, "pack": "royal-mile"})
        self.assertEqual((report["version"], report["intact"]), (1, True), report)
        downloads = os.path.join(state, "downloads")
        parts = [name for name in os.listdir(downloads) if name.endswith(".part")] if os.path.isdir(downloads) else []
        self.assertEqual(parts, [], "no copy of the archive is kept")
        pack = os.path.join(into, "royal-mile")
        journals = [name for name in os.listdir(pack) if name.startswith(".resume-") and name.endswith(".progress")]
        self.assertEqual(len(journals), 1, f"the cancelled install keeps its journal: {os.listdir(pack)}")
        with open(os.path.join(pack, journals[0])) as f:
            verified = int(f.read())
        self.assertGreater(verified, 1, "files verified before the cancel are counted")
        with tarfile.open(os.path.join(cdn, "packs", "royal-mile", "2", "royal-mile-2.tar")) as t:
            members = t.getmembers()
        offsets = [m.offset for m in members] + [members[-1].offset_data + (members[-1].size + 511) // 512 * 512]

        again = self.call("packverify_update", request)
        self.assertTrue(again["ok"], again)
        self.assertEqual((again["fromVersion"], again["toVersion"], again["method"]), (1, 2, "full archive"), again)
        with open(ranges) as f:
            starts = [int(line.split()[1]) for line in f if "royal-mile-2.tar" in line]
        self.assertEqual(starts[:1], [offsets[verified]], f"the next update resumed from the journal's entry with a Range request ({starts})")
        report = self.call("packverify_verify_installed", {"state": state, "into": into, "pack": "royal-mile"})
        self.assertEqual((report["version"], report["intact"]), (2, True), report)

    def test_pinning_over_a_state_is_refused_and_repinning_is_explicit(self):
        client = tempfile.mkdtemp(dir=self.work)
        state = os.path.join(client, "state")
        root = os.path.join(self.pub, "root", "1.root.json")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": root})["ok"])
        with open(os.path.join(state, "client-state.json"), "rb") as f:
            before = f.read()
        self.assertEqual(self.call("packverify_pin_root", {"state": state, "root": root})["rootVersion"], 1, "the same root again is a no-op")
        # Another publisher's root (one fresh key for every role).
        packtool, keys = os.path.join(self.build, "packtool"), os.path.join(client, "k")
        subprocess.run([packtool, "key", "generate", "--role", "root", "--out", keys, "--unencrypted"], check=True, capture_output=True)
        subprocess.run([packtool, "root", "init", "--state", os.path.join(client, "pub2"), "--root-key", os.path.join(keys, "root.pem"),
                        "--manifest-pub", os.path.join(keys, "root.pub"), "--index-pub", os.path.join(keys, "root.pub"),
                        "--grant-pub", os.path.join(keys, "root.pub")], check=True, capture_output=True)
        other = os.path.join(client, "pub2", "root", "1.root.json")
        conflict = self.call("packverify_pin_root", {"state": state, "root": other})
        self.assertFalse(conflict["ok"])
        self.assertEqual(conflict["error"]["code"], "pin-conflict", conflict)
        with open(os.path.join(state, "client-state.json"), "rb") as f:
            self.assertEqual(f.read(), before, "the state is untouched")
        repin = self.call("packverify_repin_root", {"state": state, "root": root})
        self.assertTrue(repin["ok"], repin)
        self.assertEqual(repin["rootVersion"], 1)

    def test_a_revocation_list_the_index_binds_is_fetched_by_update_and_applied_by_access(self):
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        packtool, keys = os.path.join(self.build, "packtool"), os.path.join(self.work, "keys")
        pub = os.path.join(client, "pub")
        shutil.copytree(self.pub, pub)
        today = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        window = [today.strftime("%Y-%m-%dT%H:%M:%SZ"), (today + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")]
        codes = [subprocess.run([packtool, "grant", "issue", "--grant-key", f"{keys}/grant.pem", "--products", "uk.example.walks.trippass72",
                                 "--not-before", window[0], "--not-after", window[1], "--state", pub], check=True, capture_output=True, text=True)
                 for _ in range(2)]
        lost_id = codes[0].stderr.split("grant ", 1)[1].split(":", 1)[0]
        subprocess.run([packtool, "grant", "revoke", lost_id[:8], "--reason", "lost at the museum desk", "--state", pub, "--grant-key", f"{keys}/grant.pem"],
                       check=True, capture_output=True)
        # What renew will do: the list in the tree, bound by a re-signed index (here signed with the openssl CLI).
        cdn = os.path.join(client, "cdn")
        shutil.copytree(self.cdn, cdn)
        os.makedirs(os.path.join(cdn, "revocations"))
        shutil.copy(os.path.join(pub, "revocations", "1.json"), os.path.join(cdn, "revocations", "1.json"))
        with open(os.path.join(cdn, "revocations", "1.json"), "rb") as f:
            listed = f.read()
        with open(os.path.join(cdn, "index.json")) as f:
            index = json.loads(base64.b64decode(json.load(f)["payload"]))
        index["version"] += 1
        index["revocations"] = {"version": 1, "path": "revocations/1.json", "size": len(listed), "sha256": hashlib.sha256(listed).hexdigest()}
        with open(os.path.join(cdn, "index.json"), "wb") as f:
            f.write(self.sign(json.dumps(index, sort_keys=True, separators=(",", ":")).encode(), "application/vnd.packtool.index+json", f"{keys}/index.pem"))
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": os.path.join(self.pub, "root", "1.root.json")})["ok"])
        updated = self.call("packverify_update", {"state": state, "into": into, "pack": "royal-mile", "from": "file://" + cdn})
        self.assertTrue(updated["ok"], updated)

        def access(code):
            return self.call("packverify_access", {"state": state, "into": into, "pack": "royal-mile",
                                                   "request": {"scene": "05-netherbow", "codes": [code]}})

        refused = access(codes[0].stdout.strip())
        self.assertFalse(refused["allowed"], refused)
        self.assertIn(f"access code {lost_id[:8]} was revoked: lost at the museum desk", refused["reason"])
        self.assertTrue(access(codes[1].stdout.strip())["allowed"], "another code still opens")

    @staticmethod
    def sign(payload, payload_type, key):
        """A DSSE envelope over `payload`, signed with the Ed25519 PEM `key` through `openssl pkeyutl -rawin`."""
        return dsse.envelope(payload, payload_type, key)

    def test_an_update_from_a_url_with_a_password_is_refused_without_quoting_it(self):
        client = tempfile.mkdtemp(dir=self.work)
        state, into = os.path.join(client, "state"), os.path.join(client, "install")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": os.path.join(self.pub, "root", "1.root.json")})["ok"])
        before = sorted(os.listdir(state))
        refused = self.call("packverify_update", {"state": state, "into": into, "pack": "royal-mile", "from": "http://user:hunter2@127.0.0.1:1/x"})
        self.assertFalse(refused["ok"])
        self.assertEqual(refused["error"]["code"], "request", refused)
        self.assertNotIn("hunter2", json.dumps(refused))
        self.assertIn("http://…@127.0.0.1:1/x", refused["error"]["message"])
        self.assertEqual(sorted(os.listdir(state)), before, "the state is unchanged")
        self.assertFalse(os.path.exists(into))

    def test_bad_requests_are_errors(self):
        bad = self.call("packverify_install", {"state": "/nonexistent", "archive": "/nonexistent.tar", "into": "/tmp/x"})
        self.assertFalse(bad["ok"])
        self.assertIn("code", bad["error"])
        raw = self.lib.packverify_access(b"\xff\xfe not json")
        self.assertFalse(json.loads(ctypes.string_at(raw).decode())["ok"])
        self.lib.packverify_free(raw)

    def raw_call(self, name, request_bytes):
        raw = getattr(self.lib, name)(request_bytes)
        try:
            return json.loads(ctypes.string_at(raw).decode())
        finally:
            self.lib.packverify_free(raw)

    def test_a_request_that_is_not_strict_utf8_is_refused_and_names_nothing(self):
        """Issue 29, finding 9: "st\xff" used to be repaired into "st\ufffd" and pinned there."""
        client = tempfile.mkdtemp(dir=self.work)
        root = os.path.join(self.pub, "root", "1.root.json")
        prefix = json.dumps(client + "/st")[:-1].encode()
        bad_texts = [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\\udcff", b"\\ud800x", b"\\ud800\\u0041"]
        for name in ["packverify_pin_root", "packverify_repin_root", "packverify_update_roots", "packverify_accept_index", "packverify_install",
                     "packverify_verify_installed", "packverify_update", "packverify_access"]:
            getattr(self.lib, name).argtypes = [ctypes.c_char_p]
            getattr(self.lib, name).restype = ctypes.c_void_p
            for bad in bad_texts:
                request = b'{"state": ' + prefix + bad + b'", "root": ' + json.dumps(root).encode() + b"}"
                result = self.raw_call(name, request)
                self.assertFalse(result["ok"], (name, bad))
                self.assertEqual(result["error"]["code"], "request", (name, bad, result))
                self.assertTrue("UTF-8" in result["error"]["message"] or "surrogate" in result["error"]["message"], result)
        self.assertEqual(os.listdir(client), [], "no folder was made under a repaired name")
        # Well-formed text outside ASCII, and an escaped pair, are still accepted.
        for good in ["st\u00e9", "st\U0001F600"]:
            pinned = self.call("packverify_pin_root", {"state": os.path.join(client, good), "root": root})
            self.assertTrue(pinned["ok"], pinned)
        self.assertEqual(sorted(os.listdir(client)), sorted(["st\u00e9", "st\U0001F600"]))

    def test_integers_past_2_53_come_back_exact_and_as_integers(self):
        """Issue 29, finding 11: an index (signed with the tree's index key) whose version is 2^53 + 1 is accepted, and
        the result says 9007199254740993 as a JSON integer, not 9.007199254740992e+15 (a double's rounding)."""
        client = tempfile.mkdtemp(dir=self.work)
        state = os.path.join(client, "state")
        self.assertTrue(self.call("packverify_pin_root", {"state": state, "root": os.path.join(self.pub, "root", "1.root.json")})["ok"])
        with open(os.path.join(self.cdn, "index.json"), "rb") as f:
            published = json.loads(f.read())
        payload = base64.b64decode(published["payload"])
        big = 2**53 + 1
        # The index's own version (numbered from the clock) and the pack's (1), each replaced exactly.
        index_version = json.loads(payload)["version"]
        forged, replaced = re.subn(rb'"version":%d(?=[,}])' % index_version, b'"version":%d' % big, payload)
        self.assertEqual(replaced, 1, payload)
        forged = re.sub(rb'"version":1(?=[,}])', b'"version":%d' % big, forged)
        # The pack's files where the published layout puts version 2^53 + 1 (an index placing them elsewhere is refused).
        forged = forged.replace(b"packs/royal-mile/1/royal-mile-1.tar", b"packs/royal-mile/%d/royal-mile-%d.tar" % (big, big))
        forged = forged.replace(b"packs/royal-mile/1/", b"packs/royal-mile/%d/" % big)
        path = os.path.join(client, "index.json")
        with open(path, "wb") as out:
            out.write(dsse.envelope(forged, published["payloadType"], os.path.join(self.work, "keys", "index.pem")))
        raw = self.lib.packverify_accept_index(json.dumps({"state": state, "index": path}).encode())
        try:
            text = ctypes.string_at(raw).decode()
        finally:
            self.lib.packverify_free(raw)
        result = json.loads(text)
        self.assertTrue(result["ok"], result)
        self.assertEqual(result["indexVersion"], big)
        self.assertIsInstance(result["indexVersion"], int)
        self.assertEqual(result["packs"]["royal-mile"]["version"], big)
        self.assertIn('"indexVersion":9007199254740993', text)
        self.assertNotIn("e+", text)

    def test_the_header_names_the_boot_clock_the_library_reads(self):
        """Issue 29, finding 11: packverify.h says which clock "boot" must be, and it is the one the library reads
        itself when a request has no "clock" (ClockGuard.Reading.system), on each platform."""
        with open(os.path.join(REPO, "Sources", "CPackVerify", "include", "packverify.h")) as f:
            header = f.read()
        with open(os.path.join(REPO, "Sources", "PackVerify", "Access", "ClockGuard.swift")) as f:
            source = f.read()
        system = source[source.index("public static func system()"):]
        linux, apple = system.split("#else", 1)
        self.assertIn("CLOCK_BOOTTIME", linux)
        self.assertIn("CLOCK_MONOTONIC_RAW", apple.split("#endif", 1)[0])
        self.assertIn("clock_gettime(CLOCK_BOOTTIME)", header)
        self.assertIn("clock_gettime(CLOCK_MONOTONIC_RAW)", header)
        self.assertIn("mach_continuous_time", header)


if __name__ == "__main__":
    unittest.main()
