"""scripts/check-rooted-writes.sh, fed planted path-based writes and clean code: it names file:line and why for each
open/unlink/rename/mkdir/link/FileManager write, ignores method calls, comments and lines that say why they are
allowed, exempts the rooted layer's own files, and passes the client modules as they are."""
import os
import subprocess
import tempfile
import textwrap
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "check-rooted-writes.sh")


class RootedWritesCheck(unittest.TestCase):
    def run_on(self, source):
        path = os.path.join(tempfile.mkdtemp(prefix="rooted-writes-"), "Planted.swift")
        with open(path, "w") as f:
            f.write(textwrap.dedent(source))
        run = subprocess.run([SCRIPT, path], capture_output=True, text=True)
        return run.returncode, [line[len(path) + 1:] for line in run.stdout.splitlines() if line.startswith(path)]

    def test_each_planted_path_based_write_is_named_with_its_line_and_why(self):
        status, findings = self.run_on("""\
            let fd = open(path, O_WRONLY | O_CREAT, 0o644)
            unlink(state + "/downloads/x")
            guard rename(partial, file) == 0 else { throw e }
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try data.write(to: url)
            """)
        self.assertEqual(status, 1)
        self.assertEqual([f.split(":")[0] for f in findings], ["1", "2", "3", "4", "5"])
        self.assertIn("RootedFolder", findings[0])
        self.assertIn("follows links", findings[3])

    def test_method_calls_comments_and_explained_lines_are_not_findings(self):
        status, findings = self.run_on("""\
            let grant = documents.open(data, as: GrantDocument.self)
            /// unlink(path) is what the layer avoids
            try folder.rename("a", to: "b")
            unlink(p) // rooted-writes: allow a scratch file this process made in its own temporary folder
            """)
        self.assertEqual((status, findings), (0, []))

    def test_an_allow_comment_without_a_reason_does_not_count(self):
        status, findings = self.run_on("unlink(p) // rooted-writes: allow\n")
        self.assertEqual(status, 1)
        self.assertEqual(len(findings), 1)

    def test_the_client_modules_as_they_are_pass(self):
        run = subprocess.run([SCRIPT], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("self-test: all", run.stdout)


if __name__ == "__main__":
    unittest.main()
