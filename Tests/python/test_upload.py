"""`packtool upload` against a real S3-compatible server (SeaweedFS `weed mini` on loopback, its own credentials):
the example pack's published tree is uploaded and a client installs it from the store's HTTP endpoint; a rerun sends
nothing; a new release sends only its new objects; a versioned object with other bytes is refused; a wrong secret
writes nothing; uploads killed at random moments never expose an index naming a missing object, and a rerun
completes; a store that goes away mid-upload is a resumable error."""
import base64
import hashlib
import os
import random
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import dsse
import required
from test_presign import KEY_ID, REPO, SECRET, SeaweedFS, environment, packtool, status as fetch

KEY = "packs/big/1/big-1.tar"


def publish(tool, work):
    """The example pack signed and published with the example keys into work/cdn (as `make demo` does)."""
    keys = dsse.example_keys()
    state, cdn = os.path.join(work, "state"), os.path.join(work, "cdn")
    dsse.root_init(tool, state)
    subprocess.run([tool, "sign", os.path.join(REPO, "scenes/royal-mile"), "--state", state, "--manifest-key", f"{keys}/manifest.pem",
                    "--index-key", f"{keys}/index.pem", "--publish", cdn], check=True, capture_output=True)
    return cdn


class Upload(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        required.need_weed()
        cls.tool = packtool()
        cls.work = tempfile.mkdtemp(prefix="packtool-upload-")
        cls.cdn = publish(cls.tool, cls.work)
        cls.store = SeaweedFS()

    @classmethod
    def tearDownClass(cls):
        cls.store.stop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def upload(self, tree, prefix, **env):
        return subprocess.run([self.tool, "upload", tree, f"s3://public/{prefix}", "--endpoint", self.store.endpoint],
                              capture_output=True, text=True, env=environment(**env), timeout=300)

    def keys(self, prefix):
        listing = self.store.client.list_objects_v2(Bucket="public", Prefix=prefix + "/")
        return sorted(o["Key"][len(prefix) + 1:] for o in listing.get("Contents", []))

    def tree_files(self, tree):
        return sorted(os.path.relpath(os.path.join(d, f), tree) for d, _, fs in os.walk(tree) for f in fs)

    def test_an_uploaded_tree_installs_and_a_rerun_sends_nothing(self):
        run = self.upload(self.cdn, "install")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.splitlines()[-2], "uploaded index.json", "index.json goes last")
        self.assertEqual(self.keys("install"), self.tree_files(self.cdn))
        head = self.store.client.head_object(Bucket="public", Key="install/packs/royal-mile/1/royal-mile-1.tar")
        self.assertEqual(head["CacheControl"], "public, max-age=31536000, immutable")
        self.assertEqual(head["ContentType"], "application/x-tar")
        with open(os.path.join(self.cdn, "packs/royal-mile/1/royal-mile-1.tar"), "rb") as f:
            digest = hashlib.sha256(f.read()).digest()
        checked = self.store.client.head_object(Bucket="public", Key="install/packs/royal-mile/1/royal-mile-1.tar", ChecksumMode="ENABLED")
        self.assertEqual(checked.get("ChecksumSHA256"), base64.b64encode(digest).decode(), "the store keeps the SHA-256 the upload is checked by")
        self.assertEqual(head["Metadata"].get("sha256"), digest.hex())
        self.assertEqual(self.store.client.head_object(Bucket="public", Key="install/index.json")["CacheControl"], "public, max-age=60")
        client = os.path.join(self.work, "client")
        update = subprocess.run([self.tool, "update", "--tree", f"{self.store.endpoint}/public/install", "--into", f"{client}/app",
                                 "--pack", "royal-mile", "--root", os.path.join(self.cdn, "root/1.root.json"), "--state", f"{client}/state", "--quiet"],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(update.returncode, 0, update.stderr)
        self.assertIn("version 1", update.stdout)
        again = self.upload(self.cdn, "install")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn(": 0 uploaded (0.0 MB), 4 already there", again.stdout)

    def test_a_new_release_sends_only_its_new_objects(self):
        self.assertEqual(self.upload(self.cdn, "release").returncode, 0)
        second = os.path.join(self.work, "second")
        shutil.copytree(self.cdn, second)
        os.makedirs(f"{second}/packs/royal-mile/deltas")
        with open(f"{second}/packs/royal-mile/deltas/new.tar", "wb") as f:
            f.write(os.urandom(100_000))
        with open(f"{second}/index.json", "ab") as f:
            f.write(b"\n")
        run = self.upload(second, "release")
        self.assertEqual(run.returncode, 0, run.stderr)
        uploaded = [l.split()[1] for l in run.stdout.splitlines() if l.startswith("uploaded ")]
        self.assertEqual(uploaded, ["packs/royal-mile/deltas/new.tar", "index.json"])

    def test_a_versioned_object_with_other_bytes_is_refused_and_the_index_left(self):
        self.assertEqual(self.upload(self.cdn, "clash").returncode, 0)
        before = fetch(f"{self.store.endpoint}/public/clash/index.json")
        other = os.path.join(self.work, "other")
        shutil.copytree(self.cdn, other)
        with open(f"{other}/root/1.root.json", "ab") as f:
            f.write(b" ")
        with open(f"{other}/index.json", "ab") as f:
            f.write(b" ")
        run = self.upload(other, "clash")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("root/1.root.json is already there with other bytes", run.stderr)
        self.assertEqual(fetch(f"{self.store.endpoint}/public/clash/index.json"), before, "index.json is as it was")
        status, body = fetch(f"{self.store.endpoint}/public/clash/root/1.root.json")
        with open(f"{self.cdn}/root/1.root.json", "rb") as f:
            self.assertEqual(body, f.read(), "the versioned object was not overwritten")

    def test_a_tree_changed_after_signing_is_not_uploaded(self):
        changed = os.path.join(self.work, "changed")
        shutil.copytree(self.cdn, changed)
        archive = f"{changed}/packs/royal-mile/1/royal-mile-1.tar"
        with open(archive, "r+b") as f:
            f.seek(4096)
            byte = f.read(1)
            f.seek(4096)
            f.write(bytes([byte[0] ^ 1]))
        run = self.upload(changed, "changed")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("is not the file the tree's index.json signs", run.stderr)
        self.assertNotIn("packs/royal-mile/1/royal-mile-1.tar", self.keys("changed"))
        self.assertNotIn("index.json", self.keys("changed"))

    def test_sign_publishes_straight_to_the_store(self):
        keys = os.path.join(REPO, "keys-example")
        state = os.path.join(self.work, "sign-state")
        subprocess.run([self.tool, "root", "init", "--state", state, "--root-key", f"{keys}/root.pem", "--manifest-pub", f"{keys}/manifest.pub",
                        "--index-pub", f"{keys}/index.pub", "--grant-pub", f"{keys}/grant.pub"], check=True, capture_output=True)
        sign = [self.tool, "sign", os.path.join(REPO, "scenes/royal-mile"), "--state", state, "--manifest-key", f"{keys}/manifest.pem",
                "--index-key", f"{keys}/index.pem", "--publish", "s3://public/signed", "--endpoint", self.store.endpoint]
        run = subprocess.run(sign, capture_output=True, text=True, env=environment(), timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("uploaded index.json", run.stdout)
        self.assertEqual(self.keys("signed"), self.tree_files(os.path.join(state, "uploads/public/signed")))
        again = subprocess.run(sign, capture_output=True, text=True, env=environment(), timeout=300)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("nothing changed", again.stdout)
        self.assertIn("0 uploaded (0.0 MB), 4 already there", again.stdout)
        bad = subprocess.run(sign[:-4] + ["--publish", "s3://Not_A_Bucket/x"], capture_output=True, text=True, env=environment())
        self.assertEqual(bad.returncode, 2)
        self.assertIn("not a bucket name", bad.stderr)

    def test_export_writes_the_whole_tree_from_the_state_and_uploads_it(self):
        keys = os.path.join(REPO, "keys-example")
        state = os.path.join(self.work, "state")
        export = [self.tool, "export", "--state", state, "--manifest-key", f"{keys}/manifest.pem", "--index-key", f"{keys}/index.pem",
                  "--publish", "s3://public/exported", "--endpoint", self.store.endpoint]
        run = subprocess.run(export, capture_output=True, text=True, env=environment(), timeout=300)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        kept = os.path.join(state, "uploads/public/exported")
        self.assertEqual(run.stdout.splitlines()[-2], "uploaded index.json")
        self.assertEqual(self.keys("exported"), self.tree_files(kept))
        self.assertEqual(sorted(os.listdir(os.path.dirname(kept))), ["exported"], "no export or replaced folder is left beside it")
        client = os.path.join(self.work, "export-client")
        update = subprocess.run([self.tool, "update", "--tree", f"{self.store.endpoint}/public/exported", "--into", f"{client}/app",
                                 "--pack", "royal-mile", "--root", os.path.join(self.cdn, "root/1.root.json"), "--state", f"{client}/state", "--quiet"],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(update.returncode, 0, update.stderr)
        # Again: a fresh index replaces the kept tree whole, and only the index is new in the store.
        again = subprocess.run(export, capture_output=True, text=True, env=environment(), timeout=300)
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertEqual([l for l in again.stdout.splitlines() if l.startswith("uploaded ")], ["uploaded index.json"])
        wrong = subprocess.run(export, capture_output=True, text=True, env=environment(AWS_SECRET_ACCESS_KEY="not-the-secret"), timeout=300)
        self.assertEqual(wrong.returncode, 2, wrong.stdout + wrong.stderr)
        self.assertNotIn("not-the-secret", wrong.stdout + wrong.stderr)

    def test_links_in_the_tree_are_refused_and_nothing_is_uploaded(self):
        linked = os.path.join(self.work, "linked")
        shutil.copytree(self.cdn, linked)
        secret = os.path.join(self.work, "outside-credentials")
        with open(secret, "w") as f:
            f.write("not for the bucket")
        os.symlink(secret, f"{linked}/packs/outside")
        run = self.upload(linked, "linked")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("a symbolic link", run.stderr)
        self.assertEqual(self.keys("linked"), [])
        os.remove(f"{linked}/packs/outside")
        os.symlink("..", f"{linked}/loop")
        run = self.upload(linked, "linked")
        self.assertEqual(run.returncode, 2)
        self.assertEqual(self.keys("linked"), [])

    def test_an_index_naming_an_object_not_in_the_tree_is_not_uploaded(self):
        partial = os.path.join(self.work, "partial")
        shutil.copytree(self.cdn, partial)
        os.remove(f"{partial}/packs/royal-mile/1/royal-mile-1.tar")
        run = self.upload(partial, "partial")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("is named by the tree's index.json but is not in the tree", run.stderr)
        self.assertEqual(self.keys("partial"), [])

    def test_a_wrong_secret_is_a_clear_error_and_writes_nothing(self):
        run = self.upload(self.cdn, "wrong", AWS_SECRET_ACCESS_KEY="not-the-secret")
        self.assertEqual(run.returncode, 2)
        self.assertIn("403", run.stderr)
        self.assertIn("secret", run.stderr)
        self.assertNotIn("not-the-secret", run.stdout + run.stderr, "the secret is never printed")
        self.assertEqual(self.keys("wrong"), [])

    def test_uploads_killed_at_random_never_show_an_index_naming_a_missing_object(self):
        prefix, names = "killed", [f for f in self.tree_files(self.cdn) if f != "index.json"]
        stop, seen, broken = threading.Event(), [], []

        def poll():
            while not stop.is_set():
                if fetch(f"{self.store.endpoint}/public/{prefix}/index.json")[0] == 200:
                    seen.append(1)
                    missing = [n for n in names if fetch(f"{self.store.endpoint}/public/{prefix}/{n}")[0] != 200]
                    if missing:
                        broken.append(missing)
                time.sleep(0.005)

        poller = threading.Thread(target=poll)
        poller.start()
        rng = random.Random(18)
        try:
            for _ in range(12):
                p = subprocess.Popen([self.tool, "upload", self.cdn, f"s3://public/{prefix}", "--endpoint", self.store.endpoint, "--quiet"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment())
                time.sleep(rng.uniform(0, 0.12))
                p.kill()
                p.wait()
            final = self.upload(self.cdn, prefix)
        finally:
            stop.set()
            poller.join()
        self.assertEqual(final.returncode, 0, final.stderr)
        self.assertEqual(self.keys(prefix), self.tree_files(self.cdn))
        self.assertEqual(broken, [], "an index was visible while an object it names was not")
        self.assertTrue(seen, "the poller saw the index at least once")


class StoreGoneMidUpload(unittest.TestCase):
    """The store stops while an archive is being sent: exit 2, a message saying to rerun, and index.json not sent."""

    def test_the_store_stopping_mid_upload_is_a_resumable_error(self):
        required.need_weed()
        tool = packtool()
        work = tempfile.mkdtemp(prefix="packtool-upload-gone-")
        try:
            tree = os.path.join(work, "tree")
            os.makedirs(f"{tree}/packs/big/1")
            with open(f"{tree}/packs/big/1/big-1.tar", "wb") as f:
                f.write(os.urandom(256 << 20))
            dsse.catalogue_tree(tool, work, tree)
            store = SeaweedFS()
            p = subprocess.Popen([tool, "upload", tree, "s3://public/gone", "--endpoint", store.endpoint], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=environment())
            time.sleep(0.3)
            store.stop()
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 2, out + err)
            self.assertIn("rerun to resume", err)
            self.assertNotIn("uploaded index.json", out)
        finally:
            shutil.rmtree(work, ignore_errors=True)


class OddStore:
    """A small S3 stand-in on loopback for what SeaweedFS does not do: it answers every PUT with `100 Continue` and
    the final `200` in one write, and reports the stored object's checksum in its composite (multipart) form, which
    is not the file's SHA-256 and must send the uploader to read the object back."""

    def __init__(self):
        self.objects = {}
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.endpoint = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.gets = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    @staticmethod
    def read_request(conn):
        """One request from `conn`: (method, path, lower-cased headers, body), or None when the client hung up."""
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, body = data.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        method, path, _ = lines[0].split(" ")
        headers = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:]}
        size = int(headers.get("content-length", "0")) if method == "PUT" else 0
        while len(body) < size:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            body += chunk
        return method, path, headers, body

    def handle(self, conn):
        with conn:
            request = self.read_request(conn)
            if request:
                self.answer(conn, *request)

    def answer(self, conn, method, path, headers, body):
        if method == "PUT":
            self.objects[path] = body
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        elif path in self.objects:
            composite = base64.b64encode(hashlib.sha256(b"parts").digest()).decode() + "-2"
            self.send_object(conn, method, path, composite)
        else:
            conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")

    def send_object(self, conn, method, path, checksum):
        """The stored object's head (and body for a GET), with an ETag (every S3 answers with one: the uploader's
        compare-and-swap of index.json needs it) and the given SHA-256 checksum header."""
        stored = self.objects[path]
        etag = '"%s"' % hashlib.md5(stored).hexdigest()
        out = f"HTTP/1.1 200 OK\r\nContent-Length: {len(stored)}\r\nETag: {etag}\r\nx-amz-checksum-sha256: {checksum}\r\n\r\n".encode()
        if method == "GET":
            self.gets += 1
            out += stored
        conn.sendall(out)

    def stop(self):
        self.sock.close()


class AnswersSeaweedFSDoesNotGive(unittest.TestCase):
    def test_a_100_continue_and_a_composite_checksum_still_upload_and_verify(self):
        tool = packtool()
        work = tempfile.mkdtemp(prefix="packtool-upload-odd-")
        store = OddStore()
        try:
            cdn = publish(tool, work)
            run = subprocess.run([tool, "upload", cdn, "s3://odd/tree", "--endpoint", store.endpoint], capture_output=True, text=True,
                                 env=environment(), timeout=120)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertIn("4 uploaded", run.stdout)
            self.assertGreaterEqual(store.gets, 4, "each object was read back: a composite checksum is not the file's SHA-256")
            again = subprocess.run([tool, "upload", cdn, "s3://odd/tree", "--endpoint", store.endpoint], capture_output=True, text=True,
                                   env=environment(), timeout=120)
            self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
            self.assertIn("4 already there", again.stdout, "identical objects are not refused as other bytes")
        finally:
            store.stop()
            shutil.rmtree(work, ignore_errors=True)


class ContinuingStore(OddStore):
    """An S3 stand-in that breaks HTTP: it answers every request with `100 Continue` after `100 Continue`, 50 ms
    apart for up to a minute, and never with a final answer."""

    def __init__(self):
        super().__init__()
        self.requests = 0

    def answer(self, conn, method, path, headers, body):
        self.requests += 1
        try:
            for _ in range(1200):
                conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                time.sleep(0.05)
        except OSError:
            pass


class AStoreThatBreaksTheProtocol(unittest.TestCase):
    def test_endless_interim_answers_are_refused_after_five_and_not_asked_again(self):
        tool = packtool()
        work = tempfile.mkdtemp(prefix="packtool-upload-continue-")
        store = ContinuingStore()
        try:
            cdn = publish(tool, work)
            run = subprocess.run([tool, "upload", cdn, "s3://odd/tree", "--endpoint", store.endpoint], capture_output=True, text=True,
                                 env=environment(), timeout=120)
            self.assertNotEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertIn("interim", run.stderr, "the refusal names what the store did")
            self.assertEqual(store.requests, 1, "a store that broke the protocol is not asked again")
        finally:
            store.stop()
            shutil.rmtree(work, ignore_errors=True)


class RacingStore(OddStore):
    """An S3 stand-in where another upload wins the race for one versioned name: the first HEAD of it says 404, and
    the conditional PUT (`If-None-Match: *`) that follows is refused with 412 because the winner's bytes (`winner`)
    arrived meanwhile."""

    def __init__(self, contested, winner):
        super().__init__()
        self.contested, self.winner, self.conditional = contested, winner, []

    def answer(self, conn, method, path, headers, body):
        if method != "PUT":
            if path in self.objects:
                self.send_object(conn, method, path, base64.b64encode(hashlib.sha256(self.objects[path]).digest()).decode())
            else:
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            return
        if headers.get("if-none-match") == "*":
            self.conditional.append(path)
        if path.endswith(self.contested) and path not in self.objects:
            self.objects[path] = self.winner
            conn.sendall(b"HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\n\r\n")
            return
        self.objects[path] = body
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")


class TricklingStore(OddStore):
    """A store that answers every request one byte every 0.3 s, for ever: each read is inside any timeout, the
    whole answer never comes."""

    def handle(self, conn):
        with conn:
            try:
                conn.recv(65536)
                for byte in b"HTTP/1.1 200 OK\r\n" * 1000:
                    conn.sendall(bytes([byte]))
                    time.sleep(0.3)
            except OSError:
                pass


class ListingStore(OddStore):
    """An S3 stand-in whose multipart listings never end: every answer says `IsTruncated` and gives the markers of the
    two previous pages in turn (A, B, A, B, …). With `parts`, the open-upload listing is honest (one upload, `u1`)
    and the part listing of `u1` is the endless one. Other requests are OddStore's; `listings` counts the pages asked."""

    def __init__(self, key, parts=False):
        super().__init__()
        self.key, self.parts, self.listings = key, parts, 0

    def answer(self, conn, method, target, headers, body):
        query = target.partition("?")[2]
        items = [item.partition("=")[0] for item in query.split("&")]
        if method != "GET" or not ("uploads" in items or "uploadId" in items):
            return OddStore.answer(self, conn, method, target, headers, body)
        self.listings += 1
        turn = "AB"[self.listings % 2]
        if "uploadId" in items:
            body = (f"<ListPartsResult><Key>{self.key}</Key><UploadId>u1</UploadId><IsTruncated>true</IsTruncated>"
                    f"<NextPartNumberMarker>{1 + self.listings % 2}</NextPartNumberMarker></ListPartsResult>")
        elif self.parts:
            body = (f"<ListMultipartUploadsResult><IsTruncated>false</IsTruncated><Upload><Key>{self.key}</Key><UploadId>u1</UploadId>"
                    "<Initiated>2026-12-01T00:00:00.000Z</Initiated></Upload></ListMultipartUploadsResult>")
        else:
            body = (f"<ListMultipartUploadsResult><IsTruncated>true</IsTruncated><NextKeyMarker>{self.key}</NextKeyMarker>"
                    f"<NextUploadIdMarker>{turn}</NextUploadIdMarker></ListMultipartUploadsResult>")
        conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode())


class EchoingStore(OddStore):
    """An S3 stand-in that refuses every request with an error document quoting the request's session token, access
    key ID and the secret (as a careless or hostile store might), the token first so that a message cut at 200
    characters would still carry part of it."""

    def answer(self, conn, method, path, headers, body):
        token = headers.get("x-amz-security-token", "")
        key_id = headers.get("authorization", "").partition("Credential=")[2].partition("/")[0]
        body = (f"<Error><Code>InvalidToken</Code><Message>{token} is not valid for {key_id} (secret {SECRET})</Message>"
                f"<Token>{token}</Token></Error>")
        conn.sendall(f"HTTP/1.1 403 Forbidden\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode())


class StoreListingsAndMessages(unittest.TestCase):
    """Issue 29: endless multipart listings end with a clear error (finding 7); a store's message never repeats the
    configured credentials (finding 10)."""

    @classmethod
    def setUpClass(cls):
        cls.tool = packtool()
        cls.work = tempfile.mkdtemp(prefix="packtool-upload-listing-")
        cls.tree = os.path.join(cls.work, "tree")
        os.makedirs(f"{cls.tree}/packs/big/1")
        with open(f"{cls.tree}/packs/big/1/big-1.tar", "wb") as f:
            f.write(os.urandom(2 << 20))
        dsse.catalogue_tree(cls.tool, cls.work, cls.tree)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def upload_with_a_recorded_upload(self, store):
        """Uploads the tree to s3://odd/tree with the journal saying upload `u1` of the big archive is ours (an earlier
        run was interrupted), so that the upload lists the store's open uploads and their parts."""
        cache = tempfile.mkdtemp(dir=self.work)
        journal = os.path.join(cache, "packtool", "multipart")
        os.makedirs(journal)
        obj = "odd/tree/" + KEY
        with open(os.path.join(journal, hashlib.sha256(obj.encode()).hexdigest()[:32] + ".json"), "w") as f:
            f.write('{"object": "%s", "uploads": ["u1"]}' % obj)
        started = time.monotonic()
        run = subprocess.run([self.tool, "upload", self.tree, "s3://odd/tree", "--endpoint", store.endpoint, "--multipart-threshold", "1MiB",
                              "--part-size", "5MiB"], capture_output=True, text=True, env=environment(XDG_CACHE_HOME=cache), timeout=60)
        return run, time.monotonic() - started

    def test_an_endless_listing_of_open_uploads_is_an_error_naming_it_and_the_index_is_not_sent(self):
        store = ListingStore("tree/" + KEY)
        try:
            run, took = self.upload_with_a_recorded_upload(store)
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertIn(f"listing the uploads open for tree/{KEY} in bucket odd", run.stderr)
            self.assertIn("a marker it gave before", run.stderr)
            self.assertLess(took, 20)
            self.assertLessEqual(store.listings, 3, "stopped at the first repeated marker")
            self.assertNotIn("/tree/index.json", store.objects, "the index is not sent")
        finally:
            store.stop()

    def test_an_endless_listing_of_parts_is_an_error_naming_it_and_the_index_is_not_sent(self):
        store = ListingStore("tree/" + KEY, parts=True)
        try:
            run, took = self.upload_with_a_recorded_upload(store)
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertIn(f"listing the parts of an upload of tree/{KEY} in bucket odd", run.stderr)
            self.assertIn("a marker it gave before", run.stderr)
            self.assertLess(took, 20)
            self.assertLessEqual(store.listings, 4)
            self.assertNotIn("/tree/index.json", store.objects, "the index is not sent")
        finally:
            store.stop()

    def test_a_store_echoing_the_session_token_and_keys_in_its_error_never_gets_them_printed(self):
        store = EchoingStore()
        token = "IQoJb3JpZ2luX2VjE" + "x" * 40 + base64.b64encode(os.urandom(300)).decode()
        try:
            run = subprocess.run([self.tool, "upload", self.tree, "s3://odd/tree", "--endpoint", store.endpoint], capture_output=True,
                                 text=True, env=environment(AWS_SESSION_TOKEN=token), timeout=60)
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertIn("HTTP 403 InvalidToken", run.stderr)
            self.assertIn("[redacted]", run.stderr)
            output = run.stdout + run.stderr
            for secret in [token, token[:40], token[-40:], SECRET, KEY_ID]:
                self.assertNotIn(secret, output)
        finally:
            store.stop()


class StoresThatMisbehave(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tool = packtool()
        cls.work = tempfile.mkdtemp(prefix="packtool-upload-race-")
        cls.cdn = publish(cls.tool, cls.work)
        with open(os.path.join(cls.cdn, "root/1.root.json"), "rb") as f:
            cls.root = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def upload(self, store, *extra):
        return subprocess.run([self.tool, "upload", self.cdn, "s3://race/tree", "--endpoint", store.endpoint, *extra], capture_output=True,
                              text=True, env=environment(), timeout=120)

    def test_losing_a_race_to_the_same_bytes_counts_the_object_as_there(self):
        store = RacingStore("root/1.root.json", self.root)
        try:
            run = self.upload(store)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertIn("present  root/1.root.json", run.stdout)
            self.assertEqual(run.stdout.splitlines()[-2], "uploaded index.json")
            self.assertIn("/race/tree/root/1.root.json", store.conditional, "versioned PUTs are conditional")
            self.assertIn("/race/tree/index.json", store.conditional, "index.json is created only if still absent (compare-and-swap)")
        finally:
            store.stop()

    def test_losing_a_race_to_other_bytes_is_refused_and_the_index_not_sent(self):
        store = RacingStore("root/1.root.json", self.root + b" ")
        try:
            run = self.upload(store)
            self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
            self.assertIn("root/1.root.json is already in the bucket with other bytes", run.stderr)
            self.assertNotIn("/race/tree/index.json", store.objects)
            self.assertEqual(store.objects["/race/tree/root/1.root.json"], self.root + b" ", "the winner's object is not replaced")
        finally:
            store.stop()

    def test_a_store_that_trickles_its_answer_times_out_instead_of_waiting_for_ever(self):
        store = TricklingStore()
        try:
            started = time.monotonic()
            run = self.upload(store, "--timeout", "2")
            took = time.monotonic() - started
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertIn("answering too slowly", run.stderr)
            self.assertIn("rerun to resume", run.stderr)
            self.assertLess(took, 60, "bounded by the overall deadline, not the reads")
        finally:
            store.stop()

    def test_a_timeout_that_is_not_a_number_of_seconds_is_a_usage_error(self):
        for value in ["0", "-1", "soon", "nan", "4000"]:
            run = subprocess.run([self.tool, "upload", self.cdn, "s3://race/tree", "--endpoint", "http://127.0.0.1:9", "--timeout", value],
                                 capture_output=True, text=True, env=environment())
            self.assertEqual(run.returncode, 2, value)
            self.assertIn("--timeout", run.stderr)


if __name__ == "__main__":
    unittest.main()
