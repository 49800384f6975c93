"""Encrypted keys at a real terminal (issue 41): `key generate` asks for the passphrase twice with echo off, a signing
command asks for it once, and what was typed never appears on the terminal. Run through a pseudo-terminal that is the
child's controlling terminal (`pty.fork`), as a person at a shell would be; OpenSSL then opens the key with the same
passphrase, so the file is the standard encrypted PKCS#8."""
import os
import pty
import select
import shutil
import subprocess
import tempfile
import time
import unittest

from test_presign import REPO, packtool

PASSPHRASE = b"typed at the terminal 42"


def converse(argv, answers, timeout=60):
    """Runs argv on a new pseudo-terminal; each time the output ends with a prompt from `answers` (in order), types
    the answer. Returns (exit code, everything the terminal showed)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    shown, pending, deadline = b"", list(answers), time.time() + timeout
    while True:
        if time.time() > deadline:
            os.kill(pid, 9)
            raise AssertionError(f"no answer in {timeout} s; the terminal showed:\n{shown.decode(errors='replace')}")
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                break
            shown += chunk
        if pending and shown.rstrip().endswith(pending[0][0]):
            os.write(fd, pending.pop(0)[1] + b"\n")
            shown += b"<answered>"
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), shown.decode(errors="replace")


class PassphraseAtATerminal(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tool = packtool()

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="packtool-tty-")

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def test_a_new_key_is_asked_for_twice_and_a_signing_command_once_without_echo(self):
        keys = os.path.join(self.work, "keys")
        code, shown = converse([self.tool, "key", "generate", "--role", "root", "--out", keys],
                               [(b"passphrase for the new key:", PASSPHRASE), (b"the same passphrase again:", PASSPHRASE)])
        self.assertEqual(code, 0, shown)
        self.assertNotIn(PASSPHRASE.decode(), shown, "echo is off while typing")
        self.assertIn("encrypted with the passphrase", shown)
        pem = os.path.join(keys, "root.pem")
        with open(pem) as f:
            self.assertTrue(f.read().startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        # OpenSSL opens it with what was typed.
        opened = subprocess.run(["openssl", "pkey", "-in", pem, "-passin", "pass:" + PASSPHRASE.decode(), "-noout"], capture_output=True)
        self.assertEqual(opened.returncode, 0, opened.stderr)
        # A command that signs with it asks once, naming the key.
        for role in ("manifest", "index", "grant"):
            subprocess.run([self.tool, "key", "generate", "--role", role, "--out", keys, "--unencrypted"], check=True, capture_output=True, stdin=subprocess.DEVNULL)
        state = os.path.join(self.work, "state")
        code, shown = converse([self.tool, "root", "init", "--state", state, "--root-key", pem, "--manifest-pub", os.path.join(keys, "manifest.pub"),
                                "--index-pub", os.path.join(keys, "index.pub"), "--grant-pub", os.path.join(keys, "grant.pub")],
                               [(f"passphrase for {pem}:".encode(), PASSPHRASE)])
        self.assertEqual(code, 0, shown)
        self.assertTrue(os.path.exists(os.path.join(state, "root", "1.root.json")))
        self.assertNotIn(PASSPHRASE.decode(), shown)

    def test_two_different_passphrases_write_no_key(self):
        keys = os.path.join(self.work, "keys")
        code, shown = converse([self.tool, "key", "generate", "--role", "index", "--out", keys],
                               [(b"passphrase for the new key:", PASSPHRASE), (b"the same passphrase again:", b"something else entirely")])
        self.assertEqual(code, 2, shown)
        self.assertIn("the two passphrases differ; nothing was written", shown)
        self.assertFalse(os.path.exists(os.path.join(keys, "index.pem")))


if __name__ == "__main__":
    unittest.main()
