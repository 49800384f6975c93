"""Lint's voice rules on real recordings, against a neural detector (issue 44, item 4).

The five LibriVox clips in Tests/data/voice (real read speech in English, German and Spanish, with hand-timed
transcripts; see its README) are turned into a few hundred stories: the transcript as timed, every cue shifted by
±0.5 or ±1 s, stretched by 5 %, one cue 1 s late, the cues written back to back, three-cue stories, another clip's
captions, white or pink noise 10 dB below the speech, a music bed 15 dB below it, three clips joined into one story
over three different backgrounds, melodies, chords and bells with a transcript but no voice, and the example pack's
own stories. Noise, music and joins are made here with numpy from fixed seeds and encoded to AAC with ffmpeg, in a
temporary folder. One `packtool lint` run over a pack holding one stop per case then proves that:

  - correctly timed captions raise no timing finding (PT0716–PT0720, PT0723): on the corpus, under noise 10 dB below
    the speech, under a music bed 15 dB below it, on the joined stories and on the example pack's stories;
  - every shift of the whole transcript by 0.5 s or more is flagged PT0716, and every 5 % stretch PT0717, on single
    and on joined stories;
  - a single cue 1 s late is flagged at its own timing line, and nowhere else;
  - captions from another recording are flagged PT0723;
  - pitched sound that is not a voice gives the PT0721 note "no voice" and no timing finding;

and `packtool inspect --voice` hears speech in the same 20 ms frames as silero-vad (Tests/python/silero_vad_oracle.py,
its ONNX model run by onnxruntime) on at least 95 % of the frames of each recording, and at least 90 % of each joined
story (against silero on the clean recordings joined, so the backgrounds count against lint, not the reference).

Stress cases beyond the issue (louder noise, mutations under noise, a pulsed tone, noise bursts, silence, a partial
re-edit) are run and reported, not asserted. At the end the suite prints to stderr the passes per group and, for
docs/lint-rules.md, how often each rule fired when it should and when it should not; with VOICE_CORPUS_REPORT=PATH it
also writes that summary as JSON. Only the voice codes (PT0716–PT0723) are judged: the copied stops draw other
findings (sign-offs, the route) that this suite ignores.

Needs numpy, onnxruntime and silero-vad (installed --no-deps, so never torch) in .build/venv (make test installs them)
and ffmpeg: without them the suite skips and says why; under PACKTOOL_REQUIRE_SHARED_TESTDATA=1 (CI) it fails."""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import wave
from collections import OrderedDict, defaultdict

import required
import silero_vad_oracle as oracle

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(REPO, "Tests", "data", "voice")
STOPS = os.path.join(REPO, "scenes", "royal-mile", "stops")
PACK = os.path.join(REPO, "scenes", "royal-mile", "pack.json")
RATE = 16000
CLIPS = OrderedDict([("de", "de_simplicissimus"), ("en1", "en_sonnet001"), ("en2", "en_sonnet002"),
                     ("en3", "en_sonnet003"), ("es", "es_capitan_veneno")])
VOICE = {"PT0716", "PT0717", "PT0718", "PT0719", "PT0720", "PT0721", "PT0722", "PT0723"}
TIMING = {"PT0716", "PT0717", "PT0718", "PT0719", "PT0720", "PT0723"}
np = None  # numpy, imported in setUpClass so that a venv without it skips instead of failing to import


def packtool():
    folder = os.environ.get("PACKTOOL_BIN_DIR")
    if not folder:
        subprocess.run(["swift", "build", "--product", "packtool"], cwd=REPO, check=True, capture_output=True)
        folder = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(folder, "packtool")


# ---------------------------------------------------------------- sounds made here (numpy, fixed seeds)

def white(n, rng):
    return rng.standard_normal(n)


def pink(n, rng):
    """1/f noise, by shaping white noise's spectrum."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / RATE)
    f[0] = f[1]
    return np.fft.irfft(spec / np.sqrt(f), n)


def room_tone(n, rng):
    """A room with a fridge: low rumble (pink noise rolled off above ~400 Hz) and a 50 Hz mains hum with harmonics."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / RATE)
    f[0] = f[1]
    rumble = np.fft.irfft(spec / np.sqrt(f) / (1 + (f / 400) ** 4), n)
    rumble /= np.sqrt(np.mean(rumble ** 2))
    t = np.arange(n) / RATE
    hum = sum(np.sin(2 * np.pi * 50 * h * t + h) / h for h in (1, 2, 3, 4, 5))
    hum /= np.sqrt(np.mean(hum ** 2))
    return rumble + 0.5 * hum


def hvac(n, rng):
    """Air handling: rumble rolled off above 2 kHz and steady fan and mains tones (120-1365 Hz), peaks inside the
    speech band."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / RATE)
    f[0] = f[1]
    rumble = np.fft.irfft(spec / np.sqrt(f) / (1 + (f / 2000) ** 2), n)
    rumble /= np.sqrt(np.mean(rumble ** 2))
    t = np.arange(n) / RATE
    tones = sum(np.sin(2 * np.pi * fr * t + k) * a
                for k, (fr, a) in enumerate([(120, 1), (240, .7), (360, .5), (455, .8), (910, .5), (1365, .3)]))
    tones /= np.sqrt(np.mean(tones ** 2))
    return rumble + 0.7 * tones


def tone(freq, dur, harmonics=8, decay=None, vibrato=0.0, partials=None):
    """A pitched note: partials 1/h (or given ratios), an attack/release envelope or a bell's exponential decay."""
    n = int(dur * RATE)
    t = np.arange(n) / RATE
    phase = 2 * np.pi * np.cumsum(freq * (1 + vibrato * np.sin(2 * np.pi * 5.5 * t))) / RATE
    ratios = partials or list(range(1, harmonics + 1))
    s = sum(np.sin(r * phase + r) / (1 + i) for i, r in enumerate(ratios) if r * freq < 7500)
    if decay:
        env = np.exp(-t / decay)
    else:
        a, r = min(0.03, dur / 4), min(0.08, dur / 3)
        env = np.minimum(1, np.minimum(t / a, (dur - t) / r))
    return s * np.clip(env, 0, 1)


def midi(m):
    return 440 * 2 ** ((m - 69) / 12)


def melody(seconds, seed, kind):
    """Pitched sound that is not a voice, with rests: melody, chords, bells or a melody with vibrato."""
    rng = np.random.default_rng(seed)
    out = np.zeros(int(seconds * RATE) + RATE)
    t = 0.3
    scale = [60, 62, 64, 65, 67, 69, 71, 72, 74, 76]
    while t < seconds - 0.5:
        if kind in ("melody", "vibrato"):
            d = rng.choice([0.25, 0.35, 0.5, 0.75])
            x = tone(midi(rng.choice(scale)), d, vibrato=0.012 if kind == "vibrato" else 0.0)
            gap = rng.choice([0.0, 0.05, 0.1, 0.4, 0.8], p=[0.3, 0.3, 0.2, 0.1, 0.1])
        elif kind == "chords":
            d = rng.choice([1.0, 1.5, 2.0])
            root = rng.choice([48, 50, 53, 55, 57])
            x = sum(tone(midi(root + k), d, harmonics=6) for k in (0, 4, 7, 12)) / 2
            gap = rng.choice([0.1, 0.5, 0.9])
        else:
            d = rng.choice([0.6, 1.0, 1.5])
            x = tone(midi(rng.choice(scale) + 12), d, partials=[0.56, 1.0, 1.19, 1.71, 2.0, 2.74, 3.0], decay=d / 3)
            gap = rng.choice([0.0, 0.3, 0.6])
        i = int(t * RATE)
        out[i:i + len(x)] += x[:len(out) - i]
        t += d + gap
    out = out[:int(seconds * RATE)]
    return out / np.sqrt(np.mean(out[out != 0] ** 2))


def music_bed(seconds, seed):
    """Soft sustained chords and a melody line without rests: a bed under a voice."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    out = np.zeros(n + 3 * RATE)
    t = 0.0
    while t < seconds:
        root = rng.choice([48, 50, 53, 55, 57])
        x = sum(tone(midi(root + k), 2.0, harmonics=6) for k in (0, 4, 7))
        i = int(t * RATE)
        out[i:i + len(x)] += x
        t += 2.0
    t = 0.0
    while t < seconds:
        d = rng.choice([0.25, 0.5, 0.5, 1.0])
        x = 0.7 * tone(midi(rng.choice([72, 74, 76, 77, 79, 81])), d)
        i = int(t * RATE)
        out[i:i + len(x)] += x
        t += d
    out = out[:n]
    return out / np.sqrt(np.mean(out ** 2))


def speech_rms(x, segs):
    """The level of the voice: RMS over silero's speech segments."""
    t = np.arange(len(x)) / RATE
    inside = np.zeros(len(x), bool)
    for a, b in segs:
        inside |= (t >= a) & (t < b)
    return float(np.sqrt(np.mean(x[inside] ** 2)))


def at_level(noise, level, db):
    return noise * level * 10 ** (db / 20) / np.sqrt(np.mean(noise ** 2))


# ---------------------------------------------------------------- transcripts

TIMING_LINE = re.compile(r"^\s*((?:\d+:)?\d{2}:\d{2}\.\d{3})\s+-->\s+((?:\d+:)?\d{2}:\d{2}\.\d{3})")


def seconds(stamp):
    value = 0.0
    for part in stamp.split(":"):
        value = value * 60 + float(part)
    return value


def stamp(t):
    ms = int(round(max(0.0, t) * 1000))
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def read_cues(path):
    """[(start, end, text)] of a WebVTT file (cue settings dropped)."""
    cues = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        m = TIMING_LINE.match(lines[i])
        if m:
            text = []
            i += 1
            while i < len(lines) and lines[i].strip():
                text.append(lines[i])
                i += 1
            cues.append((seconds(m.group(1)), seconds(m.group(2)), "\n".join(text)))
        i += 1
    return cues


def write_vtt(path, cues):
    """Writes cues [(start, end, text)] and returns the 1-based line of each cue's timing line."""
    out, lines = ["WEBVTT", ""], []
    for k, (a, b, text) in enumerate(cues):
        out.append(f"c{k + 1}")
        lines.append(len(out) + 1)
        out.append(f"{stamp(a)} --> {stamp(b)}")
        out += text.splitlines() or ["…"]
        out.append("")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    return lines


def shifted(cues, d):
    return [(max(0.0, a + d), max(0.0, b + d), text) for a, b, text in cues]


def stretched(cues, r):
    return [(a * r, b * r, text) for a, b, text in cues]


# ---------------------------------------------------------------- audio: files, samples and silero's segments

class Sounds:
    """Every story's audio, by key: an .m4a file in the scratch folder, its 16 kHz samples as packtool decodes them,
    and silero's speech segments on those samples."""

    def __init__(self, folder):
        self.folder = folder
        os.makedirs(folder, exist_ok=True)
        self.items = OrderedDict()

    def path(self, key):
        return os.path.join(self.folder, key + ".m4a")

    def add_file(self, key, source):
        shutil.copyfile(source, self.path(key))
        return self._heard(key)

    def add_samples(self, key, x):
        """x (16 kHz float) written as AAC in MP4, as a story ships; the decoded samples are what silero hears."""
        wav = os.path.join(self.folder, key + ".wav")
        pcm = np.clip(np.round(np.asarray(x, np.float64) * 32767), -32768, 32767).astype("<i2")
        with wave.open(wav, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(RATE)
            w.writeframes(pcm.tobytes())
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "64k", self.path(key)], check=True)
        os.remove(wav)
        return self._heard(key)

    def _heard(self, key):
        x = oracle.decode(self.path(key))
        self.items[key] = dict(samples=x, segments=oracle.segments(x), truth=None)
        return self.items[key]

    def samples(self, key):
        return self.items[key]["samples"]

    def segments(self, key):
        return self.items[key]["segments"]


def build_cases(sounds):
    """The cases of issue 44's design (its cases.py, same groups, seeds and levels): each a dict with name, group,
    audio key, cues [(start, end, text)], what lint should say (`expect`: clean, offset, drift, cue, mismatch, novoice,
    partial, silent), the moved cue's index for one cue, and `bonus` for a stress case that is reported, not asserted."""
    cases = []
    base = OrderedDict()
    for short, clip in CLIPS.items():
        heard = sounds.add_file(short, os.path.join(CORPUS, clip + ".m4a"))
        base[short] = (heard["samples"], heard["segments"], read_cues(os.path.join(CORPUS, clip + ".vtt")))

    def case(name, group, audio, cues, expect, cue=None, bonus=False):
        cases.append(dict(name=name, group=group, audio=audio, cues=cues, expect=expect, cue=cue, bonus=bonus))

    for c, (x, segs, cues) in base.items():
        case(c, "clean", c, cues, "clean")
        for d in (-1.0, -0.5, 0.5, 1.0):
            case(f"{c} shift{d:+.1f}", "shift", c, shifted(cues, d), "offset")
        for r in (1.05, 0.95):
            case(f"{c} stretch{r:.2f}", "stretch", c, stretched(cues, r), "drift")
        for k in range(1, len(cues)):
            moved = list(cues)
            moved[k] = (cues[k][0] + 1, cues[k][1] + 1, cues[k][2])
            case(f"{c} cue{k + 1}+1s", "cue-late", c, moved, "cue", cue=k)
        # the other single-cue slips: a cue starting in the pause half a second before its words (PT0718), a cue
        # over a pause of the voice (PT0719), a sentence of 2.5 s or more left out (PT0720)
        for k in range(1, len(cues)):
            if cues[k][0] - cues[k - 1][1] >= 0.7:
                moved = list(cues)
                moved[k] = (cues[k][0] - 0.5, cues[k][1], cues[k][2])
                case(f"{c} cue{k + 1} 0.5 s early", "cue-early", c, moved, "early", cue=k)
        for k in range(1, len(cues)):
            if cues[k][0] - cues[k - 1][1] >= 1.2:
                cue = (cues[k - 1][1] + 0.3, cues[k][0] - 0.3, "(a cue where the voice pauses)")
                case(f"{c} cue over the pause before cue {k + 1}", "cue-silent", c, cues[:k] + [cue] + cues[k:], "overSilence", cue=k)
        longest = max(range(len(cues)), key=lambda k: cues[k][1] - cues[k][0])
        if cues[longest][1] - cues[longest][0] >= 2.5:
            case(f"{c} cue{longest + 1} left out", "cue-removed", c, cues[:longest] + cues[longest + 1:], "uncaptioned")
        # back to back (each cue ends where the next starts), as many captioners write the same timing
        contiguous = [(cues[k][0], cues[k + 1][0] if k + 1 < len(cues) else cues[k][1], cues[k][2]) for k in range(len(cues))]
        case(f"{c} contiguous", "contiguous", c, contiguous, "clean")
        # a three-cue story: the first three cues, the audio cut in the pause after the third
        end3 = (cues[2][1] + cues[3][0]) / 2 if len(cues) > 3 else cues[2][1] + 1.0
        sounds.add_samples(c + "_3cue", x[:int(end3 * RATE)])
        for d in (0.0, -1.0, 1.0, 0.5):
            case(f"{c} 3cue shift{d:+.1f}", "3cue", c + "_3cue", shifted(cues[:3], d), "clean" if d == 0 else "offset")
    # another clip's captions, between clips of about the same length (within 30 %)
    for c, (x, _, _) in base.items():
        for o, (y, _, other) in base.items():
            if o != c and abs(len(x) - len(y)) <= 0.3 * len(x):
                case(f"{c} with {o}'s cues", "other", c, [q for q in other if q[0] < len(x) / RATE], "mismatch")
    # white or pink noise 10 dB below the speech, a music bed 15 dB below it
    for c, (x, segs, cues) in base.items():
        level = speech_rms(x, segs)
        for kind in ("white", "pink"):
            rng = np.random.default_rng(len(x) + (1 if kind == "white" else 2))
            noise = white(len(x), rng) if kind == "white" else pink(len(x), rng)
            key = f"{c}_{kind}10"
            sounds.add_samples(key, x + at_level(noise, level, -10))
            sounds.items[key]["truth"] = c
            case(f"{c} +{kind} -10dB", "noise", key, cues, "clean")
            for d in (-1.0, 1.0):
                case(f"{c} +{kind} -10dB shift{d:+.1f}", "noise-shift", key, shifted(cues, d), "offset", bonus=True)
        key = f"{c}_music15"
        sounds.add_samples(key, x + at_level(music_bed(len(x) / RATE, seed=len(x)), level, -15))
        sounds.items[key]["truth"] = c
        case(f"{c} +music -15dB", "music-bed", key, cues, "clean")
    # joined stories: three recordings over three backgrounds. A and B: clean, pink hiss 15 dB below the speech, air
    # handling 15 dB below; C: clean, white hiss 20 dB below, room tone 20 dB below.
    for name, parts in (("joinA", ["en1", "en2", "en3"]), ("joinB", ["de", "en2", "es"]), ("joinC", ["es", "en3", "en1"])):
        chunks, joined, truth, t0 = [], [], [], 0.0
        for i, p in enumerate(parts):
            x, segs, cues = base[p]
            rng = np.random.default_rng(100 + i)
            if i == 0:
                chunks.append(x)
            elif name == "joinC":
                chunks.append(x + at_level(white(len(x), rng) if i == 1 else room_tone(len(x), rng), speech_rms(x, segs), -20))
            else:
                chunks.append(x + at_level(pink(len(x), rng) if i == 1 else hvac(len(x), rng), speech_rms(x, segs), -15))
            joined += [(a + t0, b + t0, text) for a, b, text in cues]
            truth += [(a + t0, b + t0) for a, b in segs]
            t0 += len(x) / RATE
        sounds.add_samples(name, np.concatenate(chunks))
        sounds.items[name]["truth"] = truth  # silero on the clean recordings, joined
        case(f"{name} ({'+'.join(parts)})", "joined", name, joined, "clean")
        for d in (-1.0, -0.5, 0.5, 1.0):
            case(f"{name} shift{d:+.1f}", "joined-shift", name, shifted(joined, d), "offset")
        for r in (1.05, 0.95):
            case(f"{name} stretch{r:.2f}", "joined-stretch", name, stretched(joined, r), "drift")
        for k in range(1, len(joined)):
            moved = list(joined)
            moved[k] = (joined[k][0] + 1, joined[k][1] + 1, joined[k][2])
            case(f"{name} cue{k + 1}+1s", "joined-cue-late", name, moved, "cue", cue=k)
    # pitched sound that is not a voice, with a transcript
    for kind, src in (("melody", "en1"), ("chords", "en2"), ("bells", "es"), ("vibrato", "de")):
        x, _, cues = base[src]
        sounds.add_samples(f"pure_{kind}", 0.1 * melody(len(x) / RATE, seed=7, kind=kind))
        case(f"{kind} (no voice) + {src} cues", "novoice", f"pure_{kind}", cues, "novoice")
    # stress, beyond the issue: part of the transcript re-edited (every cue from the middle on 1 s late)
    for c in ("en1", "es", "de"):
        cues = base[c][2]
        h = len(cues) // 2
        case(f"{c} cues {h + 1}.. +1s", "stress", c, cues[:h] + shifted(cues[h:], 1.0), "partial", cue=h, bonus=True)
    # louder noise
    for c, kind, db in (("en1", "white", -5), ("es", "pink", -5), ("en2", "white", 0), ("de", "pink", 0)):
        x, segs, cues = base[c]
        rng = np.random.default_rng(len(x) + 7)
        key = f"{c}_{kind}{-db}"
        sounds.add_samples(key, x + at_level(white(len(x), rng) if kind == "white" else pink(len(x), rng), speech_rms(x, segs), db))
        sounds.items[key]["truth"] = c
        case(f"{c} +{kind} {db}dB", "stress", key, cues, "clean", bonus=True)
    # mutations under noise
    for c, kind in (("en1", "white"), ("es", "pink"), ("en2", "pink")):
        cues = base[c][2]
        moved = list(cues)
        moved[2] = (cues[2][0] + 1, cues[2][1] + 1, cues[2][2])
        case(f"{c} +{kind} -10dB cue3+1s", "stress", f"{c}_{kind}10", moved, "cue", cue=2, bonus=True)
        case(f"{c} +{kind} -10dB stretch1.05", "stress", f"{c}_{kind}10", stretched(cues, 1.05), "drift", bonus=True)
    for c, o in (("en1", "en2"), ("es", "de"), ("en3", "en1")):
        n = len(base[c][0])
        case(f"{c} +white -10dB with {o}'s cues", "stress", f"{c}_white10", [q for q in base[o][2] if q[0] < n / RATE], "mismatch", bonus=True)
    # sounds that are not a voice, and silence
    x, _, cues = base["en1"]
    n = len(x)
    t = np.arange(n) / RATE
    sounds.add_samples("pulsed_tone", 0.3 * np.sin(2 * np.pi * 440 * t) * (np.sin(2 * np.pi * 0.7 * t) > 0))
    sounds.add_samples("noise_bursts", 0.1 * white(n, np.random.default_rng(3)) * (np.sin(2 * np.pi * 0.4 * t) > 0.3))
    sounds.add_samples("silence", np.zeros(n))
    for key in ("pulsed_tone", "noise_bursts", "silence"):
        case(f"{key} + en1 cues", "stress", key, cues, "silent" if key == "silence" else "novoice", bonus=True)
    # the example pack's stories (espeak-ng): clean as timed, PT0716 shifted by half a second
    for stop in sorted(os.listdir(STOPS)):
        key = "pack_" + stop[:2]
        sounds.add_file(key, os.path.join(STOPS, stop, "story.m4a"))
        cues = read_cues(os.path.join(STOPS, stop, "story.vtt"))
        case(f"pack {stop}", "pack", key, cues, "clean")
        case(f"pack {stop} shift+0.5", "pack-shift", key, shifted(cues, 0.5), "offset", bonus=True)
    return cases


# ---------------------------------------------------------------- lint on every case at once

def scope(code, message):
    """Whether a finding is about the whole transcript or one cue. A whole-transcript offset says "the transcript
    lags/leads the voice" (docs/lint-rules.md), a partial one "(part of the audio re-edited?)"."""
    if code in ("PT0717", "PT0721", "PT0722", "PT0723"):
        return "whole"
    if code == "PT0716" and (message.startswith("the transcript") or "re-edited" in message):
        return "whole"
    return "cue"


def lint_all(binary, cases, sounds, work, env):
    """Writes one stop per case into a pack (a copy of the example's first stop with the case's story.m4a, linked,
    and story.vtt), lints the pack once, and returns for each case its voice findings as
    {code, cue (index or None), scope, message}."""
    pack = os.path.join(work, "pack")
    template = os.path.join(STOPS, sorted(os.listdir(STOPS))[0])
    layers = os.path.join(work, "layers")
    shutil.copytree(os.path.join(template, "layers"), layers)
    with open(os.path.join(template, "scene.json"), encoding="utf-8") as f:
        scene = json.load(f)
    ids = [f"c{i:03d}" for i in range(len(cases))]
    for stop_id, c in zip(ids, cases):
        stop = os.path.join(pack, "stops", stop_id)
        os.makedirs(os.path.join(stop, "layers"))
        for name in os.listdir(layers):
            os.link(os.path.join(layers, name), os.path.join(stop, "layers", name))
        for name in os.listdir(template):
            if name.endswith(".json") and name not in ("scene.json", "signoff.json"):
                shutil.copyfile(os.path.join(template, name), os.path.join(stop, name))
        with open(os.path.join(stop, "scene.json"), "w", encoding="utf-8") as f:
            json.dump(dict(scene, id=stop_id), f, indent=2, ensure_ascii=False)
        os.link(sounds.path(c["audio"]), os.path.join(stop, "story.m4a"))
        c["lines"] = write_vtt(os.path.join(stop, "story.vtt"), c["cues"])
        c["stop"] = stop_id
    with open(PACK, encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["route"] = ids
    if "freeStops" in manifest.get("access", {}):
        manifest["access"]["freeStops"] = ids[:1]
    with open(os.path.join(pack, "pack.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
    run = subprocess.run([binary, "lint", pack, "--format", "json", "--quiet"], capture_output=True, text=True, env=env)
    if run.returncode not in (0, 1):
        raise AssertionError(f"packtool lint exited {run.returncode}: {run.stderr[-2000:]}")
    found = defaultdict(list)
    for d in json.loads(run.stdout)["diagnostics"]:
        if d["code"] not in VOICE:
            continue
        parts = os.path.normpath(d["location"]["file"]).split(os.sep)
        if "stops" not in parts[:-1]:
            raise AssertionError(f"a voice finding outside any stop: {d}")
        found[parts[parts.index("stops") + 1]].append(d)
    for c in cases:
        c["findings"] = [dict(code=d["code"], message=d["message"], line=d["location"].get("line"),
                              cue=c["lines"].index(d["location"]["line"]) if d["location"].get("line") in c["lines"] else None,
                              scope=scope(d["code"], d["message"])) for d in found.get(c["stop"], [])]


def judge(case):
    """Whether lint said what the case calls for (issue 44's rules, design/run.py's `judge`)."""
    fs = case["findings"]
    codes = [f["code"] for f in fs]
    timing = [f for f in fs if f["code"] in TIMING]
    e = case["expect"]
    if "PT0722" in codes:  # every story here decodes
        return False
    if e == "clean":
        return not timing
    if e == "offset":
        return any(f["code"] == "PT0716" and f["scope"] == "whole" for f in fs) and "PT0723" not in codes
    if e == "drift":
        return "PT0717" in codes and "PT0723" not in codes
    if e == "cue":
        k = case["cue"]
        hit = any(f["cue"] == k and f["code"] in TIMING and f["scope"] == "cue" for f in fs)
        elsewhere = [f for f in timing if f["cue"] != k and f["code"] != "PT0720"]
        return hit and not elsewhere
    if e in ("early", "overSilence"):
        code = "PT0718" if e == "early" else "PT0719"
        return any(f["code"] == code and f["cue"] == case["cue"] for f in fs) and all(f["code"] == code and f["cue"] == case["cue"] for f in timing)
    if e == "uncaptioned":
        return bool(timing) and all(f["code"] == "PT0720" for f in timing)
    if e == "mismatch":
        return "PT0723" in codes
    if e == "partial":
        return any(f["code"] == "PT0716" and f["cue"] == case["cue"] and "re-edited" in f["message"] for f in fs) and "PT0723" not in codes
    if e == "silent":
        return not timing and any(f["code"] == "PT0721" and "silent" in f["message"] for f in fs)
    if e == "novoice":
        return not timing and any(f["code"] == "PT0721" and "no voice" in f["message"] for f in fs)
    raise ValueError(e)


def describe(case):
    return "; ".join(f"{f['code']}@line {f['line']}: {f['message']}" for f in case["findings"]) or "no voice finding"


# ---------------------------------------------------------------- frames: packtool inspect --voice against silero

def inspect_frames(binary, path, env):
    run = subprocess.run([binary, "inspect", path, "--voice", "--format", "json", "--quiet"], capture_output=True, text=True, env=env)
    if run.returncode != 0:
        raise AssertionError(f"packtool inspect {path} --voice exited {run.returncode}: {run.stdout[-500:]}{run.stderr[-1500:]}")
    voice = json.loads(run.stdout)["content"]["voice"]
    if voice["frameSeconds"] != 0.02:
        raise AssertionError(f"frames of {voice['frameSeconds']} s, not 20 ms")
    return voice["frames"]


def agreement(ours, reference):
    n = min(len(ours), len(reference))
    return sum(1 for i in range(n) if ours[i] == reference[i]) / n if n else 0.0


# ---------------------------------------------------------------- the report for people and for docs

def rule_table(cases):
    """Per voice code: in how many cases it fired when the case calls for it, and in how many when it should not.

    A case calls for PT0716 (a shifted transcript: said of the whole transcript; a partial re-edit), PT0717 (a
    stretch), PT0723 (another recording's captions) or PT0721 (no voice, silence). Where a case calls for nothing
    (captions as timed), every code is one that should not fire. Where it calls for one whole-transcript code, the
    other whole-transcript findings should not fire, while findings about single cues (PT0718-PT0720, a cue's PT0716)
    count neither way: a shifted cue can well sit over silence. For one cue moved 1 s late, the row "at the moved cue"
    counts a cue-level finding at its line; every code fired anywhere else should not have (PT0720, the speech the
    moved cue uncovers, counts neither way)."""
    calls = {"offset": "PT0716", "partial": "PT0716", "drift": "PT0717", "mismatch": "PT0723", "novoice": "PT0721", "silent": "PT0721",
             "early": "PT0718", "overSilence": "PT0719", "uncaptioned": "PT0720"}
    cue_level = {"PT0718", "PT0719", "PT0720"}
    rows = sorted(VOICE) + ["at the moved cue"]
    table = OrderedDict((row, dict(required=dict(called=0, fired=0, notCalled=0, falseAlarms=0),
                                   stress=dict(called=0, fired=0, notCalled=0, falseAlarms=0))) for row in rows)
    for c in cases:
        side = "stress" if c["bonus"] else "required"
        e = c["expect"]
        if e == "cue":
            row = table["at the moved cue"][side]
            row["called"] += 1
            row["fired"] += any(f["cue"] == c["cue"] and f["scope"] == "cue" and f["code"] in TIMING for f in c["findings"])
        for code in sorted(VOICE):
            fired = [f for f in c["findings"] if f["code"] == code]
            row = table[code][side]
            if e == "cue":
                if code == "PT0720":
                    continue
                row["notCalled"] += 1
                row["falseAlarms"] += any(not (f["cue"] == c["cue"] and f["scope"] == "cue") for f in fired)
            elif e in ("clean", "novoice", "silent", "early", "overSilence", "uncaptioned"):
                if code == calls.get(e):
                    row["called"] += 1
                    row["fired"] += bool(fired)
                else:
                    row["notCalled"] += 1
                    row["falseAlarms"] += bool(fired)
            elif code == calls[e]:
                row["called"] += 1
                row["fired"] += any(f["scope"] == "whole" for f in fired) if code == "PT0716" and e == "offset" else bool(fired)
            elif code not in cue_level:
                row["notCalled"] += 1
                row["falseAlarms"] += any(f["scope"] == "whole" for f in fired)
    return table


def print_report(cases, frames, table, binary):
    out = sys.stderr
    groups = OrderedDict()
    for c in cases:
        g = groups.setdefault(c["group"], dict(passed=0, cases=0, required=not c["bonus"]))
        g["passed"] += c["ok"]
        g["cases"] += 1
    built = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.stat(binary).st_mtime))
    print(f"\n== voice corpus: {binary} (built {built})", file=out)
    print("== per group (passed / cases)", file=out)
    for name, g in groups.items():
        print(f"  {name:<16} {g['passed']:>3} / {g['cases']:<3} {'required' if g['required'] else 'reported only'}", file=out)
    print("== frame agreement with silero (20 ms frames; vs silero on this audio | vs silero on the clean source)", file=out)
    for key, a in frames.items():
        print(f"  {key:<16} {a['self']:6.1%}  {a['truth']:6.1%}{'  required' if a['required'] else ''}", file=out)
    print("== per rule over the corpus cases (cases where it fired, of the cases that call for it | that do not;"
          " see rule_table)", file=out)
    print("| rule | fired when it should | fired when it should not | stress: when it should | stress: when it should not |", file=out)
    print("|---|---|---|---|---|", file=out)

    def of(n, total):
        return f"{n} of {total}" if total else "–"
    for code, row in table.items():
        r, s = row["required"], row["stress"]
        print(f"| {code} | {of(r['fired'], r['called'])} | {of(r['falseAlarms'], r['notCalled'])} | "
              f"{of(s['fired'], s['called'])} | {of(s['falseAlarms'], s['notCalled'])} |", file=out)
    failed = [c for c in cases if not c["ok"]]
    if failed:
        print(f"== {len(failed)} cases not as called for", file=out)
        for c in failed:
            print(f"  {'' if not c['bonus'] else '(stress) '}{c['name']} [{c['expect']}]: {describe(c)[:300]}", file=out)
    return groups


# ---------------------------------------------------------------- the suite

class VoiceCorpus(unittest.TestCase):
    """Lint's voice rules and detector on real speech, against silero-vad."""

    @classmethod
    def setUpClass(cls):
        global np
        missing = oracle.available()
        if missing:
            raise required.missing(f"the silero-vad oracle needs {missing} in the test virtual environment "
                                   "(.build/venv): make test installs them (make deps-test)")
        required.need_tool("ffmpeg", "ffmpeg")
        import numpy
        np = numpy
        cls.binary = packtool()
        cls.built = os.stat(cls.binary).st_mtime_ns
        cls.work = tempfile.mkdtemp(prefix="voice-corpus-")
        env = dict(os.environ, PACKTOOL_CACHE_DIR=os.path.join(cls.work, "cache"), XDG_CACHE_HOME=os.path.join(cls.work, "xdg"))
        os.makedirs(env["XDG_CACHE_HOME"])
        try:
            cls.sounds = Sounds(os.path.join(cls.work, "audio"))
            cls.cases = build_cases(cls.sounds)
            lint_all(cls.binary, cls.cases, cls.sounds, cls.work, env)
            for c in cls.cases:
                c["ok"] = judge(c)
            # Frames of every recording, two at a time (lint has cached what it heard).
            keys = list(cls.sounds.items)
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                heard = dict(zip(keys, pool.map(lambda k: inspect_frames(cls.binary, cls.sounds.path(k), env), keys)))
            cls.frames = OrderedDict()
            for key in keys:
                item = cls.sounds.items[key]
                ours = heard[key]
                truth = item["truth"]
                truth_segs = cls.sounds.segments(truth) if isinstance(truth, str) else truth or item["segments"]
                cls.frames[key] = dict(
                    ours=ours, samples=len(item["samples"]),
                    self=agreement(ours, oracle.frames_from_segments(item["segments"], len(ours))),
                    truth=agreement(ours, oracle.frames_from_segments(truth_segs, len(ours))),
                    required=key in CLIPS or key.startswith("join"))
        except BaseException:
            shutil.rmtree(cls.work, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)
        binary = cls.binary
        if os.stat(binary).st_mtime_ns != cls.built:
            print(f"\n!! {binary} was rebuilt during the run: these results may mix two builds", file=sys.stderr)
        table = rule_table(cls.cases)
        groups = print_report(cls.cases, cls.frames, table, binary)
        path = os.environ.get("VOICE_CORPUS_REPORT")
        if path:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(dict(binary=binary, groups=groups, rules=table,
                               frames={k: dict(self=round(a["self"], 4), truth=round(a["truth"], 4), required=a["required"])
                                       for k, a in cls.frames.items()},
                               cases=[dict(name=c["name"], group=c["group"], expect=c["expect"], required=not c["bonus"], ok=c["ok"],
                                           findings=[[f["code"], f["line"], f["message"]] for f in c["findings"]]) for c in cls.cases]),
                          f, indent=1, ensure_ascii=False)

    def check(self, expect):
        cases = [c for c in self.cases if c["expect"] == expect and not c["bonus"]]
        self.assertTrue(cases, f"no required case expects {expect}")
        for c in cases:
            with self.subTest(case=c["name"]):
                self.assertTrue(c["ok"], describe(c))

    def test_the_corpus_builds_every_group_of_the_design(self):
        groups = {c["group"] for c in self.cases}
        self.assertEqual(groups, {"clean", "shift", "stretch", "cue-late", "cue-early", "cue-silent", "cue-removed", "contiguous", "3cue", "other", "noise", "noise-shift",
                                  "music-bed", "joined", "joined-shift", "joined-stretch", "joined-cue-late", "novoice", "stress",
                                  "pack", "pack-shift"})
        self.assertEqual(sum(c["group"] == "joined-cue-late" for c in self.cases), 67)

    def test_the_oracle_hears_the_phrases_of_the_first_sonnet_where_the_corpus_readme_says(self):
        segs = self.sounds.segments("en1")
        self.assertEqual(len(segs), 9)
        self.assertAlmostEqual(segs[0][0], 0.898, delta=0.04)
        self.assertAlmostEqual(segs[-1][1], 28.606, delta=0.04)

    def test_correctly_timed_captions_raise_no_timing_finding(self):
        # The corpus as timed, back-to-back cues, three-cue stories, noise 10 dB and music 15 dB below the speech, the
        # joined stories and the example pack's stories.
        self.check("clean")

    def test_every_whole_transcript_shift_of_half_a_second_or_more_is_flagged_PT0716(self):
        self.check("offset")

    def test_every_five_percent_stretch_is_flagged_PT0717(self):
        self.check("drift")

    def test_a_single_cue_one_second_late_is_flagged_at_its_own_line_and_nowhere_else(self):
        self.check("cue")

    def test_a_cue_starting_in_the_pause_before_its_words_is_flagged_PT0718_at_its_line(self):
        self.check("early")

    def test_a_cue_over_a_pause_of_the_voice_is_flagged_PT0719_at_its_line(self):
        self.check("overSilence")

    def test_a_sentence_left_out_is_flagged_PT0720(self):
        self.check("uncaptioned")

    def test_captions_from_another_recording_are_flagged_PT0723(self):
        self.check("mismatch")

    def test_pitched_sound_that_is_not_a_voice_is_a_no_voice_note_without_timing_findings(self):
        self.check("novoice")

    def test_lint_hears_the_voice_where_silero_does_on_at_least_95_percent_of_each_recordings_frames(self):
        for key in CLIPS:
            a = self.frames[key]
            with self.subTest(recording=CLIPS[key]):
                self.assertLessEqual(abs(len(a["ours"]) - a["samples"] / 320), 2, "frames do not cover the recording")
                self.assertGreaterEqual(a["self"], 0.95)

    def test_lint_hears_the_voice_where_silero_does_on_the_clean_parts_of_each_joined_story_on_at_least_90_percent(self):
        joined = [k for k in self.frames if k.startswith("join")]
        self.assertEqual(len(joined), 3)
        for key in joined:
            a = self.frames[key]
            with self.subTest(story=key):
                self.assertLessEqual(abs(len(a["ours"]) - a["samples"] / 320), 2, "frames do not cover the story")
                self.assertGreaterEqual(a["truth"], 0.90)


if __name__ == "__main__":
    unittest.main()
