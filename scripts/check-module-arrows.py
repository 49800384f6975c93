#!/usr/bin/env python3
"""The module-arrow guard (issue 29, habits; DESIGN.md §2): every `import X` of a package module in a target's Swift
files names a module that target declares as a dependency in Package.swift (Swift lets a module import what reaches
it only transitively, so an undeclared arrow compiles until the layers move), and the layers' forbidden arrows stay
absent along whole dependency chains, not single edges — the transports (PackHTTP, PackURLSession) and the publisher
(PackPublish) never reach the verifier (PackVerify: the download contract they share lives in PackFetch), the client
modules never reach tool-only code (signing, libarchive, SQLite, authoring, lint, audio, images), and lint, the
preview and the publisher never reach FFmpeg (CAVCodec) or its decoder (PackAudio): lint hears through a protocol.
A chain is printed whole (`PackHTTP → PackBackground → PackVerify`), so the edge to cut is plain.

Each finding is printed as `file:line: rule`; the exit status is 1 when there is any.

usage: scripts/check-module-arrows.py             the package at the repository's root (`swift package dump-package`)
       scripts/check-module-arrows.py --self-test  plants violations in a scratch package description and checks that
                                                   each is caught and a clean one passes
       scripts/check-module-arrows.py --root DIR --manifest-json FILE   a described package (what --self-test uses)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (importing target, forbidden module, why): neither imported nor reached through any chain of declared dependencies.
CLIENT = ["PackFiles", "PackCrypto", "PackModel", "PackTrust", "PackFetch", "PackVerify", "PackHTTP", "PackURLSession",
          "PackBackground", "CPackVerify"]
TOOL_ONLY = ["PackSigning", "PackArchive", "CArchive", "CSQLite", "PackAuthoring", "PackLint", "PackAudio", "CAVCodec",
             "PackPublish", "PackImage", "CHeif", "CWebP", "PackQR", "CQRencode", "CPNG", "PackPreview"]
FORBIDDEN = [
    ("PackHTTP", "PackVerify", "a transport does not reach the verifier (the download contract is PackFetch)"),
    ("PackURLSession", "PackVerify", "a transport does not reach the verifier (the download contract is PackFetch)"),
    ("PackPublish", "PackVerify", "the publisher does not reach the client's verifier (shared policy is PackTrust)"),
] + [(client, tool, "a client module carries no tool-only code (an app would link it)") for client in CLIENT for tool in TOOL_ONLY] + [
    (module, heavy, "only the commands that decode audio load FFmpeg: lint hears through VoiceListening, which PackAudio implements")
    for module in ["PackLint", "PackPreview", "PackPublish"] for heavy in ["PackAudio", "CAVCodec"]
]

IMPORT = re.compile(r"^\s*(?:@_exported\s+|@testable\s+|@_implementationOnly\s+|(?:public|package|internal)\s+)*import\s+"
                    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def dependency_name(entry):
    """The module a dump-package dependency entry names: {"byName": [N, cond]}, {"target": [N, cond]}, {"product": [N, pkg, …]}."""
    for kind in ("byName", "target", "product"):
        if kind in entry:
            return entry[kind][0]
    return None


def targets_of(manifest):
    """name -> (folder relative to the root, set of declared dependencies). A target described twice (PackCrypto's
    two variants in a manifest read as text) gets the union."""
    out = {}
    for t in manifest["targets"]:
        default = "Tests" if t["type"] == "test" else "Sources"
        path = t.get("path") or os.path.join(default, t["name"])
        deps = {d for d in (dependency_name(e) for e in t.get("dependencies", [])) if d}
        if t["name"] in out:
            out[t["name"]] = (out[t["name"]][0], out[t["name"]][1] | deps)
        else:
            out[t["name"]] = (path, deps)
    return out


def swift_files(folder):
    for base, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def chain(targets, start, goal):
    """The shortest chain of declared dependencies from `start` to `goal` (both included), or None."""
    parent, queue = {start: None}, [start]
    while queue:
        current = queue.pop(0)
        if current == goal:
            path = []
            while current is not None:
                path.append(current)
                current = parent[current]
            return path[::-1]
        for dep in sorted(targets.get(current, ("", set()))[1]):
            if dep not in parent:
                parent[dep] = current
                queue.append(dep)
    return None


def findings(root, manifest):
    targets = targets_of(manifest)
    found = []
    for name, (path, deps) in sorted(targets.items()):
        for importer, module, why in FORBIDDEN:
            if name != importer:
                continue
            reached = chain(targets, name, module)
            if reached:
                found.append(f"Package.swift: {name} reaches {module} ({' → '.join(reached)}): {why}")
        folder = os.path.join(root, path)
        if not os.path.isdir(folder):
            continue
        for file in swift_files(folder):
            shown = os.path.relpath(file, root)
            with open(file, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = IMPORT.match(line)
                    if not m:
                        continue
                    module = m.group(1)
                    forbidden = [why for importer, banned, why in FORBIDDEN if name == importer and module == banned]
                    for why in forbidden:
                        found.append(f"{shown}:{number}: {name} imports {module}: {why}")
                    if not forbidden and module in targets and module != name and module not in deps:
                        found.append(f"{shown}:{number}: {name} imports {module}, which Package.swift does not declare as a "
                                     f"dependency of {name} (add it to the target's dependencies, or drop the import)")
    return found


def self_test():
    """A scratch package: a clean layout passes; each planted violation is caught, naming its file and line."""
    manifest = {"targets": [
        {"name": "PackModel", "type": "regular", "dependencies": []},
        {"name": "PackFetch", "type": "regular", "dependencies": [{"byName": ["PackModel", None]}]},
        {"name": "PackVerify", "type": "regular", "dependencies": [{"byName": ["PackFetch", None]}, {"byName": ["PackModel", None]}]},
        {"name": "PackHTTP", "type": "regular", "dependencies": [{"target": ["PackFetch", None]}]},
        {"name": "PackPublish", "type": "regular", "dependencies": [{"byName": ["PackModel", None]}]},
        {"name": "PackURLSession", "type": "regular", "dependencies": [{"byName": ["PackFetch", None]}, {"byName": ["PackVerify", None]}]},
        {"name": "AppTests", "type": "test", "path": "Tests/Custom", "dependencies": [{"byName": ["PackVerify", None]}]},
    ]}
    clean = {
        "Sources/PackModel/A.swift": "import Foundation\n",
        "Sources/PackFetch/A.swift": "#if canImport(Glibc)\nimport Glibc\n#endif\nimport PackModel\n",
        "Sources/PackVerify/A.swift": "@_exported import PackFetch\nimport PackModel\n",
        "Sources/PackHTTP/A.swift": "import PackFetch\n// import PackVerify (a comment is not an import)\n",
        "Sources/PackPublish/A.swift": "import PackModel\n",
        "Sources/PackURLSession/A.swift": "import PackFetch\n",
        "Tests/Custom/T.swift": "@testable import PackVerify\nimport XCTest\n",
    }
    planted = {
        "Sources/PackHTTP/B.swift": ("import PackFetch\nimport PackVerify\n", ["Sources/PackHTTP/B.swift:2: PackHTTP imports PackVerify"]),
        "Sources/PackPublish/B.swift": ("\n\n@testable import PackVerify\n", ["Sources/PackPublish/B.swift:3: PackPublish imports PackVerify"]),
        "Sources/PackModel/B.swift": ("import PackFetch\n", ["Sources/PackModel/B.swift:1: PackModel imports PackFetch, which Package.swift does not declare"]),
        "Tests/Custom/U.swift": ("import XCTest\nimport PackHTTP\n", ["Tests/Custom/U.swift:2: AppTests imports PackHTTP, which Package.swift does not declare"]),
    }
    failures = []
    with tempfile.TemporaryDirectory(prefix="module-arrows-") as root:
        for rel, text in clean.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        got = findings(root, manifest)
        expected_manifest = "Package.swift: PackURLSession reaches PackVerify (PackURLSession → PackVerify)"
        if [g for g in got if not g.startswith(expected_manifest)]:
            failures.append(f"the clean layout was flagged: {got}")
        if not any(g.startswith(expected_manifest) for g in got):
            failures.append(f"a transport declaring PackVerify in Package.swift was not caught: {got}")
        manifest["targets"][5]["dependencies"].pop()  # PackURLSession no longer declares PackVerify
        got = findings(root, manifest)
        if got:
            failures.append(f"the clean layout was flagged: {got}")
        # A two-step arrow: the transport reaches the verifier through a module that depends on it (as PackBackground
        # does); no single edge is forbidden, the chain is.
        manifest["targets"].append({"name": "PackBackground", "type": "regular", "dependencies": [{"byName": ["PackVerify", None]}]})
        manifest["targets"][3]["dependencies"].append({"byName": ["PackBackground", None]})
        got = findings(root, manifest)
        wanted_chain = "Package.swift: PackHTTP reaches PackVerify (PackHTTP → PackBackground → PackVerify)"
        if not any(g.startswith(wanted_chain) for g in got):
            failures.append(f"a two-step arrow (transport → PackBackground → PackVerify) was not caught: {got}")
        # A client module reaching tool-only code in three steps, and lint reaching FFmpeg through the decoder.
        manifest["targets"] += [{"name": "PackSigning", "type": "regular", "dependencies": []},
                                {"name": "PackAudio", "type": "regular", "dependencies": [{"byName": ["CAVCodec", None]}]},
                                {"name": "CAVCodec", "type": "regular", "dependencies": []},
                                {"name": "PackLint", "type": "regular", "dependencies": [{"byName": ["PackAudio", None]}]}]
        manifest["targets"][0]["dependencies"].append({"byName": ["PackPublish", None]})   # PackModel → PackPublish
        manifest["targets"][4]["dependencies"].append({"byName": ["PackSigning", None]})   # PackPublish → PackSigning
        got = findings(root, manifest)
        for wanted in ["Package.swift: PackVerify reaches PackSigning (PackVerify → PackModel → PackPublish → PackSigning)",
                       "Package.swift: PackLint reaches CAVCodec (PackLint → PackAudio → CAVCodec)"]:
            if not any(g.startswith(wanted) for g in got):
                failures.append(f"the chain '{wanted}' was not caught: {got}")
        manifest["targets"] = manifest["targets"][:7]
        manifest["targets"][0]["dependencies"].pop()
        manifest["targets"][3]["dependencies"].pop()
        manifest["targets"][4]["dependencies"].pop()
        got = findings(root, manifest)
        if got:
            failures.append(f"the clean layout was flagged after the chain plants: {got}")
        for rel, (text, wanted) in planted.items():
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
            got = findings(root, manifest)
            for w in wanted:
                if not any(g.startswith(w) for g in got):
                    failures.append(f"planted {rel} was not caught as '{w}': {got}")
            if len(got) != len(wanted):
                failures.append(f"planted {rel}: expected {len(wanted)} finding(s), got {got}")
            os.remove(os.path.join(root, rel))
    for failure in failures:
        print("module-arrow guard self-test: " + failure)
    if failures:
        return 1
    print(f"module-arrow guard self-test: a clean layout passes; {len(planted) + 4} planted violations are each caught "
          "(three of them chains of two or three arrows)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root, manifest = REPO, None
    args = argv[1:]
    while args:
        flag, value, args = args[0], (args[1] if len(args) > 1 else None), args[2:]
        if flag == "--root" and value:
            root = value
        elif flag == "--manifest-json" and value:
            with open(value) as f:
                manifest = json.load(f)
        else:
            print(__doc__)
            return 2
    if manifest is None:
        dump = subprocess.run(["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True)
        if dump.returncode != 0:
            print("module-arrow guard: swift package dump-package failed:\n" + dump.stderr)
            return 1
        manifest = json.loads(dump.stdout)
    found = findings(root, manifest)
    for finding in found:
        print(finding)
    if found:
        print(f"module-arrow guard: {len(found)} finding(s)")
        return 1
    count = sum(1 for _, (path, _) in targets_of(manifest).items() for _ in swift_files(os.path.join(root, path)))
    print(f"module-arrow guard: {count} Swift files, every imported package module declared; along every dependency "
          f"chain, {len(FORBIDDEN)} forbidden arrows absent (transports and the publisher never reach PackVerify, client "
          "modules no tool-only code, lint, preview and publisher no FFmpeg)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
