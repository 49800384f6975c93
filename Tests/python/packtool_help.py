"""What the docs suites read from packtool itself, through its command line: the binary, the command names
`packtool --help` lists, and each command's options and examples as its `--help` prints them."""
import os
import re
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def packtool():
    """The debug packtool. `make test` builds it first and names its folder in PACKTOOL_BIN_DIR (asking SwiftPM would
    wait for the release build other suites run meanwhile); run alone, a suite builds it."""
    bin_dir = os.environ.get("PACKTOOL_BIN_DIR")
    if not bin_dir:
        subprocess.run(["swift", "build", "--product", "packtool"], cwd=REPO, check=True, capture_output=True)
        bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(bin_dir, "packtool")


def run(*args, **kwargs):
    """packtool's standard output for `args`; it must exit 0."""
    done = subprocess.run([packtool(), *args], capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise AssertionError(f"packtool {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def commands():
    """The command names, in the order `packtool --help` lists them."""
    return [line.split()[0] for line in run("--help").splitlines() if line.startswith("  ") and line.strip()]


def section(help_text, title):
    """The lines of a `--help` section (OPTIONS, EXAMPLES) up to the next blank line."""
    lines = help_text.split("\n" + title + "\n", 1)[1].split("\n\n", 1)[0]
    return [line for line in lines.splitlines() if line.strip()]


def options(command):
    """Each option `command --help` lists, as (name, short spelling or None, placeholder or None)."""
    found = []
    for line in section(run(command, "--help"), "OPTIONS"):
        m = re.match(r"  (?:(-\w), )?(--[\w-]+)(?: (\S+))?", line)
        if m:
            placeholder = m.group(3) if m.group(3) and re.match(r"^[^a-z(]|^[a-z]+(\|[a-z]+)*$", m.group(3)) else None
            found.append((m.group(2), m.group(1), placeholder))
    return found


def choices(placeholder):
    """The values a `text|json`-style placeholder allows; None for any other."""
    if placeholder and re.fullmatch(r"[a-z]+(\|[a-z]+)+", placeholder):
        return placeholder.split("|")
    return None


def examples(command):
    """The EXAMPLES of `command --help`, each as one command line."""
    return [line.strip() for line in section(run(command, "--help"), "EXAMPLES")]
