"""Finds Linux-only symbols in the client modules' Swift sources that Apple platforms would not compile (or would
compile into the wrong behaviour), unless they sit inside an `#if os(Linux)` / `#if canImport(Glibc)` block.

Tracks `#if`/`#elseif`/`#else`/`#endif` nesting: a symbol in the `#else` of `#if os(Linux)` is not guarded. Comments
are ignored; string literals are not (a "/proc/" path in a string is exactly what must be found). `import Glibc`
needs a `#elseif canImport(Darwin)` branch in the same `#if`, unless the whole region is Linux-only.
With no arguments it checks the client modules under Sources/ and, from `swift package dump-package`, that none of
them depends (directly or through another target) on PackSigning, or on COpenSSL or CTLS on any platform but Linux.
Every flush of a client module goes through PackFiles' Durability seam (F_FULLFSYNC barriers on Darwin, where a plain
fsync leaves the data in the drive's cache): `fsync`, `fdatasync` or `F_FULLFSYNC` in any other file is a finding,
guarded or not.
Usage: portability_check.py [FILE-OR-FOLDER ...]"""
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIENT_MODULES = ["PackFiles", "PackCrypto", "PackModel", "PackTrust", "PackFetch", "PackVerify", "PackURLSession", "PackBackground"]

SYMBOLS = [(name, re.compile(r"\b" + name + r"\b")) for name in [
    "st_mtim", "st_ctim", "fdatasync", "sync_file_range", "syncfs", "CLOCK_BOOTTIME", "MSG_NOSIGNAL", "SOCK_CLOEXEC",
    "O_TMPFILE", "statx", "renameat2", "posix_fadvise", "sigtimedwait", "pipe2", "accept4", "epoll_create1", "eventfd",
    "memfd_create", "sched_getaffinity", "get_nprocs", "mallinfo", "MAP_POPULATE"]] + [
    ("/proc/", re.compile(r"/proc/")),
    # Not in Darwin's Swift overlay at all (use `_NSGetEnviron().pointee` or ProcessInfo there).
    ("environ", re.compile(r"(?<![.\w])(?:__)?environ\b(?!\s*:)")),
    ("program_invocation_name", re.compile(r"\bprogram_invocation(?:_short)?_name\b")),
    # Glibc imports socket types as an enum (`SOCK_STREAM.rawValue`); Darwin's are plain Int32 constants.
    ("SOCK_*.rawValue", re.compile(r"\bSOCK_[A-Z]+\.rawValue\b")),
]
# C struct fields whose types differ in width between Glibc and Darwin: written from a Swift integer of one fixed type
# they compile on one platform only (or trap on the other). Each must go through the field's own C type.
WIDTH_RULES = [
    ("tv_usec", re.compile(r"\btv_usec\s*:(?!\s*suseconds_t\()"), "tv_usec is Int32 on Darwin and Int on Linux: pass suseconds_t(…)"),
    ("sin_family", re.compile(r"\bsin6?_family\s*=(?!=)(?!\s*sa_family_t\()"), "sa_family_t is UInt8 on Darwin and UInt16 on Linux: assign sa_family_t(…)"),
    ("st_dev", re.compile(r"\b(?:U?Int(?:64|32)?)\(\s*[\w.]*\.st_r?dev\s*\)"),
     "dev_t is Int32 on Darwin and UInt64 on Linux: convert with truncatingIfNeeded: (a plain conversion traps on a negative Int32)"),
]
# C library calls: a file that imports Glibc for them must also import Darwin or Foundation for Apple platforms (a
# file importing only Glibc compiles here and not on a Mac). Files importing neither get the C library through the
# modules they import, on both platforms alike.
LIBC_CALL = re.compile(r"(?<![.\w])(?<!func )(isatty|strerror|posix_spawnp|fstat|lstat|fstatat|openat|unlinkat|renameat|mkdirat|"
                       r"linkat|opendir|fdopendir|readdir|closedir|clock_gettime|nanosleep|usleep|waitpid|sigaction|flock|fcntl|"
                       r"ftruncate|lseek|realpath|strdup|strnlen|getpid|dup2|pread|pwrite|getenv|setenv)\s*\(")
STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')
IMPORT_FOUNDATION = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|private|fileprivate|package)\s+)?import\s+Foundation\b")
# Client modules only: the publisher's modules link OpenSSL on every platform, and flush files of their own.
CLIENT_SYMBOLS = [
    ("import COpenSSL", re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|private|fileprivate|package)\s+)?import\s+COpenSSL\b")),
    ("import CTLS", re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|private|fileprivate|package)\s+)?import\s+CTLS\b")),
]
DURABILITY_SEAM = "Durability.swift"
FLUSH_CALL = re.compile(r"\b(fsync|fdatasync|F_FULLFSYNC)\b")
IMPORT_GLIBC = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|private|fileprivate|package)\s+)?import\s+Glibc\b")
IMPORT_DARWIN = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|private|fileprivate|package)\s+)?import\s+Darwin\b")
DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")
# Package.swift defines PACKTOOL_CRYPTOKIT for PackCrypto on every Apple platform, so code under
# `#if !PACKTOOL_CRYPTOKIT` (the OpenSSL backend) is never compiled there.
# `!canImport(Darwin)` is how the client's Linux branches are written (Darwin first, so the Apple stand-in build,
# where `import Darwin` resolves to the stand-ins, compiles the Darwin branch as an Apple build does).
LINUX_ATOMS = {"os(Linux)", "os(Android)", "canImport(Glibc)", "canImport(Musl)", "!PACKTOOL_CRYPTOKIT", "!canImport(Darwin)"}


# The CryptoKit backend's condition: the define, or a platform Package.swift declares (macOS, iOS).
APPLE_ATOMS = {"PACKTOOL_CRYPTOKIT", "os(macOS)", "os(iOS)"}


def is_apple_only(condition):
    """True for the CryptoKit backend's condition: the define, alone or with Apple `os(…)` atoms joined by `||`. Its
    `#else` is the OpenSSL backend, which Package.swift builds on Linux only. (A bare `os(macOS)` does not count: its
    `#else` may be any other system.)"""
    c = re.sub(r"\s+", "", condition)
    while c.startswith("(") and c.endswith(")"):
        c = c[1:-1]
    parts = c.split("||")
    return "&&" not in c and "!" not in c and "PACKTOOL_CRYPTOKIT" in parts and all(part in APPLE_ATOMS for part in parts)


def is_linux_only(condition):
    """True when a condition can hold only on Linux-like systems: a Linux atom alone, every side of an `||` one, one
    side of an `&&`, or the negation of an Apple-only condition."""
    c = re.sub(r"\s+", "", condition)
    while c.startswith("(") and c.endswith(")"):
        c = c[1:-1]
    if c.startswith("!(") and c.endswith(")") and is_apple_only(c[1:]):
        return True
    if "&&" in c:
        return any(is_linux_only(part) for part in c.split("&&"))
    if "||" in c:
        return all(is_linux_only(part) for part in c.split("||"))
    return c in LINUX_ATOMS


def is_negated_linux(condition):
    """True for `!os(Linux)`, `canImport(Darwin)` and the like, whose `#else` branch is the Linux-only one."""
    c = re.sub(r"\s+", "", condition)
    return is_apple_only(c) or c == "canImport(Darwin)" or (c.startswith("!") and is_linux_only(c[1:]))


def names_darwin(condition):
    c = re.sub(r"\s+", "", condition)
    return any(a in c for a in ["canImport(Darwin)", "os(macOS)", "os(iOS)"]) and not c.startswith("!")


class Frame:
    """One `#if … #endif` block: whether its current branch is Linux-only, and what the `import Glibc` rule needs."""

    def __init__(self, condition):
        self.negated = is_negated_linux(condition)
        self.guarded = is_linux_only(condition)
        self.has_darwin_branch = False
        self.glibc_imports = []


def strip_comments(line, in_block):
    """The code on a line without `//` and `/* */` comments (strings kept); and whether a block comment is still open."""
    out, i, in_string = [], 0, False
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
            continue
        ch = line[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < len(line):
                out.append(line[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block = True
            i += 2
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out), in_block


def check_file(path, display=None, client=True):
    """Findings as "file:line: what" strings. `client`: a client module's file, held to every rule; any other file
    that Apple platforms build (the publisher's modules, the tool, the tests) is held to the Linux-only symbols, the
    Glibc-needs-Darwin import rule, the C library import for its calls and the struct fields whose widths differ
    (the three classes that let packtool itself break on macOS while this check passed)."""
    display = display or path
    findings, stack, in_block = [], [], False
    first_libc_call, darwin_libc, imports_glibc = None, False, False
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, raw in enumerate(lines, 1):
        code, in_block = strip_comments(raw, in_block)
        directive = DIRECTIVE.match(code)
        if directive:
            kind, condition = directive.group(1), directive.group(2).strip()
            if kind == "if":
                stack.append(Frame(condition))
            elif not stack:
                findings.append(f"{display}:{number}: #{kind} without #if")
            elif kind == "elseif":
                stack[-1].guarded = is_linux_only(condition)
                stack[-1].has_darwin_branch |= names_darwin(condition)
            elif kind == "else":
                stack[-1].guarded = stack[-1].negated
            else:
                frame = stack.pop()
                for line_number in frame.glibc_imports:
                    if not frame.has_darwin_branch:
                        findings.append(f"{display}:{line_number}: import Glibc without a #elseif canImport(Darwin) branch")
            continue
        flush = FLUSH_CALL.search(code) if client else None
        if flush and os.path.basename(path) != DURABILITY_SEAM:
            findings.append(f"{display}:{number}: {flush.group(1)} outside the Durability seam (use Durability.flushFile/flushFolder/barrier)")
        guarded = any(frame.guarded for frame in stack)
        imports_glibc |= bool(IMPORT_GLIBC.match(code))
        if IMPORT_GLIBC.match(code) and client:
            # The whole region is Linux-only when an enclosing block (not the import's own) is.
            if not any(frame.guarded for frame in stack[:-1]):
                if stack:
                    stack[-1].glibc_imports.append(number)
                else:
                    findings.append(f"{display}:{number}: import Glibc without a #elseif canImport(Darwin) branch")
            continue
        if IMPORT_DARWIN.match(code) and stack and not stack[-1].guarded:
            stack[-1].has_darwin_branch = True
        if (IMPORT_DARWIN.match(code) or IMPORT_FOUNDATION.match(code)) and not guarded:
            darwin_libc = True
        if guarded:
            continue
        call = LIBC_CALL.search(STRING_LITERAL.sub('""', code))
        if call and first_libc_call is None and not code.lstrip().startswith("import "):
            first_libc_call = (number, call.group(1))
        for name, pattern, why in WIDTH_RULES:
            if pattern.search(code):
                findings.append(f"{display}:{number}: {why}")
        for name, pattern in SYMBOLS + (CLIENT_SYMBOLS if client else []):
            if pattern.search(code):
                findings.append(f"{display}:{number}: {name} outside #if os(Linux)")
    for frame in stack:
        findings.append(f"{display}: #if without #endif")
    if first_libc_call and imports_glibc and not darwin_libc:
        number, name = first_libc_call
        findings.append(f"{display}:{number}: {name}() needs the C library on Apple platforms too: import Darwin (beside Glibc) or Foundation")
    return findings


FORBIDDEN_FOR_CLIENTS = {"PackSigning": "the signing half", "COpenSSL": "OpenSSL's libcrypto", "CTLS": "OpenSSL's libssl"}


def manifest_findings(package):
    """Findings for client modules in a `swift package dump-package` document that reach a forbidden target. A
    dependency conditioned on Linux alone is allowed (that is how PackCrypto uses COpenSSL)."""
    targets = {t["name"]: t for t in package.get("targets", [])}

    def edges(target):
        for dep in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dep:
                    name, condition = dep[kind][0], dep[kind][-1]
                    platforms = (condition or {}).get("platformNames") if isinstance(condition, dict) else None
                    yield name, platforms

    findings = []
    for client in CLIENT_MODULES:
        if client not in targets:
            continue
        seen, queue = set(), [(client, [client])]
        while queue:
            name, path = queue.pop(0)
            for dep, platforms in edges(targets.get(name, {})):
                if platforms == ["linux"] or dep in seen:
                    continue
                seen.add(dep)
                if dep in FORBIDDEN_FOR_CLIENTS:
                    findings.append(f"Package.swift: {client} depends on {dep} ({FORBIDDEN_FOR_CLIENTS[dep]}) through "
                                    f"{' -> '.join(path + [dep])}" + ("" if platforms is None else f" on {', '.join(platforms)}"))
                queue.append((dep, path + [dep]))
    return findings


def swift_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for folder, _, names in sorted(os.walk(path)):
                for name in sorted(names):
                    if name.endswith(".swift"):
                        yield os.path.join(folder, name)
        elif os.path.exists(path):
            yield path


def other_folders():
    """Every other folder of Swift sources a macOS build of the package compiles: the publisher's modules, the tool,
    the C library's wrapper, the fuzz targets and the tests (not the CryptoKit stand-in, which exists only on Linux)."""
    folders = []
    for top in ["Sources", "Tests"]:
        for name in sorted(os.listdir(os.path.join(REPO, top))):
            path = os.path.join(REPO, top, name)
            if os.path.isdir(path) and not (top == "Sources" and name in CLIENT_MODULES) and not (top == "Tests" and name == "Shims"):
                folders.append(path)
    return folders


def main(argv):
    paths = argv[1:] or [os.path.join(REPO, "Sources", m) for m in CLIENT_MODULES if os.path.isdir(os.path.join(REPO, "Sources", m))]
    files = list(swift_files(paths))
    others = list(swift_files(other_folders())) if len(argv) == 1 else []
    findings = []
    display = lambda path: os.path.relpath(path, REPO) if path.startswith(REPO + os.sep) else path
    for path in files:
        findings += check_file(path, display(path))
    for path in others:
        findings += check_file(path, display(path), client=False)
    if len(argv) == 1:
        dump = subprocess.run(["swift", "package", "dump-package"], cwd=REPO, capture_output=True, text=True)
        if dump.returncode != 0:
            print("portability check: swift package dump-package failed:\n" + dump.stderr)
            return 1
        findings += manifest_findings(json.loads(dump.stdout))
    for finding in findings:
        print(finding)
    if findings:
        print(f"portability check: {len(findings)} finding(s) in {len(files)} client and {len(others)} other source file(s) and the manifest")
        return 1
    print(f"portability check: {len(files)} client source files, no Linux-only symbol outside #if os(Linux), every flush through Durability"
          + (f"; {len(others)} other files macOS builds too (publisher, tool, tests), no Linux-only symbol outside #if os(Linux)"
             f"; no client module depends on signing or (off Linux) OpenSSL" if len(argv) == 1 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
