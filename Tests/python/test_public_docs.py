"""scripts/check-public-docs.py: every public declaration of the client modules carries a /// DocC comment (issue 30,
part 5), and the check names an undocumented one by file, line, kind and name."""
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "check-public-docs.py")


class PublicDocs(unittest.TestCase):
    def run_check(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def scratch(self, text):
        root = tempfile.mkdtemp(prefix="packtool-public-docs-")
        os.makedirs(os.path.join(root, "Sources", "PackModel"))
        with open(os.path.join(root, "Sources", "PackModel", "Thing.swift"), "w") as f:
            f.write(text)
        return root

    def test_the_client_modules_public_api_is_documented(self):
        run = self.run_check()
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("every public declaration documented", run.stdout)

    def test_the_self_test_finds_every_planted_declaration(self):
        run = self.run_check("--self-test")
        self.assertEqual(run.returncode, 0, run.stdout)

    def test_an_undocumented_public_function_is_named_with_its_line(self):
        root = self.scratch("/// A thing.\npublic struct Thing {\n    /// Documented.\n    public var a = 1\n\n"
                            "    @discardableResult\n    public func reset(to value: Int, _ b: Int) -> Int { value }\n}\n")
        run = self.run_check("--root", root, "--pending", os.path.join(root, "none.txt"))
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("Sources/PackModel/Thing.swift:7: func PackModel.Thing.reset(to:_:)", run.stdout)
        self.assertNotIn("Thing.a", run.stdout)

    def test_a_pending_name_is_not_reported(self):
        root = self.scratch("/// A thing.\npublic struct Thing {\n    public let b: Int\n}\n")
        pending = os.path.join(root, "pending.txt")
        with open(pending, "w") as f:
            f.write("# in a file someone else is editing\nPackModel.Thing.b\n")
        run = self.run_check("--root", root, "--pending", pending)
        self.assertEqual(run.returncode, 0, run.stdout)


if __name__ == "__main__":
    unittest.main()
