"""`packtool upload --dry-run` against a real S3-compatible server (SeaweedFS, as test_upload.py starts it), every
request it makes passing through a relay that records the request lines: on an empty bucket every object is a put,
in upload order, and the bucket stays empty; after a real upload, a tree with one file changed names exactly that
object, and the real upload then sends exactly what the dry run said; a refused tree exits as upload would, names
the cause, and leaves the bucket as it was. In every case the relay saw only GET and HEAD requests, and every object's
ETag is what it was before."""
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import unittest

import required
from test_presign import SeaweedFS, environment, packtool
from test_upload import publish

REQUEST_LINE = re.compile(rb"(?:^|\r\n)([A-Z]+) (\S+) HTTP/1\.[01]\r\n")


class RecordingRelay:
    """A TCP relay to the store that records the method and target of every request sent through it. A dry run sends
    no body, so each request line is found whole in what the client sends; a request with a body would be a write,
    which is what the tests look for."""

    def __init__(self, port):
        self.target = port
        self.requests = []
        self.lock = threading.Lock()
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.endpoint = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self.pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self.pump, args=(upstream, client, False), daemon=True).start()

    def pump(self, source, sink, record):
        seen = b""
        try:
            while data := source.recv(65536):
                if record:
                    seen += data
                    with self.lock:
                        self.requests += [(m.decode(), t.decode()) for m, t in REQUEST_LINE.findall(seen)]
                    seen = seen[max(0, seen.rfind(b"\r\n")):]   # a request line split between reads is found next time
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def take(self):
        with self.lock:
            taken, self.requests = self.requests, []
        return taken

    def stop(self):
        self.server.close()


class UploadDryRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        required.need_weed()
        cls.tool = packtool()
        cls.work = tempfile.mkdtemp(prefix="packtool-dry-run-")
        cls.cdn = publish(cls.tool, cls.work)
        cls.store = SeaweedFS()
        cls.relay = RecordingRelay(cls.store.port)

    @classmethod
    def tearDownClass(cls):
        cls.relay.stop()
        cls.store.stop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def run_upload(self, tree, prefix, *flags, through_relay=False):
        endpoint = self.relay.endpoint if through_relay else self.store.endpoint
        return subprocess.run([self.tool, "upload", tree, f"s3://public/{prefix}", "--endpoint", endpoint, *flags],
                              capture_output=True, text=True, env=environment(), timeout=300)

    def dry_run(self, tree, prefix, *flags):
        """The dry run through the relay, and the requests it made (each checked to be a read)."""
        self.relay.take()
        run = self.run_upload(tree, prefix, "--dry-run", *flags, through_relay=True)
        requests = self.relay.take()
        self.assertTrue(requests, "the relay saw the dry run's requests")
        self.assertEqual({m for m, _ in requests} - {"GET", "HEAD"}, set(), f"a dry run only reads: {requests}")
        return run, requests

    def etags(self, prefix):
        listing = self.store.client.list_objects_v2(Bucket="public", Prefix=prefix + "/")
        return {o["Key"][len(prefix) + 1:]: o["ETag"] for o in listing.get("Contents", [])}

    def tree_files(self, tree):
        return sorted(os.path.relpath(os.path.join(d, f), tree) for d, _, fs in os.walk(tree) for f in fs)

    @staticmethod
    def actions(stdout):
        """(action, path) for each object line, in order."""
        return [tuple(line.split()[:2]) for line in stdout.splitlines() if line.startswith("  ")]

    def test_on_an_empty_bucket_every_object_is_a_put_in_upload_order_and_nothing_is_sent(self):
        run, requests = self.dry_run(self.cdn, "empty", "--multipart-threshold", "5MiB")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        files = self.tree_files(self.cdn)
        listed = self.actions(run.stdout)
        self.assertEqual({a for a, _ in listed}, {"put"})
        self.assertEqual(sorted(p for _, p in listed), files)
        self.assertEqual([p for _, p in listed][-2:], ["root/1.root.json", "index.json"], "the roots go in with the index, which goes last")
        archive = next(l for l in run.stdout.splitlines() if ".tar (" in l)
        size = os.path.getsize(os.path.join(self.cdn, archive.split()[1]))
        self.assertTrue(archive.endswith(f" ({size} bytes in 1 part)"), f"a file over the threshold goes in parts: {archive}")
        self.assertIn("; version ", run.stdout.splitlines()[-2])
        self.assertIn("the bucket has none", run.stdout.splitlines()[-2])
        self.assertRegex(run.stdout.splitlines()[-1], rf"^upload --dry-run: s3://public/empty: {len(files)} to put \(\d+\.\d MB\), 0 to replace, 0 unchanged; nothing was sent$")
        self.assertEqual(self.etags("empty"), {}, "the bucket is still empty")
        self.assertFalse(any("uploads" in target for _, target in requests), "no multipart upload was started or listed for abort")

        as_json, _ = self.dry_run(self.cdn, "empty", "--format", "json")
        self.assertEqual(as_json.returncode, 0, as_json.stderr)
        report = json.loads(as_json.stdout)
        self.assertEqual((report["dryRun"], report["ok"], report["put"], report["replace"], report["unchanged"], report["refused"]),
                         (True, True, len(files), 0, 0, None))
        self.assertEqual([o["path"] for o in report["objects"]], [p for _, p in listed])
        self.assertEqual(report["bytesToSend"], sum(os.path.getsize(os.path.join(self.cdn, f)) for f in files))
        self.assertEqual(self.etags("empty"), {})

    def test_after_an_upload_a_changed_file_is_the_one_object_named_and_upload_then_sends_exactly_it(self):
        upload = self.run_upload(self.cdn, "changed")
        self.assertEqual(upload.returncode, 0, upload.stderr)
        before = self.etags("changed")
        same, _ = self.dry_run(self.cdn, "changed")
        self.assertEqual(same.returncode, 0, same.stderr)
        self.assertEqual({a for a, _ in self.actions(same.stdout)}, {"unchanged"})
        self.assertIn(f": 0 to put (0.0 MB), 0 to replace, {len(before)} unchanged; nothing was sent", same.stdout)

        # The same signed index in other envelope bytes: only index.json differs, and it would replace the bucket's.
        second = os.path.join(self.work, "second")
        shutil.copytree(self.cdn, second)
        with open(f"{second}/index.json", "ab") as f:
            f.write(b"\n")
        run, _ = self.dry_run(second, "changed", "--quiet")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.stdout.count("\n"), 1, "--quiet prints only the summary")
        run, _ = self.dry_run(second, "changed")
        changed = [(a, p) for a, p in self.actions(run.stdout) if a != "unchanged"]
        self.assertEqual(changed, [("replace", "index.json")])
        self.assertIn(f": 0 to put (0.0 MB), 1 to replace, {len(before) - 1} unchanged; nothing was sent", run.stdout)
        self.assertEqual(self.etags("changed"), before, "nothing in the bucket changed")

        real = self.run_upload(second, "changed")
        self.assertEqual(real.returncode, 0, real.stderr)
        self.assertEqual([l.split()[1] for l in real.stdout.splitlines() if l.startswith("uploaded ")], [p for _, p in changed],
                         "the upload sent what the dry run named")

    def test_a_refused_tree_exits_as_upload_would_and_the_bucket_is_left_as_it_was(self):
        self.assertEqual(self.run_upload(self.cdn, "clash").returncode, 0)
        before = self.etags("clash")
        other = os.path.join(self.work, "other")
        shutil.copytree(self.cdn, other)
        with open(f"{other}/root/1.root.json", "ab") as f:
            f.write(b" ")
        with open(f"{other}/index.json", "ab") as f:
            f.write(b" ")
        for flags in [(), ("--format", "json")]:
            run, _ = self.dry_run(other, "clash", *flags)
            self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
            self.assertIn("root/1.root.json is already there with other bytes", run.stderr)
            self.assertIn("--dry-run: nothing was sent", run.stderr)
            if flags:
                report = json.loads(run.stdout)
                self.assertEqual((report["ok"], report["refused"]["path"], report["objects"][-1]["action"]), (False, "root/1.root.json", "refuse"))
            else:
                self.assertEqual(self.actions(run.stdout)[-1], ("refuse", "root/1.root.json"), "the list ends where upload would stop")
                self.assertNotIn("index.json", [p for _, p in self.actions(run.stdout)])
                self.assertIn("refused at root/1.root.json", run.stdout.splitlines()[-1])
            self.assertEqual(self.etags("clash"), before)
        real = self.run_upload(other, "clash")
        self.assertEqual(real.returncode, 1, "upload itself refuses it the same way")

    def test_a_tree_changed_after_signing_is_refused_as_upload_refuses_it(self):
        changed = os.path.join(self.work, "tampered")
        shutil.copytree(self.cdn, changed)
        manifest = next(f for f in self.tree_files(changed) if f.endswith("manifest.json"))
        with open(os.path.join(changed, manifest), "ab") as f:
            f.write(b" ")
        run, _ = self.dry_run(changed, "tampered")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("is not the file the tree's index.json signs", run.stderr)
        self.assertEqual(self.actions(run.stdout)[-1], ("refuse", manifest))
        self.assertEqual(self.etags("tampered"), {})


if __name__ == "__main__":
    unittest.main()
