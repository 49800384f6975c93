#!/usr/bin/env bash
# Prints the shared libraries a binary needs (its ELF NEEDED entries), each with the Debian package that provides it
# on this machine (dpkg -S), for a release archive's NEEDED file: a user installs those packages (apt-get install …)
# and nothing else. A library no package provides is printed with "?" and makes the exit status 1.
# Then the libraries packtool opens only on first use (FFmpeg for lint's voice checks, DESIGN.md §9.8; libheif and libwebp
# for the preview's plates), found by their sonames in the binary, each on a line "optional SONAME PACKAGE".
# usage: scripts/needed-libraries.sh BINARY
# On macOS (make dist there): the Mach-O load commands (otool -L), each with the Homebrew formula it comes from; the
# system's own libraries and the Swift runtime (in the OS since macOS 10.14.4) need nothing and are not listed.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 BINARY" >&2; exit 2; }
status=0
if [ "$(uname -s)" = Darwin ]; then
  # Homebrew keeps a formula's libraries in .../opt/FORMULA/lib or .../Cellar/FORMULA/VERSION/lib.
  formula_of() { sed -n -E 's#.*/(opt|Cellar)/([^/]+)/.*#\2#p' <<< "$1"; }
  echo "# Shared libraries $(basename "$1") needs, and the Homebrew formula of each: brew install the formulae."
  for path in $(otool -L "$1" | tail -n +2 | awk '{ print $1 }'); do
    case "$path" in
      /usr/lib/*|/System/*) continue ;;
    esac
    formula=$(formula_of "$path")
    if [ -z "$formula" ]; then formula="?"; status=1; fi
    echo "$(basename "$path") $formula"
  done
  optional=$(strings -a "$1" | grep -oE 'lib(avformat|avcodec|swresample|avutil|heif|webp)\.[0-9]+\.dylib$' | sort -u || true)
  if [ -n "$optional" ]; then
    echo "# Optional, opened on first use: FFmpeg by lint's voice checks, libheif and webp by the preview's plates."
    for lib in $optional; do
      case "$lib" in libheif.*) formula=libheif ;; libwebp.*) formula=webp ;; *) formula=ffmpeg ;; esac
      echo "optional $lib $formula"
    done
  fi
  exit $status
fi
echo "# Shared libraries $(basename "$1") needs, and the Debian/Ubuntu package of each: apt-get install the packages."
for lib in $(readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  # Where the loader finds it (ldd, in /usr/bin: ldconfig lives in /sbin, off an ordinary user's PATH).
  path=$(ldd "$1" | awk -v l="$lib" '$1 == l && $3 ~ /^\// { print $3; exit }') || true
  [ -n "$path" ] || path=$(ldd "$1" | awk -v l="$lib" '$1 ~ "/" l "$" { print $1; exit }') || true
  package=$( [ -n "$path" ] && dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
  [ -n "$package" ] || package=$( [ -n "$path" ] && dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
  if [ -z "$package" ]; then package="?"; status=1; fi
  echo "$lib $package"
done
optional=$(strings -a "$1" | grep -E '^lib(avformat|avcodec|swresample|avutil|heif|webp)\.so\.[0-9]+$' | sort -u || true)
if [ -n "$optional" ]; then
  echo "# Optional, opened on first use: FFmpeg by lint's voice checks (without it lint checks everything but the voice),"
  echo "# libheif and libwebp by the preview's plates."
  for lib in $optional; do
    path=$(ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l { print $NF; exit }') || true
    [ -n "$path" ] || path=$(ls /usr/lib/*/"$lib" /usr/lib/"$lib" 2>/dev/null | head -n 1) || true
    package=$( [ -n "$path" ] && dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
    echo "optional $lib ${package:-?}"
  done
fi
exit $status
