#!/usr/bin/env python3
"""Checks the client library's privacy manifest (Sources/PackPrivacy/PrivacyInfo.xcprivacy) against the code: the
plist must be a valid property list of the shape App Store Connect reads, and every required-reason API category a
client module calls must be declared there with one of Apple's approved reasons (ITMS-91053 otherwise).

This machine cannot link for Apple platforms, so "calls" means the client modules' Swift sources name the API (the
required-reason list is of C functions and Foundation members, which appear by name in Swift). Comments are ignored.

Usage: scripts/check-privacy-manifest.py [--manifest PLIST] [--sources DIR ...]
Exit status 0 when the manifest covers the code, 1 with a line per finding otherwise."""
import argparse
import os
import plistlib
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIENT_MODULES = ["PackCrypto", "PackModel", "PackFiles", "PackTrust", "PackFetch", "PackVerify", "PackURLSession", "PackBackground", "PackPrivacy"]

# Apple's required-reason API categories (developer.apple.com, "Describing use of required reason API"), the names
# by which each appears in Swift (a call, not `stat()`, the struct's initialiser), and the reasons this library may give.
CATEGORIES = {
    "NSPrivacyAccessedAPICategoryFileTimestamp": (
        r"(?<![.\w])(?:stat|fstat|lstat|fstatat|getattrlist|getattrlistbulk|fgetattrlist|getattrlistat)\s*\((?!\s*\))|"
        r"\.(?:creationDate|modificationDate|fileModificationDate|contentModificationDateKey|creationDateKey)\b|"
        r"\bst_(?:mtim|ctim|atim|mtimespec|ctimespec|atimespec|birthtimespec)\b",
        {"DDA9.1", "C617.1", "3B52.1", "0A2A.1"}),
    "NSPrivacyAccessedAPICategorySystemBootTime": (
        r"\bsystemUptime\b|\bmach_absolute_time\b|\bmach_continuous_time\b|\bCLOCK_MONOTONIC_RAW\b|\bCLOCK_UPTIME_RAW\b",
        {"35F9.1", "8FFB.1", "3D61.1"}),
    "NSPrivacyAccessedAPICategoryDiskSpace": (
        r"(?<![.\w])(?:statfs|fstatfs|statvfs|fstatvfs|getattrlist)\s*\(|\bvolumeAvailableCapacity\w*|\bsystemFreeSize\b|\bsystemSize\b",
        {"85F4.1", "E174.1", "7D9E.1", "B728.1"}),
    "NSPrivacyAccessedAPICategoryActiveKeyboards": (r"\bactiveInputModes\b", {"3EC4.1", "54BD.1"}),
    "NSPrivacyAccessedAPICategoryUserDefaults": (r"\bUserDefaults\b", {"CA92.1", "1C8F.1", "C56D.1", "AC6B.1"}),
}
COMMENT = re.compile(r"//.*$")


def uses(sources):
    """Category -> first "file:line" naming one of its APIs."""
    found = {}
    for folder in sources:
        for root, _, names in sorted(os.walk(folder)):
            for name in sorted(names):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        code = COMMENT.sub("", line)
                        for category, (pattern, _) in CATEGORIES.items():
                            if category not in found and re.search(pattern, code):
                                found[category] = f"{os.path.relpath(path, REPO)}:{number}"
    return found


def declared(manifest):
    """Category -> reasons, after checking the plist's shape; raises ValueError naming what is wrong."""
    with open(manifest, "rb") as f:
        plist = plistlib.load(f)
    if not isinstance(plist, dict):
        raise ValueError("the top level is not a dictionary")
    for key, kind in [("NSPrivacyTracking", bool), ("NSPrivacyTrackingDomains", list), ("NSPrivacyCollectedDataTypes", list),
                      ("NSPrivacyAccessedAPITypes", list)]:
        if not isinstance(plist.get(key), kind):
            raise ValueError(f"{key} is missing or not a {kind.__name__}")
    out = {}
    for n, entry in enumerate(plist["NSPrivacyAccessedAPITypes"]):
        category, reasons = entry.get("NSPrivacyAccessedAPIType"), entry.get("NSPrivacyAccessedAPITypeReasons")
        if category not in CATEGORIES:
            raise ValueError(f"NSPrivacyAccessedAPITypes[{n}]: {category!r} is not a required-reason category")
        if not isinstance(reasons, list) or not reasons:
            raise ValueError(f"NSPrivacyAccessedAPITypes[{n}] ({category}) gives no reason")
        unknown = [r for r in reasons if r not in CATEGORIES[category][1]]
        if unknown:
            raise ValueError(f"NSPrivacyAccessedAPITypes[{n}] ({category}): {', '.join(unknown)} is not an approved reason")
        out[category] = reasons
    return out


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", default=os.path.join(REPO, "Sources", "PackPrivacy", "PrivacyInfo.xcprivacy"))
    parser.add_argument("--sources", nargs="*", default=[os.path.join(REPO, "Sources", m) for m in CLIENT_MODULES])
    args = parser.parse_args(argv[1:])
    try:
        have = declared(args.manifest)
    except (OSError, ValueError, plistlib.InvalidFileException) as error:
        print(f"{os.path.relpath(args.manifest, REPO)}: not a usable privacy manifest: {error}")
        return 1
    findings = [f"{where}: calls a {category} API, which {os.path.relpath(args.manifest, REPO)} does not declare (ITMS-91053)"
                for category, where in sorted(uses([s for s in args.sources if os.path.isdir(s)]).items()) if category not in have]
    for finding in findings:
        print(finding)
    if findings:
        return 1
    print(f"privacy manifest: declares {', '.join(c.replace('NSPrivacyAccessedAPICategory', '') for c in sorted(have))}, "
          "every required-reason API category the client modules call")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
