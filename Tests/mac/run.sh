#!/usr/bin/env bash
# The Homebrew formula (Formula/packtool.rb), run on Linux against a stand-in of Homebrew's Formula API
# (homebrew_standin.rb): Ruby accepts it with warnings on; its libraries are the README's and the workflow's; its
# install block installs packtool from this checkout into a scratch prefix (make install: an incremental release
# build after make demo); its test block lints the installed example pack. Then three planted mistakes must fail:
# a misspelt DSL method (so the stand-in cannot accept what Homebrew would not), a misspelt assertion in the test
# block, and an example pack with an error in it (so the test block really lints).
# Needs ruby (apt; Makefile APT_TEST). Without it the suite says it skipped, unless PACKTOOL_REQUIRE_SHARED_TESTDATA=1.
# usage: Tests/mac/run.sh   (from make test's tools lane)
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v ruby >/dev/null; then
  [ "${PACKTOOL_REQUIRE_SHARED_TESTDATA:-0}" = 1 ] && { echo "FAIL Homebrew formula: ruby is not installed (apt-get install ruby)"; exit 1; }
  echo "skipped Homebrew formula: ruby is not installed (apt-get install ruby)"; exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL Homebrew formula: $*"; exit 1; }
run() { ruby Tests/mac/run_formula.rb "$@"; }

ruby -wc Formula/packtool.rb >/dev/null 2>"$work/warnings" && [ ! -s "$work/warnings" ] ||
  fail "ruby -wc: $(cat "$work/warnings")"
run Formula/packtool.rb "$work/prefix" . --lists README.md .github/workflows/apple.yml || fail "the library lists disagree"
run Formula/packtool.rb "$work/prefix" . --head || fail "brew install --HEAD would have nothing to clone"
run Formula/packtool.rb "$work/prefix" . --install --test > "$work/out" 2>&1 || { tail -n 20 "$work/out"; fail "install or test failed"; }
grep '^ok ' "$work/out"

# The planted mistakes. Each must fail, and fail for the planted reason.
sed 's/^  depends_on "sqlite"/  depend_on "sqlite"/' Formula/packtool.rb > "$work/misspelt-dsl.rb"
! run "$work/misspelt-dsl.rb" "$work/prefix" . --test > "$work/planted" 2>&1 || fail "a misspelt depends_on was accepted"
grep -q "undefined method .depend_on" "$work/planted" || fail "a misspelt depends_on failed for another reason: $(tail -n 3 "$work/planted")"
sed 's/assert_path_exists man1/assert_path_exist man1/' Formula/packtool.rb > "$work/misspelt-assertion.rb"
! run "$work/misspelt-assertion.rb" "$work/prefix" . --test > "$work/planted" 2>&1 || fail "a misspelt assertion was accepted"
grep -q "undefined method .assert_path_exist" "$work/planted" || fail "a misspelt assertion failed for another reason: $(tail -n 3 "$work/planted")"
scene=$(ls -d "$work/prefix/share/packtool/examples/royal-mile/stops/"*/ | head -n 1)
printf '{ "not": "a scene" ' > "$scene/scene.json"
! run Formula/packtool.rb "$work/prefix" . --test > "$work/planted" 2>&1 || fail "the test block passed on an example pack with a broken scene.json"
grep -q "exit status of" "$work/planted" || fail "the broken example pack failed for another reason: $(tail -n 3 "$work/planted")"
echo "ok   planted: a misspelt DSL method, a misspelt assertion and a broken example pack each fail the formula"

# make dist on macOS: scripts/needed-libraries.sh's Darwin branch, fed otool's documented `-L` output for a
# Homebrew-linked packtool by stand-ins of uname, otool and strings. The archive's NEEDED must name each Homebrew
# library with its formula, leave out the system's and the Swift runtime, list FFmpeg/libheif/webp as optional, and
# fail on a library no formula provides.
mkdir "$work/darwin"
cat > "$work/darwin/uname" <<'STANDIN'
#!/bin/sh
echo Darwin
STANDIN
cat > "$work/darwin/otool" <<'STANDIN'
#!/bin/sh
echo "$2:"
printf '\t%s\n' \
  "/opt/homebrew/opt/openssl@3/lib/libssl.3.dylib (compatibility version 3.0.0, current version 3.0.0)" \
  "/opt/homebrew/opt/openssl@3/lib/libcrypto.3.dylib (compatibility version 3.0.0, current version 3.0.0)" \
  "/opt/homebrew/Cellar/qrencode/4.1.1/lib/libqrencode.4.dylib (compatibility version 5.0.0, current version 5.1.0)" \
  "/usr/lib/libsqlite3.dylib (compatibility version 9.0.0, current version 351.4.0)" \
  "/usr/lib/swift/libswiftCore.dylib (compatibility version 1.0.0, current version 6.0.0)" \
  "/System/Library/Frameworks/Foundation.framework/Versions/C/Foundation (compatibility version 300.0.0, current version 3038.0.0)" \
  "/usr/lib/libSystem.B.dylib (compatibility version 1.0.0, current version 1345.100.2)" \
  ${PLANT:+"$PLANT (compatibility version 1.0.0, current version 1.0.0)"}
STANDIN
cat > "$work/darwin/strings" <<'STANDIN'
#!/bin/sh
printf '%s\n' libavformat.61.dylib libavcodec.61.dylib /opt/homebrew/opt/libheif/lib/libheif.1.dylib \
  /opt/homebrew/opt/webp/lib/libwebp.7.dylib "a libheif.1.dylib in a sentence"
STANDIN
chmod +x "$work/darwin/"*
PATH="$work/darwin:$PATH" scripts/needed-libraries.sh "$work/packtool" > "$work/NEEDED" || fail "needed-libraries.sh refused a Homebrew-linked binary: $(cat "$work/NEEDED")"
expected="libssl.3.dylib openssl@3|libcrypto.3.dylib openssl@3|libqrencode.4.dylib qrencode|optional libavcodec.61.dylib ffmpeg|optional libavformat.61.dylib ffmpeg|optional libheif.1.dylib libheif|optional libwebp.7.dylib webp"
got=$(grep -v '^#' "$work/NEEDED" | paste -sd '|')
[ "$got" = "$expected" ] || fail "NEEDED on macOS reads: $got"
! PLANT=/Users/me/lib/libstray.1.dylib PATH="$work/darwin:$PATH" scripts/needed-libraries.sh "$work/packtool" > "$work/NEEDED" ||
  fail "a library from no Homebrew formula was accepted"
grep -q '^libstray.1.dylib ?$' "$work/NEEDED" || fail "a library from no formula is not named: $(tail -n 2 "$work/NEEDED")"
echo "ok   make dist on macOS (stand-ins of uname, otool, strings): NEEDED names each Homebrew library's formula, FFmpeg, libheif and webp as optional, and refuses a library no formula brings"
