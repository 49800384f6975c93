"""The example pack's media are what the foundation issue promises: ffprobe reads every story.m4a as AAC audio of
60-120 s, the last cue of each story.vtt ends within 0.5 s of the audio's end, and every plate is HEIC at phone
resolution. ffprobe and heif-info are independent of packtool's own parsers."""
import glob
import os
import re
import subprocess
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STOPS = sorted(glob.glob(os.path.join(REPO, "scenes", "royal-mile", "stops", "*")))
CUE = re.compile(r"^(?:(\d+):)?(\d{2}):(\d{2})\.(\d{3}) --> (?:(\d+):)?(\d{2}):(\d{2})\.(\d{3})")


def seconds(h, m, s, ms):
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def ffprobe(path, entries):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", entries, "-of", "default=noprint_wrappers=1", path],
                         check=True, capture_output=True, text=True).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


class ExampleMedia(unittest.TestCase):
    def test_seven_stops(self):
        self.assertEqual(len(STOPS), 7)

    def test_every_story_is_aac_audio_of_60_to_120_seconds_and_the_transcript_is_aligned(self):
        for stop in STOPS:
            with self.subTest(stop=os.path.basename(stop)):
                info = ffprobe(os.path.join(stop, "story.m4a"), "stream=codec_type,codec_name:format=duration")
                self.assertEqual(info["codec_type"], "audio")
                self.assertEqual(info["codec_name"], "aac")
                duration = float(info["duration"])
                self.assertGreaterEqual(duration, 60)
                self.assertLessEqual(duration, 120)
                with open(os.path.join(stop, "story.vtt"), encoding="utf-8") as f:
                    lines = f.read().splitlines()
                self.assertTrue(lines[0].startswith("WEBVTT"))
                ends = [seconds(*m.groups()[4:]) for m in map(CUE.match, lines) if m]
                starts = [seconds(*m.groups()[:4]) for m in map(CUE.match, lines) if m]
                self.assertGreater(len(ends), 10)
                self.assertLessEqual(abs(ends[-1] - duration), 0.5)
                self.assertEqual(starts, sorted(starts))
                for end, next_start in zip(ends, starts[1:]):
                    self.assertLessEqual(end, next_start, "cues must not overlap")

    def test_every_plate_is_heic_at_phone_resolution_in_its_declared_aspect(self):
        plates = glob.glob(os.path.join(REPO, "scenes", "royal-mile", "stops", "*", "layers", "*.heic"))
        self.assertGreaterEqual(len(plates), 28)
        for plate in plates:
            with self.subTest(plate=os.path.relpath(plate, REPO)):
                out = subprocess.run(["heif-info", plate], check=True, capture_output=True, text=True).stdout
                w, h = map(int, re.search(r"image: (\d+)x(\d+)", out).groups())
                if plate.endswith("-16x9.heic"):
                    self.assertGreaterEqual((w, h), (1920, 1080))
                    self.assertAlmostEqual(w / h, 16 / 9, delta=0.01 * 16 / 9)
                else:
                    self.assertGreaterEqual((h, w), (1920, 1080))
                    self.assertAlmostEqual(w / h, 9 / 16, delta=0.01 * 9 / 16)

    def test_the_pack_stays_under_20_mb(self):
        total = sum(os.path.getsize(p) for p in glob.glob(os.path.join(REPO, "scenes", "**", "*"), recursive=True)
                    if os.path.isfile(p))
        self.assertLess(total, 20_000_000)


if __name__ == "__main__":
    unittest.main()
