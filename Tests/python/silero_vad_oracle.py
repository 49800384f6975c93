"""silero-vad, the neural voice-activity detector, as an independent oracle for lint's own detector: its ONNX model
run by onnxruntime on the CPU, with numpy; torch is never needed nor imported.

The model file is `silero_vad/data/silero_vad.onnx` inside the installed silero-vad wheel (`pip install --no-deps
silero-vad` in the test virtual environment, see the Makefile's deps-test), found with importlib.util.find_spec so the
package itself (which imports torch) is never imported; or the file named by the environment variable SILERO_ONNX.

Inference and post-processing are a line-by-line port of silero-vad 6.2.3's `OnnxWrapper.__call__`,
`get_speech_timestamps` and `get_speech_timestamps_from_probs` (utils_vad.py) with the package defaults and
max_speech_duration_s = inf: per 512-sample window at 16 kHz the model sees [64 samples of context | window] and
carries its state over; the last window is zero-padded.

    segments(samples)     -> [(start_s, end_s), ...]   for a 16 kHz mono float32 numpy array
    segments_of(path)     -> the same for an audio file (decoded by ffmpeg to 16 kHz mono, as packtool does)
    frames_from_segments  -> the segments on packtool's 20 ms frame grid (frame i is speech when its centre lies in one)
"""
import importlib.util
import os
import subprocess

RATE = 16000
WINDOW = 512   # samples per model frame at 16 kHz (32 ms)
CONTEXT = 64   # samples of context prepended to each window at 16 kHz

_sessions = {}


def model_path():
    """The ONNX model: $SILERO_ONNX, else the one inside the installed silero-vad wheel; None when there is none."""
    env = os.environ.get("SILERO_ONNX")
    if env:
        return env if os.path.exists(env) else None
    spec = importlib.util.find_spec("silero_vad")  # locates the package without importing it (it imports torch)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = os.path.join(folder, "data", "silero_vad.onnx")
        if os.path.exists(path):
            return path
    return None


def available():
    """None when the oracle can run, else what is missing (for a skip message)."""
    missing = []
    for module in ("numpy", "onnxruntime"):
        if importlib.util.find_spec(module) is None:
            missing.append(module)
    if model_path() is None:
        missing.append("silero-vad (its ONNX model)")
    return None if not missing else ", ".join(missing)


def _session(path):
    if path not in _sessions:
        import onnxruntime
        opts = onnxruntime.SessionOptions()
        opts.inter_op_num_threads = 1
        opts.intra_op_num_threads = 1
        _sessions[path] = onnxruntime.InferenceSession(path, sess_options=opts, providers=["CPUExecutionProvider"])
    return _sessions[path]


def decode(path):
    """An audio file as 16 kHz mono float32 samples (ffmpeg; the resampling packtool's decoder also does)."""
    import numpy as np
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-ac", "1", "-ar", str(RATE),
                          "-f", "f32le", "-acodec", "pcm_f32le", "-"], check=True, stdout=subprocess.PIPE).stdout
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)


def probabilities(samples, model=None):
    """Silero's speech probability for each 32 ms window of 16 kHz samples (window i = [i·0.032, (i+1)·0.032) s)."""
    import numpy as np
    session = _session(model or model_path())
    audio = np.asarray(samples, dtype=np.float32)
    state = np.zeros((2, 1, 128), dtype=np.float32)
    context = np.zeros((1, CONTEXT), dtype=np.float32)
    sr = np.array(RATE, dtype=np.int64)
    probs = []
    for start in range(0, len(audio), WINDOW):
        chunk = audio[start:start + WINDOW]
        if len(chunk) < WINDOW:
            chunk = np.pad(chunk, (0, WINDOW - len(chunk)))
        x = np.concatenate([context, chunk[None, :]], axis=1)
        out, state = session.run(None, {"input": x, "state": state, "sr": sr})
        context = x[:, -CONTEXT:]
        probs.append(float(out[0, 0]))
    return probs


def timestamps(probs, length, threshold=0.5, min_speech_ms=250, min_silence_ms=100, speech_pad_ms=30, neg_threshold=None):
    """silero-vad's get_speech_timestamps_from_probs (max_speech_duration_s = inf): speech as sample ranges."""
    min_speech = RATE * min_speech_ms / 1000
    pad = RATE * speech_pad_ms / 1000
    min_silence = RATE * min_silence_ms / 1000
    if neg_threshold is None:
        neg_threshold = max(threshold - 0.15, 0.01)
    triggered, speeches, current, temp_end = False, [], {}, 0
    for i, p in enumerate(probs):
        cur = WINDOW * i
        if p >= threshold and temp_end:
            temp_end = 0
        if p >= threshold and not triggered:
            triggered = True
            current["start"] = cur
            continue
        if p < neg_threshold and triggered:
            if not temp_end:
                temp_end = cur
            if cur - temp_end < min_silence:
                continue
            current["end"] = temp_end
            if current["end"] - current["start"] > min_speech:
                speeches.append(current)
            current, temp_end, triggered = {}, 0, False
    if current and length - current["start"] > min_speech:
        current["end"] = length
        speeches.append(current)
    for i, sp in enumerate(speeches):
        if i == 0:
            sp["start"] = int(max(0, sp["start"] - pad))
        if i != len(speeches) - 1:
            gap = speeches[i + 1]["start"] - sp["end"]
            if gap < 2 * pad:
                sp["end"] += int(gap // 2)
                speeches[i + 1]["start"] = int(max(0, speeches[i + 1]["start"] - gap // 2))
            else:
                sp["end"] = int(min(length, sp["end"] + pad))
                speeches[i + 1]["start"] = int(max(0, speeches[i + 1]["start"] - pad))
        else:
            sp["end"] = int(min(length, sp["end"] + pad))
    return speeches


def segments(samples, **options):
    """Speech segments [(start, end)] in seconds (3 decimals) of 16 kHz mono float32 samples."""
    speeches = timestamps(probabilities(samples), len(samples), **options)
    return [(round(s["start"] / RATE, 3), round(s["end"] / RATE, 3)) for s in speeches]


def segments_of(path, **options):
    """Speech segments of an audio file."""
    return segments(decode(path), **options)


def frames_from_segments(segs, n, frame_s=0.02):
    """Segments on packtool's frame grid: a string of n "0"/"1", frame i speech when its centre (i + 0.5)·20 ms lies
    in a segment [start, end)."""
    out = []
    k = 0
    ordered = sorted(segs)
    for i in range(n):
        t = (i + 0.5) * frame_s
        while k < len(ordered) and ordered[k][1] <= t:
            k += 1
        out.append("1" if k < len(ordered) and ordered[k][0] <= t < ordered[k][1] else "0")
    return "".join(out)


if __name__ == "__main__":
    import json
    import sys
    for name in sys.argv[1:]:
        print(json.dumps([{"start": a, "end": b} for a, b in segments_of(name)]))
