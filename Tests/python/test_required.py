"""The switch that turns a missing server or tool from a skip into a failure (CI sets it)."""
import os
import unittest
from unittest import mock

import required


class MissingTools(unittest.TestCase):
    def test_a_missing_tool_is_a_skip_naming_it_on_a_developers_clone(self):
        with mock.patch.dict(os.environ, {required.SWITCH: ""}):
            with self.assertRaises(unittest.SkipTest) as caught:
                required.need(False, "nginx is not installed")
        self.assertIn("nginx is not installed", str(caught.exception))

    def test_a_missing_tool_fails_the_suite_under_cis_switch(self):
        with mock.patch.dict(os.environ, {required.SWITCH: "1"}):
            with self.assertRaises(AssertionError) as caught:
                required.need_tool("no-such-tool-packtool", "no-such-package")
        self.assertIn("apt install no-such-package", str(caught.exception))
        self.assertIn(required.SWITCH, str(caught.exception))

    def test_a_present_tool_passes_either_way(self):
        for value in ("", "1"):
            with mock.patch.dict(os.environ, {required.SWITCH: value}):
                required.need_tool("sh", "dash")
