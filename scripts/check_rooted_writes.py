"""Keeps path-based file-system writes out of the client modules (issue 29, DESIGN.md §2): everything the client
writes or deletes under a root it was given goes through PackFiles' RootedFolder, which opens a directory handle once
and resolves every name beneath it without following links. A path-based `open(…, O_…)`, `unlink(`, `rename(`,
`mkdir(`, `rmdir(`, `link(`, `symlink(`, `truncate(`, a FileManager write or `Data.write(to:)` in a client module's
Swift source under Sources/ — any module: client, publisher, tools — is a finding, printed as file:line with the call
and why. Only the files module (PackFiles) is exempt.

A line may opt out only with a trailing `// rooted-writes: allow <reason>` comment naming why the call is safe (for
example: a path the process itself chose under a folder it has just opened). The reason is required.

Usage: check_rooted_writes.py [FILE-OR-FOLDER ...]   (no arguments: every module under Sources/)
       check_rooted_writes.py --self-test            (plants each forbidden shape in a scratch file; all must be found)"""
import os
import re
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# An allow-list (issue 43): every Swift module under Sources/ is checked — the client, the publisher and its state
# folder, the tools and their user caches — except the files module, the rooted layer itself and the primitives it
# builds on, the one place the raw calls belong. A line elsewhere opts out only with a reason (see above).
EXEMPT = [os.path.join("Sources", "PackFiles") + os.sep]

NOT_A_MEMBER = r"(?<![\w.])(?<!func )"
# A call's opening bracket, with any spacing before it (`removeItem (at:`).
CALL = r"\s*\("
RULES = [
    # Any unqualified `open(` with more than one argument: flags may be a variable (`open(path, flags, 0o600)`), and a
    # read-only open outside the files module says why it is safe on its line. A method of our own named `open` is
    # called as `self.open(` / `Self.open(`, so an unqualified call is always the C library's.
    (re.compile(NOT_A_MEMBER + r"open" + CALL + r"[^;]*,"), "path-based open(): open beneath a RootedFolder (openForReading, create, openExisting, openForResume)"),
    (re.compile(NOT_A_MEMBER + r"(unlink|rmdir|remove)" + CALL), "path-based remove: use RootedFolder.remove / removeTree (unlinkat relative to the handle)"),
    (re.compile(NOT_A_MEMBER + r"rename" + CALL), "path-based rename: use RootedFolder.rename (renameat within the root)"),
    (re.compile(r"\b(Glibc|Darwin|Foundation|Musl|WASILibc|ucrt)\.\w+" + CALL), "a call through the C module (or Foundation's re-export of it) by path: use RootedFolder"),
    (re.compile(NOT_A_MEMBER + r"mkdir" + CALL), "path-based mkdir: use RootedFolder.makeFolder / ensureFolder / folder(create:)"),
    (re.compile(NOT_A_MEMBER + r"(link|symlink)" + CALL), "path-based link: use RootedFolder.link / makeSymbolicLink (linkat/symlinkat relative to the handle)"),
    (re.compile(NOT_A_MEMBER + r"(truncate|creat|mkfifo|mknod|chmod|lchmod|chown|lchown|chflags|lchflags)" + CALL),
     "path-based change of a file: open it beneath a RootedFolder and use the descriptor"),
    # FileManager's writes through any receiver (`FileManager.default`, `FileManager()`, a local `fm`): the method names
    # are FileManager's own.
    (re.compile(r"\.(createDirectory|removeItem|moveItem|copyItem|linkItem|createFile|createSymbolicLink|replaceItem|replaceItemAt|trashItem|setAttributes)" + CALL),
     "FileManager write follows links: use RootedFolder"),
    (re.compile(r"\.write" + CALL + r"\s*to(File)?\s*:(?!\s*&)"), "Data/String.write(to:)/write(toFile:) follows a link at the name: use RootedFolder.writeAtomically / createIfAbsent"),
    (re.compile(r"\bFileHandle" + CALL + r"\s*(forWritingAtPath|forWritingTo|forUpdatingAtPath|forUpdating)\b"), "FileHandle opened for writing by path: open beneath a RootedFolder"),
    (re.compile(r"\bOutputStream" + CALL + r"\s*(toFileAtPath|url)\b"), "OutputStream to a path: open beneath a RootedFolder and write the descriptor"),
    (re.compile(NOT_A_MEMBER + r"(fopen|freopen)" + CALL), "fopen by path follows links: open beneath a RootedFolder"),
    (re.compile(r"\b\w+at" + CALL + r"\s*AT_FDCWD\b"), "an *at() call relative to the working folder is a path-based call: use the RootedFolder's handle"),
    (re.compile(r"\b\w+at" + CALL + r"[^)]*,\s*AT_FDCWD\s*,"), "an *at() call relative to the working folder is a path-based call: use the RootedFolder's handle"),
    (re.compile(NOT_A_MEMBER + r"(utimes|lutimes|utime|setxattr|lsetxattr|removexattr|lremovexattr|clonefile|copyfile|renamex_np|exchangedata)" + CALL),
     "a path-based change of a file: use the descriptor of a file opened beneath a RootedFolder"),
    (re.compile(NOT_A_MEMBER + r"(mkstemp|mkstemps|mkdtemp|mktemp|tmpfile)" + CALL), "a temporary file or folder by path: create it beneath a RootedFolder (createExclusive)"),
    (re.compile(r"\.setResourceValues" + CALL), "URL.setResourceValues writes through the path (and follows links): set it on a RootedFolder entry"),
]
ALLOW = re.compile(r"//\s*rooted-writes:\s*allow\s+\S")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def strip(line):
    """The code of `line`: string literals emptied (a `//` inside one is no comment), then any // comment cut."""
    stripped = line.lstrip()
    if stripped.startswith("///") or stripped.startswith("//") or stripped.startswith("*"):
        return ""
    code = STRING.sub('""', line)
    index = code.find("//")
    return code if index < 0 else code[:index]


def logical_lines(lines):
    """(first line number, joined code, whether any joined line carries an allow comment): a call whose brackets span
    several lines (`open(path,⏎ O_WRONLY)`, `data.write(⏎ to: url)`) is judged as one line."""
    pending, start, allowed, depth = "", 0, False, 0
    for number, line in enumerate(lines, start=1):
        code = strip(line)
        if not pending:
            start = number
        pending += " " + code.strip()
        allowed = allowed or bool(ALLOW.search(line))
        depth += code.count("(") - code.count(")")
        if depth <= 0 or number - start >= 12:
            yield start, pending, allowed
            pending, allowed, depth = "", False, 0
    if pending:
        yield start, pending, allowed


def check_file(path, display=None):
    display = display or path
    findings = []
    with open(path, encoding="utf-8") as f:
        for number, code, allowed in logical_lines(f.read().split("\n")):
            if not code.strip() or allowed:
                continue
            for pattern, why in RULES:
                match = pattern.search(code)
                if match:
                    findings.append(f"{display}:{number}: {match.group(0).strip()[:60]}… — {why}")
                    break
    return findings


def files_under(paths):
    out = []
    for path in paths:
        if os.path.isdir(path):
            for top, _, names in os.walk(path):
                out += [os.path.join(top, n) for n in sorted(names) if n.endswith(".swift")]
        else:
            out.append(path)
    return out


def modules_checked(files):
    """The modules (folders right under Sources/) the files belong to."""
    return {os.path.relpath(os.path.abspath(f), os.path.join(REPO, "Sources")).split(os.sep)[0] for f in files}


def exempt(path):
    rel = os.path.relpath(os.path.abspath(path), REPO)
    return any(rel.startswith(e) for e in EXEMPT)


# The write shapes an outside review planted (issue 43) and the ones before them: each must be found.
PLANTED = """\
let fd = open(path, O_RDWR | O_CREAT, 0o644)
unlink(downloads + "/x")
Glibc.rename(a, b)
try FileManager.default.removeItem(atPath: p)
try data.write(to: url)
mkdir(p, 0o755)
symlink(name, link)
let fm = FileManager.default; try fm.createDirectory(atPath: p, withIntermediateDirectories: true)
try FileManager().moveItem(at: a, to: b)
try text.write(toFile: p, atomically: true, encoding: .utf8)
let handle = FileHandle(forWritingAtPath: p)
let stream = OutputStream(toFileAtPath: p, append: true)
let f = fopen(p, "w")
let fd2 = openat(AT_FDCWD, p, O_WRONLY)
renameat(dir, a, AT_FDCWD, b)
utimes(p, nil)
let t = mkdtemp(&template)
try url.setResourceValues(values)
truncate(p, 0)
rmdir(p)
let fd3 = open(path, flags, 0o600)
_ = remove(path)
_ = Foundation.unlink(path)
Musl.rename(a, b)
lchown(path, 0, 0)
mknod(path, mode, 0)
let fd4 = open(path,
  O_WRONLY | O_CREAT)
let u = "https://x"; unlink(path)
try data.write(
  to: url)
try data.write(to : url)
try fm.removeItem (at: url)
"""


# The client session (issue 43): the state and install folders are opened from their paths once each, by the
# client's StateStore and InstallRoots, and every operation works beneath those handles. Any other
# `RootedFolder(opening:` in the client proper is a finding; the few that open something the session does not own say
# why here.
SESSION_MODULES = ["PackVerify", "PackBackground", "CPackVerify"]
SESSION_OPENS = {
    os.path.join("Sources", "PackVerify", "State", "StateStore.swift"): "the session's state folder",
    os.path.join("Sources", "PackVerify", "Install", "InstallRoots.swift"): "the session's install folders",
    os.path.join("Sources", "PackVerify", "Download", "FileFeed.swift"): "a downloaded file the app hands over by path (applyUpdate's files)",
    os.path.join("Sources", "PackVerify", "Install", "TouchedFolders.swift"): "the folders above the install folder a refused first install made, put back",
}
PATH_OPEN = re.compile(r"\bRootedFolder\(\s*opening:")


def path_opens(path):
    """The lines of `path` that turn a path into a RootedFolder handle (comments skipped)."""
    with open(path, encoding="utf-8") as f:
        return [n for n, line in enumerate(f, start=1) if PATH_OPEN.search(strip(line))]


def check_session_opens(files, shown=None):
    """Findings for path-to-handle opens outside the session's own files. `shown` maps a file to the name it is
    judged under (the self-test's scratch copies)."""
    findings = []
    for path in files:
        rel = (shown or {}).get(path) or os.path.relpath(os.path.abspath(path), REPO)
        if rel in SESSION_OPENS:
            continue
        findings += [f"{rel}:{n}: RootedFolder(opening:… — the client opens its folders from paths only in its session "
                     f"(StateStore, InstallRoots); work beneath the handles they give" for n in path_opens(path)]
    return findings


def self_test():
    with tempfile.TemporaryDirectory(prefix="rooted-writes-") as scratch:
        planted = os.path.join(scratch, "Planted.swift")
        with open(planted, "w") as f:
            f.write(PLANTED + "let ok = documents.open(data) // a method, not open(2)\nunlink(p) // rooted-writes: allow test\n")
        findings = check_file(planted)
        # One finding per planted statement, at its first line (continuation lines are indented).
        expected = [n for n, line in enumerate(PLANTED.split("\n"), start=1) if line and not line.startswith("  ")]
        found = [int(line.split(":")[1]) for line in findings]
        if found != expected:
            print(f"check-rooted-writes self-test FAILED: planted lines {expected}, found {found}:\n" + "\n".join(findings))
            return 1
        # A path open in a client file is found; the same line in one of the session's own files is not.
        with open(planted, "w") as f:
            f.write("let a = try RootedFolder(opening: into.path)\n// RootedFolder(opening: in a comment\n")
        stray = check_session_opens([planted], {planted: os.path.join("Sources", "PackVerify", "Install", "Planted.swift")})
        own = check_session_opens([planted], {planted: os.path.join("Sources", "PackVerify", "State", "StateStore.swift")})
        if len(stray) != 1 or own:
            print(f"check-rooted-writes self-test FAILED: session opens: planted {stray}, in the session's own file {own}")
            return 1
        # The allow-list: with no arguments every module under Sources/ is read — a new module is checked the day it
        # is made, without anyone adding it here — and the files module is not.
        modules = set(os.listdir(os.path.join(REPO, "Sources")))
        checked = modules_checked([f for f in files_under([os.path.join(REPO, "Sources")]) if not exempt(f)])
        if checked != modules - {"PackFiles"} - {m for m in modules if not files_under([os.path.join(REPO, "Sources", m)])}:
            print(f"check-rooted-writes self-test FAILED: the default scope reads {sorted(checked)}, not every module but PackFiles")
            return 1
    print(f"check-rooted-writes self-test: all {len(expected)} planted path-based write shapes found, the method call and the allowed line not; "
          "a planted path open of a folder in the client found, the session's own not; every module but PackFiles in scope")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    paths = argv[1:] or [os.path.join(REPO, "Sources")]
    files = [f for f in files_under(paths) if not exempt(f)]
    findings = []
    for path in files:
        findings += check_file(path, os.path.relpath(path, REPO) if os.path.abspath(path).startswith(REPO) else path)
    if not argv[1:]:
        session_files = files_under([os.path.join(REPO, "Sources", m) for m in SESSION_MODULES if os.path.exists(os.path.join(REPO, "Sources", m))])
        session = check_session_opens(session_files)
        for finding in session:
            print(finding)
        if session:
            print(f"check-rooted-writes: {len(session)} path open(s) of a folder outside the client's session")
            return 1
        print(f"check-rooted-writes: the client opens folders from paths only in its session and {len(SESSION_OPENS) - 2} named exceptions")
    for finding in findings:
        print(finding)
    if findings:
        print(f"check-rooted-writes: {len(findings)} path-based write(s) outside the files module; reach files beneath a root "
              "through RootedFolder (Sources/PackFiles/Rooted), or say why with `// rooted-writes: allow <reason>`")
        return 1
    print(f"check-rooted-writes: {len(files)} source files in {len(modules_checked(files))} modules (all but PackFiles), "
          "no path-based open/unlink/rename/mkdir/link or FileManager write")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
