"""Every JSON file under scenes/ validates against schemas/ with an independent validator (python-jsonschema), and
broken copies are rejected, so the schemas editors use for completion agree with what packtool reads."""
import base64
import copy
import glob
import json
import os
import unittest

import jsonschema
from referencing import Registry, Resource

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMAS = os.path.join(REPO, "schemas")
PACK = os.path.join(REPO, "scenes", "royal-mile")
SCHEMA_FOR = {"pack.json": "pack", "scene.json": "scene", "uncertainty.json": "uncertainty", "signoff.json": "signoff"}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def registry():
    resources = []
    for path in glob.glob(os.path.join(SCHEMAS, "*.schema.json")):
        schema = load(path)
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


REGISTRY = registry()


def validator(name):
    schema = load(os.path.join(SCHEMAS, f"{name}.schema.json"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=REGISTRY)


def errors(name, instance):
    return [e.message for e in validator(name).iter_errors(instance)]


class ExamplePackValidates(unittest.TestCase):
    def test_every_json_file_under_scenes_has_a_schema_and_validates(self):
        files = sorted(glob.glob(os.path.join(REPO, "scenes", "**", "*.json"), recursive=True))
        self.assertGreaterEqual(len(files), 1 + 7 * 3)
        for path in files:
            name = SCHEMA_FOR.get(os.path.basename(path))
            self.assertIsNotNone(name, f"{path}: no schema for this file name")
            with self.subTest(path=os.path.relpath(path, REPO)):
                self.assertEqual(errors(name, load(path)), [])

    def test_every_signoff_payload_validates(self):
        for path in glob.glob(os.path.join(PACK, "stops", "*", "signoff.json")):
            for envelope in load(path):
                payload = json.loads(base64.b64decode(envelope["payload"]))
                with self.subTest(path=os.path.relpath(path, REPO)):
                    self.assertEqual(errors("signoff-payload", payload), [])

    def test_a_schema_key_for_editors_is_accepted_at_the_top_level_only(self):
        stop = sorted(glob.glob(os.path.join(PACK, "stops", "*")))[0]
        for name, path in [("pack", os.path.join(PACK, "pack.json")), ("scene", os.path.join(stop, "scene.json")),
                           ("uncertainty", os.path.join(stop, "uncertainty.json"))]:
            document = {"$schema": f"../schemas/{name}.schema.json", **load(path)}
            with self.subTest(name=name):
                self.assertEqual(errors(name, document), [])
                self.assertTrue(errors(name, {**document, "$schema": 3}), "a $schema is a string")
        scene = load(os.path.join(stop, "scene.json"))
        scene["anchor"]["$schema"] = "x"
        self.assertTrue(errors("scene", scene), "only the document itself names its schema")

class BrokenCopiesAreRejected(unittest.TestCase):
    def setUp(self):
        self.pack = load(os.path.join(PACK, "pack.json"))
        stop = sorted(glob.glob(os.path.join(PACK, "stops", "*")))[0]
        self.scene = load(os.path.join(stop, "scene.json"))
        self.mask = load(os.path.join(stop, "uncertainty.json"))
        self.signoffs = load(os.path.join(stop, "signoff.json"))

    def assertRejected(self, name, instance, fragment):
        found = errors(name, instance)
        self.assertTrue(found, f"{name}: broken copy was accepted")
        self.assertTrue(any(fragment in m for m in found), f"{name}: expected an error mentioning {fragment!r}, got {found}")

    def test_pack_without_route(self):
        broken = copy.deepcopy(self.pack)
        del broken["route"]
        self.assertRejected("pack", broken, "'route' is a required property")

    def test_pack_with_a_short_reviewer_key(self):
        broken = copy.deepcopy(self.pack)
        broken["reviewers"][0]["publicKey"] = "abcd"
        self.assertRejected("pack", broken, "does not match")

    def test_scene_with_bearing_360(self):
        broken = copy.deepcopy(self.scene)
        broken["view"]["bearing"] = 360
        self.assertRejected("scene", broken, "360")

    def test_scene_with_an_unknown_field(self):
        broken = copy.deepcopy(self.scene)
        broken["anchor"]["elevation"] = 70
        self.assertRejected("scene", broken, "Additional properties are not allowed")

    def test_scene_with_an_unknown_source_use(self):
        broken = copy.deepcopy(self.scene)
        broken["provenance"]["sources"][0]["use"] = "pasted"
        self.assertRejected("scene", broken, "'pasted' is not one of")

    def test_mask_with_an_unknown_level_and_a_point_outside_the_frame(self):
        broken = copy.deepcopy(self.mask)
        region = next(r for e in broken["eras"] for r in e["regions"])
        region["level"] = "maybe"
        region["polygon"][1] = [1.5, 0.2]
        self.assertRejected("uncertainty", broken, "'maybe' is not one of")
        self.assertRejected("uncertainty", broken, "1.5")

    def test_signoff_with_another_payload_type(self):
        broken = copy.deepcopy(self.signoffs)
        broken[0]["payloadType"] = "application/vnd.packtool.manifest+json"
        self.assertRejected("signoff", broken, "application/vnd.packtool.signoff+json")

    def test_signoff_payload_with_a_bare_digest(self):
        payload = json.loads(base64.b64decode(self.signoffs[0]["payload"]))
        payload["digest"] = payload["digest"].removeprefix("sha256:")
        self.assertRejected("signoff-payload", payload, "does not match")


if __name__ == "__main__":
    unittest.main()
