#!/usr/bin/env bash
# Checks what a user gets (issue 31): `make install PREFIX=<scratch>` installs packtool.1 and a man page per command
# (issue 45: `man packtool-lint`), each rendered by `man -l` at 80 columns with no warning (nor from `groff -ww`) and
# no line wider than 80, and found by name under the installed share/man; completions that `bash -n`, `zsh -n` and
# `fish --no-execute` accept (zsh and fish when installed: make test's dependencies bring them); `make dist`'s archive
# lists the shared libraries packtool needs, each of them one of the system libraries its NEEDED file names (with the
# Debian packages that bring them), and — unpacked here with the Swift toolchain off the PATH and an empty
# environment — lints and previews the example pack.
# usage: scripts/check-dist.sh   (after make demo: the release build is reused)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL $*"; exit 1; }

make --no-print-directory install PREFIX="$work/prefix" >/dev/null
man1="$work/prefix/share/man/man1"
pages=0 widest=0
for name in "" $("$work/prefix/bin/packtool" --help | awk '/^  [a-z]/ {print "-" $1}'); do
  page="$man1/packtool$name.1"
  [ -f "$page" ] || fail "make install did not install share/man/man1/packtool$name.1"
  MANWIDTH=80 MANPAGER=cat LC_ALL=C.UTF-8 man --warnings -l "$page" >"$work/man.out" 2>"$work/man.err" || fail "man -l does not render packtool$name.1"
  [ ! -s "$work/man.err" ] || fail "man -l warned on packtool$name.1: $(head -3 "$work/man.err")"
  head -n 1 "$work/man.out" | grep -q "^PACKTOOL$(echo "$name" | tr a-z A-Z)(1) " || fail "man -l renders packtool$name.1 without its title"
  width=$(LC_ALL=C.UTF-8 wc -L <"$work/man.out")
  [ "$width" -le 80 ] || fail "packtool$name.1 has a line of $width columns at MANWIDTH=80: $(awk 'length > 80' "$work/man.out" | head -1)"
  [ "$width" -le "$widest" ] || widest=$width
  groff -ww -z -man "$page" 2>"$work/groff.err" && [ ! -s "$work/groff.err" ] || fail "groff -ww warned on packtool$name.1: $(head -3 "$work/groff.err")"
  pages=$((pages + 1))
done
MANPAGER=cat man -M "$work/prefix/share/man" packtool-lint >"$work/man.out" 2>&1 && head -n 1 "$work/man.out" | grep -q "^PACKTOOL-LINT(1) " \
  || fail "man does not find packtool-lint in the installed share/man: $(head -3 "$work/man.out")"
bash -n "$work/prefix/share/bash-completion/completions/packtool" || fail "bash -n refuses the completions"
shells="bash -n"
if command -v zsh >/dev/null; then
  zsh -n "$work/prefix/share/zsh/site-functions/_packtool" || fail "zsh -n refuses the completions"; shells="$shells, zsh -n"
fi
if command -v fish >/dev/null; then
  fish --no-execute "$work/prefix/share/fish/vendor_completions.d/packtool.fish" || fail "fish refuses the completions"; shells="$shells, fish --no-execute"
fi
for f in bin/packtool share/doc/packtool/lint-rules.md share/zsh/site-functions/_packtool share/fish/vendor_completions.d/packtool.fish lib/libpackverify.so.1 include/packverify.h lib/pkgconfig/packverify.pc; do
  [ -e "$work/prefix/$f" ] || fail "make install did not install $f"
done
echo "ok   make install: binary, $pages man pages (man -l renders each at 80 columns with no warning, widest line $widest; man finds packtool-lint by name), bash/zsh/fish completions ($shells accept them), library"

archive=$(make --no-print-directory dist | tail -n 1)
[ -f "$archive" ] || fail "make dist wrote no archive ($archive)"
mkdir "$work/unpacked"
tar -xzf "$archive" -C "$work/unpacked"
top=$(ls "$work/unpacked")
needed="$work/unpacked/$top/NEEDED"
[ -f "$needed" ] || fail "the archive has no NEEDED file"
for lib in $(readelf -d "$work/unpacked/$top/bin/packtool" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  grep -q "^$lib " "$needed" || fail "packtool needs $lib, which NEEDED does not list"
done
! grep -Eq '^lib(av|swresample)' "$needed" || fail "NEEDED lists FFmpeg as required: $(grep -E '^lib(av|swresample)' "$needed" | tr '\n' ' ')"
grep -q '^optional libavformat\.so\.[0-9]* ' "$needed" || fail "NEEDED does not name FFmpeg as optional"
! grep -Eq '^lib(heif|webp)' "$needed" || fail "NEEDED lists libheif or libwebp as required"
grep -q '^optional libheif\.so\.[0-9]* ' "$needed" || fail "NEEDED does not name libheif as optional"
echo "ok   make dist: $(basename "$archive"), every shared library packtool needs is listed in NEEDED; FFmpeg, libheif and libwebp only as optional ($(grep -c '^optional ' "$needed") libraries)"

copy="$work/royal-mile"
cp -R scenes/royal-mile "$copy"
env -i HOME="$work" PATH=/usr/bin:/bin "$work/unpacked/$top/bin/packtool" lint "$copy" >/dev/null || fail "the unpacked packtool does not lint the example pack"
env -i HOME="$work" PATH=/usr/bin:/bin "$work/unpacked/$top/bin/packtool" preview "$copy" --out "$work/preview" >/dev/null \
  || fail "the unpacked packtool does not preview the example pack"
[ -f "$work/preview/index.html" ] || fail "the preview wrote no index.html"
help=$(env -i HOME="$work" PATH=/usr/bin:/bin "$work/unpacked/$top/bin/packtool" lint "$copy" --format sarif \
  | sed -n 's/.*"helpUri" *: *"file:\/\/\([^"#]*\)#pt0203".*/\1/p')
[ -n "$help" ] && [ -f "$help" ] || fail "SARIF's helpUri for PT0203 names no file the archive holds (${help:-none})"
! command -v swift >/dev/null 2>&1 || [ -z "$(env -i PATH=/usr/bin:/bin sh -c 'command -v swift')" ] || fail "swift is on /usr/bin:/bin"
echo "ok   the unpacked archive lints and previews the example pack with no Swift on the PATH; SARIF's helpUri opens its lint-rules.md"
