#!/usr/bin/env bash
# Builds PackFuzz with libFuzzer and AddressSanitizer and runs each parser target for FUZZ_SECONDS (default 300).
# Corpora start from the example pack and the third-party test data; crashes land in .build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-300}
TARGETS=${FUZZ_TARGETS:-"json csv webvtt heif mp4 envelope tar code http stream journal"}
OUT=.build-fuzz

# gold cannot link the sanitized debug info (internal error in format_file_lineno); the toolchain's lld can.
swift build -c release --product PackFuzz --build-path "$OUT" \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld 2>&1 | grep -v "Cannot export local symbol" | tail -n 2

seed() {
  local target=$1; shift
  mkdir -p "$OUT/corpus/$target"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$OUT/corpus/$target/$(echo "$f" | tr '/' '_')"; done
  return 0
}
seed json scenes/royal-mile/pack.json scenes/royal-mile/stops/*/scene.json scenes/royal-mile/stops/*/uncertainty.json schemas/*.json
seed csv docs/examples/*.csv
seed webvtt scenes/royal-mile/stops/*/story.vtt
# The libheif files beside the checkout seed the HEIF target when they are there (seed skips missing files).
seed heif scenes/royal-mile/stops/01-castle-esplanade/layers/*.heic ${PACKTOOL_SHARED:-../shared}/testdata/isobmff/libheif/*
seed mp4 scenes/royal-mile/stops/0[1-3]*/story.m4a
mkdir -p "$OUT/corpus/envelope"
python3 - "$OUT/corpus/envelope" scenes/royal-mile/stops/*/signoff.json <<'PY'
import json, sys, os
for i, path in enumerate(sys.argv[2:]):
    for j, env in enumerate(json.load(open(path))):
        open(os.path.join(sys.argv[1], f"signoff-{i}-{j}.json"), "w").write(json.dumps(env))
PY

# Archives: the example pack's files and a few small published-style tars, written by libarchive (as packtool
# writes them) and by GNU tar (pax headers, long names).
mkdir -p "$OUT/corpus/tar"
tar --format=pax -cf "$OUT/corpus/tar/pax.tar" -C scenes/royal-mile pack.json stops/01-castle-esplanade/scene.json
tar --format=ustar -cf "$OUT/corpus/tar/ustar.tar" -C scenes/royal-mile pack.json
bsdtar --format=pax -cf "$OUT/corpus/tar/bsdtar.tar" -C scenes/royal-mile pack.json stops/02-gladstones-land/story.vtt

# Access codes and times: a real grant code from the example keys' format, and RFC 3339 forms.
mkdir -p "$OUT/corpus/code"
printf '2026-06-01T10:00:00Z' > "$OUT/corpus/code/time-z"
printf '2026-06-01T10:00:00.123+01:30' > "$OUT/corpus/code/time-offset"
printf 'eyJwYXlsb2FkIjoiZXlKcFpDSTZJbWNpZlEiLCJwYXlsb2FkVHlwZSI6ImEiLCJzaWduYXR1cmVzIjpbXX0' > "$OUT/corpus/code/envelope-base64url"

# HTTP: response heads and chunked bodies as servers send them.
mkdir -p "$OUT/corpus/http"
printf 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello' > "$OUT/corpus/http/plain"
printf 'HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 100-199/200\r\n\r\n' > "$OUT/corpus/http/range"
printf '4\r\nWiki\r\n6;name=value\r\npedia \r\n0\r\nX-Trailer: yes\r\n\r\n' > "$OUT/corpus/http/chunked"

# The streamed archive check: the target builds its own valid archive and writes the input over it at an offset the
# first two bytes choose; seeds aim at the first header, the manifest's bytes, a padding and the trailer.
mkdir -p "$OUT/corpus/stream" "$OUT/corpus/journal"
printf '\x00\x00ustar' > "$OUT/corpus/stream/first-header"
printf '\x00\x94\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$OUT/corpus/stream/mtime"
printf '\x02\x00{' > "$OUT/corpus/stream/manifest-bytes"
printf '\x0b\x00\x01' > "$OUT/corpus/stream/trailer"
# A resume journal: a record that matches the target's install, then a progress file of 21 bytes.
printf '{"format":1,"pack":"p","version":1,"manifestSHA256":"%s","archiveSize":4096,"scenes":["01-a"]}\n00000000000000000002\n' \
  "$(printf 'a%.0s' $(seq 64))" > "$OUT/corpus/journal/resumable"
printf '{"format":1}\n00000000000000000002\n' > "$OUT/corpus/journal/short-record"

mkdir -p "$OUT/artifacts"
status=0
summary=""
for t in $TARGETS; do
  echo "== fuzzing $t for ${SECONDS_EACH}s"
  log="$OUT/fuzz-$t.log"
  if PACKFUZZ_TARGET=$t SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 \
     "$OUT/release/PackFuzz" "$OUT/corpus/$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
     -artifact_prefix="$OUT/artifacts/$t-" -print_final_stats=1 >"$log" 2>&1; then
    runs=$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
    summary+="$t: ok, ${runs:-see $log}"$'\n'
  else
    status=1
    summary+="$t: FAILED, see $log and $OUT/artifacts/"$'\n'
  fi
done
echo
echo "$summary"
exit $status
