#!/usr/bin/env python3
"""Paths are split at `/` bytes, never at Characters.

Swift's `String.split(separator: "/")` splits at grapheme clusters, and a `/` followed by a combining mark (U+0301) or
preceded by a prepended one (U+0600) is part of a larger Character: `a/\u0301b` stayed one component where the kernel
sees two, so a `..` hidden that way passed a check of components, and an install wrote a signed name as one file
(outside attack, December 2026). PackFiles' `PathParts.split` splits at bytes; this guard fails on every other split
at "/" in Sources (a Character literal, `Character("/")`, or the same with `maxSplits`/`omittingEmptySubsequences`).

usage: scripts/check-path-splits.py               the Swift files under Sources
       scripts/check-path-splits.py --self-test   plants each shape (and shapes that must pass) and checks the verdicts
Each finding is printed as `path:line: …`; the exit status is 1 when any.
"""
import os
import re
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOWED = {os.path.join("Sources", "PackFiles", "PathParts.swift")}
SHAPE = re.compile(r"""\.split\(\s*separator:\s*(?:"/"|Character\(\s*"/"\s*\))""")


def findings(root, files):
    out = []
    for path in files:
        rel = os.path.relpath(path, root)
        if rel in ALLOWED:
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                code = line.split("//", 1)[0]
                if SHAPE.search(code):
                    out.append(f"{rel}:{number}: splits a path at Characters; use PathParts.split (PackFiles), which splits at '/' bytes")
    return out


def swift_files(root):
    for folder, _, names in os.walk(os.path.join(root, "Sources")):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(folder, name)


def self_test():
    planted = {
        'let parts = path.split(separator: "/")': True,
        'let parts = path.split(separator: "/", omittingEmptySubsequences: false)': True,
        'let parts = path.split(separator: "/", maxSplits: 2).map(String.init)': True,
        'let parts = path.split( separator: Character("/") )': True,
        'let parts = PathParts.split(path)': False,
        'let words = line.split(separator: " ")': False,
        '// path.split(separator: "/") in a comment': False,
        'let bytes = path.utf8.split(separator: UInt8(ascii: "/"))': False,
    }
    failed = 0
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "Sources", "M"))
        for i, (code, bad) in enumerate(planted.items()):
            path = os.path.join(root, "Sources", "M", f"F{i}.swift")
            with open(path, "w", encoding="utf-8") as f:
                f.write(code + "\n")
            found = bool(findings(root, [path]))
            if found != bad:
                print(f"check-path-splits self-test: {'missed' if bad else 'wrongly flagged'}: {code}")
                failed += 1
    if failed:
        return 1
    print(f"check-path-splits self-test: {sum(planted.values())} planted shapes found, {len(planted) - sum(planted.values())} others passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    files = list(swift_files(REPO))
    out = findings(REPO, files)
    for line in out:
        print(line)
    if out:
        print(f"path-split guard: {len(out)} finding(s)")
        return 1
    print(f"path-split guard: {len(files)} Swift files, every path split at '/' bytes (PathParts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
