"""Lint's voice-activity detector against an independent one (issue 33): WebRTC's VAD (`webrtcvad-wheels`, PyPI, in
the test virtual environment) on the same audio, decoded by ffmpeg to 16 kHz. On the example pack's stories and on
speech made here with espeak-ng with pauses of known length, the two agree on at least 90% of the 20 ms frames, and
every pause of 0.4 s or more is found by both. packtool's frames come from `packtool inspect story.m4a --voice`."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest
import wave

import required

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STOPS = os.path.join(REPO, "scenes", "royal-mile", "stops")
RATE = 16000
FRAME = 320  # 20 ms


def packtool():
    folder = os.environ.get("PACKTOOL_BIN_DIR")
    if not folder:
        subprocess.run(["swift", "build", "--product", "packtool"], cwd=REPO, check=True, capture_output=True)
        folder = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(folder, "packtool")


def pcm(path):
    return subprocess.run(["ffmpeg", "-loglevel", "error", "-i", path, "-ac", "1", "-ar", str(RATE), "-f", "s16le", "-"],
                          capture_output=True, check=True).stdout


def webrtc_frames(path):
    import webrtcvad
    vad = webrtcvad.Vad(3)  # the most aggressive mode: speech, not merely sound
    audio = pcm(path)
    size = FRAME * 2
    return "".join("1" if vad.is_speech(audio[i:i + size], RATE) else "0" for i in range(0, len(audio) - size + 1, size))


def our_frames(path):
    run = subprocess.run([packtool(), "inspect", path, "--voice", "--format", "json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    voice = json.loads(run.stdout)["content"]["voice"]
    assert voice["frameSeconds"] == 0.02, voice["frameSeconds"]
    return voice["frames"]


def agreement(a, b):
    n = min(len(a), len(b))
    return sum(1 for i in range(n) if a[i] == b[i]) / n


def finds_pause(frames, start, end):
    """Whether `frames` hold a run of at least 0.2 s without speech inside the pause start..end (seconds)."""
    inside = frames[int(round(start / 0.02)) + 1:int(round(end / 0.02)) - 1]
    return "0" * 10 in inside


class VoiceActivityAgainstWebRTC(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import webrtcvad  # noqa: F401
        except ImportError:
            raise required.missing("webrtcvad-wheels is not in the test virtual environment: make test installs it")
        required.need_tool("ffmpeg", "ffmpeg")

    def test_the_example_stories_agree_frame_by_frame(self):
        for stop in sorted(os.listdir(STOPS)):
            path = os.path.join(STOPS, stop, "story.m4a")
            ours, theirs = our_frames(path), webrtc_frames(path)
            self.assertLessEqual(abs(len(ours) - len(theirs)), 2, stop)
            score = agreement(ours, theirs)
            print(f"{stop}: {score:.1%} of {min(len(ours), len(theirs))} frames agree")
            self.assertGreaterEqual(score, 0.90, stop)

    def test_speech_with_known_pauses_agrees_and_every_pause_is_found_by_both(self):
        required.need_tool("espeak-ng", "espeak-ng")
        work = tempfile.mkdtemp(prefix="voice-")
        self.addCleanup(shutil.rmtree, work, ignore_errors=True)
        sentences = ["The Royal Mile runs from the castle down to the palace.",
                     "Merchants met at the cross to trade.",
                     "In eighteen twenty four the street was loud with carts and voices.",
                     "Listen.",
                     "The old town climbs the ridge in tall lands of stone.",
                     "A bell rings from the tron kirk."]
        pauses = [0.4, 0.6, 1.0, 0.45, 1.5]
        chunks, rate, timeline, t = [], None, [], 0.3
        for i, sentence in enumerate(sentences):
            wav = os.path.join(work, f"s{i}.wav")
            subprocess.run(["espeak-ng", "-v", "en-gb", "-s", "150", "-w", wav, sentence], check=True)
            with wave.open(wav) as w:
                rate = rate or w.getframerate()
                data = w.readframes(w.getnframes())
            chunks.append(data)
            t += len(data) / 2 / rate
            if i < len(pauses):
                timeline.append((t, t + pauses[i]))
                t += pauses[i]
        joined = os.path.join(work, "speech.wav")
        with wave.open(joined, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(b"\0\0" * int(0.3 * rate) + b"".join(
                chunk + (b"\0\0" * int(round(pauses[i] * rate)) if i < len(pauses) else b"") for i, chunk in enumerate(chunks)))
        story = os.path.join(work, "story.m4a")
        subprocess.run(["ffmpeg", "-loglevel", "error", "-i", joined, "-c:a", "aac", "-b:a", "48k", "-ac", "1", story], check=True)
        ours, theirs = our_frames(story), webrtc_frames(story)
        score = agreement(ours, theirs)
        print(f"espeak-ng speech: {score:.1%} of {min(len(ours), len(theirs))} frames agree")
        self.assertGreaterEqual(score, 0.90)
        # espeak-ng ends each sentence with a little silence of its own: the pause as heard starts no later than
        # where it was put, so the check looks inside the inserted silence.
        for start, end in timeline:
            self.assertTrue(finds_pause(ours, start, end), f"packtool misses the {end - start:.2f} s pause at {start:.2f} s")
            self.assertTrue(finds_pause(theirs, start, end), f"WebRTC misses the {end - start:.2f} s pause at {start:.2f} s")


if __name__ == "__main__":
    unittest.main()
