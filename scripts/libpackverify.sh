#!/usr/bin/env bash
# Builds the C library (the SwiftPM product PackVerifyC, which SwiftPM writes as libPackVerifyC.so) and lays it out
# under the name it ships as, whatever the product is called (DESIGN.md §8.7):
#   Linux:  libpackverify.so.1 (its SONAME, set by Package.swift's linker flags) and libpackverify.so -> it, for -l;
#   Apple:  libpackverify.1.dylib (install name @rpath/libpackverify.1.dylib) and libpackverify.dylib -> it;
# plus packverify.pc (pkg-config). Without --install the names go beside the build's own file in its bin folder
# (links there, so a rebuild is seen) and the .pc points at the bin folder and the source header; the folder is
# printed. With --install PREFIX (make install, make dist): the library, the header and the .pc are copied under
# $DESTDIR$PREFIX/{lib,include,lib/pkgconfig}.
# usage: scripts/libpackverify.sh [-c debug|release] [--install PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
config=debug prefix=""
while [ $# -gt 0 ]; do
  case "$1" in
    -c) config=$2; shift 2 ;;
    --install) prefix=$2; shift 2 ;;
    *) echo "usage: $0 [-c debug|release] [--install PREFIX]" >&2; exit 2 ;;
  esac
done
# SWIFT_BUILD_FLAGS: a packager's own flags (Homebrew's formula passes --disable-sandbox and its --jobs).
# shellcheck disable=SC2086
swift build -c "$config" --product PackVerifyC ${SWIFT_BUILD_FLAGS:-} >/dev/null
bin=$(swift build -c "$config" --show-bin-path)
version=$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/PackFetch/PackVerifyVersion.swift)
if [ "$(uname -s)" = Darwin ]; then
  built=libPackVerifyC.dylib shipped=libpackverify.1.dylib dev=libpackverify.dylib
else
  built=libPackVerifyC.so shipped=libpackverify.so.1 dev=libpackverify.so
fi

# pkg-config file: $1 prefix, $2 libdir, $3 includedir.
pc() {
  cat <<PC
prefix=$1
libdir=$2
includedir=$3

Name: packverify
Description: packtool's client library: verify, install and update packs, decide access (C ABI, JSON in and out)
Version: $version
Libs: -L\${libdir} -lpackverify
Cflags: -I\${includedir}
PC
}

# The shipped file from the built one. On Apple platforms its install name is rewritten (and the copy re-signed).
ship() {
  if [ "$(uname -s)" = Darwin ]; then
    cp -f "$bin/$built" "$1"
    install_name_tool -id "@rpath/$shipped" "$1"
    codesign -f -s - "$1" 2>/dev/null || true
  elif [ "$1" = "$bin/$shipped" ]; then
    ln -sfn "$built" "$1"
  else
    install -m 755 "$bin/$built" "$1"
  fi
}

if [ -z "$prefix" ]; then
  ship "$bin/$shipped"
  ln -sfn "$shipped" "$bin/$dev"
  pc "$bin" "$bin" "$PWD/Sources/CPackVerify/include" > "$bin/packverify.pc"
  echo "$bin"
else
  root="${DESTDIR:-}$prefix"
  mkdir -p "$root/lib/pkgconfig" "$root/include"
  ship "$root/lib/$shipped"
  ln -sfn "$shipped" "$root/lib/$dev"
  install -m 644 Sources/CPackVerify/include/packverify.h "$root/include/packverify.h"
  pc "$prefix" "\${prefix}/lib" "\${prefix}/include" > "$root/lib/pkgconfig/packverify.pc"
  echo "$root"
fi
