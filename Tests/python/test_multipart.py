"""Multipart uploads of large archives against a real SeaweedFS: parts carry their SHA-256 and the object's
composite checksum is what the parts make; an upload killed part-way resumes from the parts already in the store
(checked against the local bytes, not trusted); a part in the store with other bytes is sent again; stale uploads of
the same versioned name are aborted, and another tool's open uploads left alone; part sizes outside S3's limits are refused before anything is sent."""
import base64
import hashlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import dsse
import required
from test_presign import REPO, SeaweedFS, environment, packtool

MiB = 1 << 20
PART = 5 * MiB
KEY = "packs/big/1/big-1.tar"


class Throttle:
    """A loopback TCP relay to the store that passes request bytes at `rate` bytes a second, so that an upload takes
    long enough to be killed part-way on any machine."""

    def __init__(self, port, rate):
        self.port, self.rate = port, rate
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(32)
        self.endpoint = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.port))
            except OSError:
                client.close()
                continue
            threading.Thread(target=self.pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self.pipe, args=(upstream, client, False), daemon=True).start()

    def pipe(self, source, sink, slow):
        try:
            while True:
                data = source.recv(256 << 10)
                if not data:
                    break
                sink.sendall(data)
                if slow:
                    time.sleep(len(data) / self.rate)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stop(self):
        self.sock.close()


def composite(data, part=PART):
    digests = b"".join(hashlib.sha256(data[i:i + part]).digest() for i in range(0, len(data), part))
    return base64.b64encode(hashlib.sha256(digests).digest()).decode() + "-%d" % ((len(data) + part - 1) // part)


class Multipart(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        required.need_weed()
        cls.tool = packtool()
        cls.work = tempfile.mkdtemp(prefix="packtool-multipart-")
        cls.store = SeaweedFS()
        # The journal of this user's open multipart uploads lives in the cache folder.
        cls.cache = os.path.join(cls.work, "cache")
        os.makedirs(cls.cache)
        cls.env = environment(XDG_CACHE_HOME=cls.cache)
        # A tree with one 33 MiB archive (7 parts of 5 MiB, the last short) and an index.
        cls.tree = os.path.join(cls.work, "tree")
        os.makedirs(os.path.dirname(os.path.join(cls.tree, KEY)))
        cls.data = os.urandom(33 * MiB - 12345)
        with open(os.path.join(cls.tree, KEY), "wb") as f:
            f.write(cls.data)
        # A root and an index this catalogue signed (upload checks the index before anything is sent); the archive is
        # uploaded as an object the index does not sign.
        dsse.catalogue_tree(cls.tool, cls.work, cls.tree)

    @classmethod
    def tearDownClass(cls):
        cls.store.stop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def command(self, prefix, endpoint=None, *extra):
        return [self.tool, "upload", self.tree, f"s3://public/{prefix}", "--endpoint", endpoint or self.store.endpoint,
                "--multipart-threshold", "8MiB", "--part-size", "5MiB", *extra]

    def upload(self, prefix, *extra):
        return subprocess.run(self.command(prefix, None, *extra), capture_output=True, text=True, env=self.env, timeout=300)

    def open_uploads(self, prefix):
        return self.store.client.list_multipart_uploads(Bucket="public", Prefix=f"{prefix}/").get("Uploads", [])

    def assert_holds_the_archive(self, prefix):
        key = f"{prefix}/{KEY}"
        body = self.store.client.get_object(Bucket="public", Key=key)["Body"].read()
        self.assertEqual(hashlib.sha256(body).hexdigest(), hashlib.sha256(self.data).hexdigest())
        head = self.store.client.head_object(Bucket="public", Key=key, ChecksumMode="ENABLED")
        self.assertEqual(head.get("ChecksumSHA256"), composite(self.data), "the store's composite checksum is the parts' SHA-256s")
        self.assertEqual(head["CacheControl"], "public, max-age=31536000, immutable")
        self.assertEqual(head["ContentType"], "application/x-tar")
        self.assertEqual(head["Metadata"].get("sha256"), hashlib.sha256(self.data).hexdigest())
        self.assertEqual(self.open_uploads(prefix), [], "no upload is left open (stores keep and bill their parts)")

    def test_a_large_archive_goes_in_parts_and_a_rerun_finds_it(self):
        run = self.upload("whole")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn(f"uploaded {KEY} (in 7 parts)", run.stdout)
        self.assertEqual(run.stdout.splitlines()[-2], "uploaded index.json")
        self.assert_holds_the_archive("whole")
        again = self.upload("whole")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("0 uploaded (0.0 MB), 3 already there", again.stdout)

    def kill_part_way(self, prefix, *extra, parts_before_kill=2):
        """Starts an upload through a slow relay and kills it once `parts_before_kill` parts of a new upload are in the
        store; returns that upload's ID and its parts."""
        before = {u["UploadId"] for u in self.open_uploads(prefix)}
        throttle = Throttle(self.store.port, rate=2 * MiB)  # per connection; packtool uses four
        try:
            p = subprocess.Popen(self.command(prefix, throttle.endpoint, *extra), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
            deadline, upload, parts = time.time() + 60, None, []
            while time.time() < deadline and len(parts) < parts_before_kill:
                upload = next((u for u in self.open_uploads(prefix) if u["UploadId"] not in before), None)
                if upload:
                    parts = self.store.client.list_parts(Bucket="public", Key=upload["Key"], UploadId=upload["UploadId"]).get("Parts", [])
                time.sleep(0.05)
            p.kill()
            p.wait()
            # Bytes already in the relay still reach the store: wait until its list of parts stops changing.
            while upload:
                time.sleep(1)
                settled = self.store.client.list_parts(Bucket="public", Key=upload["Key"], UploadId=upload["UploadId"]).get("Parts", [])
                if len(settled) == len(parts):
                    break
                parts = settled
        finally:
            throttle.stop()
        self.assertGreaterEqual(len(parts), parts_before_kill, "the upload was killed after some parts were in the store")
        return upload["UploadId"], parts

    def test_an_upload_killed_part_way_resumes_from_the_parts_in_the_store(self):
        upload, parts = self.kill_part_way("killed")
        self.assertIn(upload, [u["UploadId"] for u in self.open_uploads("killed")], "the killed upload is still open")
        listed = self.store.client.list_objects_v2(Bucket="public", Prefix="killed/").get("Contents", [])
        self.assertNotIn("killed/index.json", [o["Key"] for o in listed], "index.json waits for the archive")
        run = self.upload("killed")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        line = next(l for l in run.stdout.splitlines() if l.startswith(f"uploaded {KEY}"))
        resumed = int(line.split(", ")[1].split()[0])
        self.assertGreaterEqual(resumed, len(parts), line)
        self.assertIn("already in the store from an interrupted upload", line)
        self.assert_holds_the_archive("killed")

    def test_a_part_with_other_bytes_is_sent_again_stale_uploads_aborted_and_others_left_alone(self):
        key = f"stale/{KEY}"
        client = self.store.client
        # Another tool's upload of the same key: never resumed, never aborted.
        foreign = client.create_multipart_upload(Bucket="public", Key=key, ChecksumAlgorithm="SHA256")["UploadId"]
        # Our first upload, killed after two parts; then the first part replaced with other bytes of the same size.
        first, _ = self.kill_part_way("stale")
        wrong = bytes(PART)
        client.upload_part(Bucket="public", Key=key, UploadId=first, PartNumber=1, Body=wrong,
                           ChecksumSHA256=base64.b64encode(hashlib.sha256(wrong).digest()).decode())
        # Our second upload, with 6 MiB parts, none of which matches the first's: a new upload, killed too.
        second, _ = self.kill_part_way("stale", "--part-size", "6MiB", parts_before_kill=1)
        # Counted only now: a part of the first upload still in the relay when it was killed may land after its list
        # first settled (a 5 MiB part takes 2.5 s at the relay's rate), and then it is kept too.
        kept = len({p["PartNumber"] for p in client.list_parts(Bucket="public", Key=key, UploadId=first)["Parts"]} - {1})
        self.assertNotEqual(first, second)
        run = self.upload("stale")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn(f"uploaded {KEY} (in 7 parts, {kept} already in the store from an interrupted upload)", run.stdout,
                      "the first upload is resumed, keeping only the parts that hold the local bytes")
        self.assertIn("1 stale multipart upload aborted", run.stdout)
        self.assertEqual([u["UploadId"] for u in self.open_uploads("stale")], [foreign], "another tool's upload is left open")
        client.abort_multipart_upload(Bucket="public", Key=key, UploadId=foreign)
        self.assert_holds_the_archive("stale")

    def test_without_a_journal_an_interrupted_upload_starts_again_and_leaves_the_old_one(self):
        env = dict(self.env)
        self.env = environment(HOME="/nonexistent-home")
        try:
            old, _ = self.kill_part_way("nojournal", parts_before_kill=1)
            run = subprocess.run(self.command("nojournal"), capture_output=True, text=True, env=self.env, timeout=300)
        finally:
            self.env = env
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn(f"uploaded {KEY} (in 7 parts)", run.stdout)
        self.assertEqual([u["UploadId"] for u in self.open_uploads("nojournal")], [old], "an upload it cannot tell is its own is not aborted")
        self.store.client.abort_multipart_upload(Bucket="public", Key=f"nojournal/{KEY}", UploadId=old)
        self.assert_holds_the_archive("nojournal")

    def test_a_large_archive_changed_after_signing_is_never_completed(self):
        from test_upload import publish
        cdn = publish(self.tool, os.path.join(self.work, "signed"))
        archive = os.path.join(cdn, "packs/royal-mile/1/royal-mile-1.tar")
        with open(archive, "r+b") as f:
            f.seek(os.path.getsize(archive) - 5000)
            byte = f.read(1)
            f.seek(-1, 1)
            f.write(bytes([byte[0] ^ 1]))
        run = subprocess.run([self.tool, "upload", cdn, "s3://public/changed", "--endpoint", self.store.endpoint,
                              "--multipart-threshold", "1MiB", "--part-size", "5MiB"], capture_output=True, text=True, env=self.env, timeout=120)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("royal-mile-1.tar is not the file the tree's index.json signs", run.stderr)
        keys = [o["Key"] for o in self.store.client.list_objects_v2(Bucket="public", Prefix="changed/").get("Contents", [])]
        self.assertNotIn("changed/packs/royal-mile/1/royal-mile-1.tar", keys)
        self.assertNotIn("changed/index.json", keys)
        self.assertEqual(self.open_uploads("changed"), [], "the upload of the changed bytes was aborted")

    def test_part_sizes_outside_s3s_limits_are_refused_before_anything_is_sent(self):
        for size in ["1MiB", "6GiB", "0", "5 MiB", "lots"]:
            run = subprocess.run([self.tool, "upload", self.tree, "s3://public/limits", "--endpoint", self.store.endpoint, "--part-size", size],
                                 capture_output=True, text=True, env=self.env, timeout=60)
            self.assertEqual(run.returncode, 2, size)
            self.assertIn("--part-size", run.stderr)
        self.assertEqual(self.store.client.list_objects_v2(Bucket="public", Prefix="limits/").get("KeyCount", 0), 0)


if __name__ == "__main__":
    unittest.main()
