"""docs/lint-rules.md is exactly what scripts/lint-rules-doc.py writes, and speaks to authors: a heading per code
(so SARIF's helpUri anchors #ptNNNN exist) and no Swift type names."""
import os
import re
import subprocess
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "lint-rules-doc.py")


class LintRulesDoc(unittest.TestCase):
    def test_the_document_is_what_the_generator_writes(self):
        run = subprocess.run([sys.executable, SCRIPT, "--check"], capture_output=True, text=True, cwd="/")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def test_every_code_has_its_own_heading_and_no_programmer_vocabulary(self):
        with open(os.path.join(REPO, "docs", "lint-rules.md"), encoding="utf-8") as f:
            doc = f.read()
        headings = re.findall(r"^### (.*)$", doc, re.M)
        self.assertGreater(len(headings), 50)
        self.assertTrue(all(re.fullmatch(r"PT\d{4}", h) for h in headings), headings)
        self.assertNotIn("Checked by", doc)
        self.assertIsNone(re.search(r"`[A-Z][A-Za-z]+Rule`", doc))
        self.assertIsNone(re.search(r"(error|warning|note)\[PT", doc))


if __name__ == "__main__":
    unittest.main()
