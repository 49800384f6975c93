"""packtool's man pages, through its command line and man-db as a user reads them: `packtool docs man --out DIR`
writes packtool.1 and one packtool-COMMAND.1 per command; each renders with `man -l` at MANWIDTH=80 with no warning
(nor from `man --warnings` or `groff -ww`) and no line wider than 80 columns, has the sections a man page has, lets
man fill its prose (it wraps at any width), names every option `--help` lists, and shows every example so that its
lines pasted together are the example `--help` gives; `man packtool-lint` finds its page under a MANPATH."""
import os
import re
import shutil
import subprocess
import tempfile
import unicodedata
import unittest

import packtool_help
import required

SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES", "EXIT STATUS", "SEE ALSO"]


def columns(line):
    """How many terminal columns a rendered line takes (a full-width character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def render(page, width=80, *extra):
    """`man -l page` as a user at a terminal of `width` columns sees it: (text, standard error, exit status)."""
    env = dict(os.environ, MANWIDTH=str(width), MANPAGER="cat", PAGER="cat", LC_ALL="C.UTF-8")
    done = subprocess.run(["man", *extra, "-l", page], capture_output=True, text=True, env=env)
    return done.stdout, done.stderr, done.returncode


def rendered_sections(text):
    """The rendered page's sections by heading, each as its lines with man's seven-column indent removed."""
    found, current = {}, None
    for line in text.splitlines():
        if re.fullmatch(r"[A-Z][A-Z ]+", line):
            current = found.setdefault(line, [])
        elif current is not None:
            current.append(line[7:] if line.startswith("       ") else line)
    return found


class ManPages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        required.need_tool("man", "man-db")
        required.need_tool("groff", "groff-base")
        cls.dir = tempfile.mkdtemp(prefix="packtool-man-")
        cls.man1 = os.path.join(cls.dir, "man", "man1")
        cls.written = packtool_help.run("docs", "man", "--out", cls.man1).splitlines()
        cls.commands = packtool_help.commands()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def page(self, command=None):
        return os.path.join(self.man1, f"packtool-{command}.1" if command else "packtool.1")

    def test_out_writes_the_overview_and_one_page_per_command_and_prints_their_paths(self):
        self.assertGreater(len(self.commands), 20)
        expected = [self.page()] + [self.page(c) for c in self.commands]
        self.assertEqual(sorted(self.written), sorted(expected))
        self.assertEqual(sorted(os.listdir(self.man1)), sorted(os.path.basename(p) for p in expected))
        with open(self.page("lint"), encoding="ascii") as f:
            self.assertEqual(f.read(), packtool_help.run("docs", "man", "lint"), "docs man lint prints the page --out wrote")
        with open(self.page(), encoding="ascii") as f:
            self.assertEqual(f.read(), packtool_help.run("docs", "man"))

    def test_every_page_renders_at_80_columns_with_no_warning_and_no_wider_line(self):
        widest = {}
        for page in self.written:
            with self.subTest(page=os.path.basename(page)):
                text, errors, status = render(page)
                self.assertEqual((status, errors), (0, ""))
                title = os.path.basename(page)[:-2].upper()
                self.assertTrue(text.startswith(title + "(1)"), text[:80])
                widest[os.path.basename(page)] = max(columns(line) for line in text.splitlines())
                self.assertLessEqual(widest[os.path.basename(page)], 80, [l for l in text.splitlines() if columns(l) > 80])
                _, warnings, _ = render(page, 80, "--warnings")
                self.assertEqual(warnings, "")
                groff = subprocess.run(["groff", "-ww", "-z", "-man", page], capture_output=True, text=True)
                self.assertEqual((groff.returncode, groff.stderr), (0, ""))
                with open(page, "rb") as f:
                    f.read().decode("ascii")  # non-ASCII is written \[uXXXX]: no preprocessor needed
        print(f"\n  {len(widest)} pages, widest rendered line {max(widest.values())} columns")

    def test_each_command_page_has_the_sections_of_a_man_page_and_its_name_line(self):
        for command in self.commands:
            with self.subTest(command=command):
                text, _, _ = render(self.page(command))
                found = rendered_sections(text)
                self.assertEqual([s for s in found if s in SECTIONS], SECTIONS)
                self.assertIn("packtool(1)", " ".join(found["SEE ALSO"]))
                self.assertTrue(found["SYNOPSIS"][0].startswith(f"packtool {command}"), found["SYNOPSIS"])
                whatis = subprocess.run(["lexgrog", self.page(command)], capture_output=True, text=True).stdout
                self.assertIn(f'"packtool-{command} - ', whatis)

    def test_the_prose_is_filled_by_man_so_it_wraps_at_any_width(self):
        for page in self.written:
            with open(page, encoding="ascii") as f:
                self.assertNotIn("\n.nf\n", f.read(), page)
        narrow, errors, _ = render(self.page("lint"), 60)
        self.assertEqual(errors, "")
        description = rendered_sections(narrow)["DESCRIPTION"]
        self.assertGreater(len(description), 8)
        self.assertLessEqual(max(len(line) for line in description), 60 - 7)

    def test_every_option_help_lists_is_an_item_of_options_with_its_short_spelling(self):
        for command in self.commands:
            with self.subTest(command=command):
                text, _, _ = render(self.page(command))
                items = [line for line in rendered_sections(text)["OPTIONS"] if line.startswith("-")]
                for name, short, placeholder in packtool_help.options(command):
                    head = (f"{short}, " if short else "") + name + (f" {placeholder}" if placeholder else "")
                    self.assertTrue(any(line.startswith(head) for line in items), f"{command}: {head} in {items}")

    def test_every_example_pasted_from_the_page_is_the_example_help_gives(self):
        for command in self.commands:
            with self.subTest(command=command):
                text, _, _ = render(self.page(command))
                pasted, current = [], ""
                for line in rendered_sections(text)["EXAMPLES"]:
                    if not line.strip():
                        continue
                    current += line.strip() if current else line
                    if current.endswith(" \\"):
                        current = current[:-1]
                    else:
                        pasted.append(current)
                        current = ""
                self.assertEqual(pasted, packtool_help.examples(command))

    def test_the_overview_points_to_each_command_page(self):
        text, _, _ = render(self.page())
        found = rendered_sections(text)
        commands = " ".join(" ".join(found["COMMANDS"]).split())
        see_also = " ".join(" ".join(found["SEE ALSO"]).split())
        for command in self.commands:
            self.assertIn(f"see packtool-{command}(1)", commands)
            self.assertIn(f"packtool-{command}(1)", see_also)

    def test_man_finds_a_command_page_by_its_name_under_a_manpath(self):
        env = dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="80", LC_ALL="C.UTF-8")
        done = subprocess.run(["man", "-M", os.path.dirname(self.man1), "packtool-lint"], capture_output=True, text=True, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(done.stdout.startswith("PACKTOOL-LINT(1)"), done.stdout[:200])

    def test_a_mistyped_command_gets_a_did_you_mean_and_other_kinds_take_no_out(self):
        typo = subprocess.run([packtool_help.packtool(), "docs", "man", "lnit"], capture_output=True, text=True)
        self.assertEqual(typo.returncode, 2)
        self.assertIn("did you mean lint?", typo.stderr)
        out = subprocess.run([packtool_help.packtool(), "docs", "bash", "--out", self.dir], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("no --out", out.stderr)


if __name__ == "__main__":
    unittest.main()
