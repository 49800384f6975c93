"""What a user who cannot write where they asked gets (the outside review of issue 29): a pack folder that is not
writable is an I/O failure (exit 2) saying so, not a refusal (exit 1) of a lock file that was never there. Run as an
unprivileged user: as root the test drops to `nobody` (root ignores permissions)."""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

import dsse
from test_presign import REPO, packtool


class PackFolderNotWritable(unittest.TestCase):
    def test_an_install_into_a_pack_folder_it_cannot_write_is_an_io_failure_naming_it(self):
        tool = packtool()
        work = tempfile.mkdtemp(prefix="packtool-perm-")
        try:
            os.chmod(work, 0o755)
            state, cdn = os.path.join(work, "state"), os.path.join(work, "cdn")
            dsse.root_init(tool, state)
            keys = dsse.example_keys()
            subprocess.run([tool, "sign", os.path.join(REPO, "scenes/royal-mile"), "--state", state, "--manifest-key", f"{keys}/manifest.pem",
                            "--index-key", f"{keys}/index.pem", "--publish", cdn], check=True, capture_output=True)
            app, client = os.path.join(work, "app"), os.path.join(work, "client")
            os.makedirs(os.path.join(app, "royal-mile"))
            os.makedirs(client)
            for folder, _, files in os.walk(work):
                os.chmod(folder, 0o755)
                for name in files:
                    os.chmod(os.path.join(folder, name), 0o644)
            os.chmod(os.path.join(app, "royal-mile"), 0o555)
            command = [tool, "install", os.path.join(cdn, "packs/royal-mile/1/royal-mile-1.tar"), "--into", app,
                       "--root", os.path.join(state, "root/1.root.json"), "--client-state", client, "--quiet"]
            if os.getuid() == 0:
                shutil.chown(client, "nobody", "nogroup")
                # The tool binary lives under the checkout (root's); nobody needs to run it.
                command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] + command
            run = subprocess.run(command, capture_output=True, text=True, timeout=120)
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertIn(os.path.join(app, "royal-mile"), run.stderr)
            self.assertIn("Permission denied", run.stderr)
            self.assertNotIn("not the lock file the installer makes", run.stderr)
            self.assertEqual(os.listdir(os.path.join(app, "royal-mile")), [], "nothing was written")
        finally:
            os.chmod(work, 0o755)
            for folder, _, _ in os.walk(work):
                os.chmod(folder, 0o755)
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
