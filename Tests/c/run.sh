#!/usr/bin/env bash
# Builds the C test against libpackverify (debug and release) with gcc, publishes the example pack with fresh keys
# (version 1, and version 2 with pack.json changed in a second tree), and runs it. The release library
# is installed into a scratch prefix (scripts/libpackverify.sh --install, as make install does) and the test compiled
# there through pkg-config, so the shipped names — libpackverify.so.1, its SONAME, packverify.pc — are what is tested.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=$(scripts/libpackverify.sh)
swift build --product packtool >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
P="$BUILD/packtool"
for r in root manifest index grant; do "$P" key generate --role $r --out "$work/keys" --unencrypted >/dev/null; done
"$P" root init --state "$work/pub" --root-key "$work/keys/root.pem" --manifest-key "$work/keys/manifest.pub" \
  --index-key "$work/keys/index.pub" --grant-key "$work/keys/grant.pub" >/dev/null
"$P" sign scenes/royal-mile --state "$work/pub" --manifest-key "$work/keys/manifest.pem" --index-key "$work/keys/index.pem" --publish "$work/cdn" >/dev/null
# Version 2 in a tree of its own, its pack.json retitled: a pack-level file changed, so an update from version 1
# downloads the whole archive (verified and written while it arrives).
cp -r "$work/pub" "$work/pub2"; cp -r "$work/cdn" "$work/cdn2"; cp -r scenes/royal-mile "$work/pack2"
sed -i 's/"title": "Edinburgh, the Royal Mile, c. 1824"/"title": "Edinburgh, the Royal Mile, 1824"/' "$work/pack2/pack.json"
"$P" sign "$work/pack2" --state "$work/pub2" --manifest-key "$work/keys/manifest.pem" --index-key "$work/keys/index.pem" --publish "$work/cdn2" >/dev/null
[ -f "$work/cdn2/packs/royal-mile/2/royal-mile-2.tar" ] || { echo "FAIL version 2 was not published"; exit 1; }

run() {
  rm -rf "$work/client"
  "$work/packverify_test" "$work/pub/root/1.root.json" "$work/cdn/packs/royal-mile/1/royal-mile-1.tar" "$work/client" "$work/cdn" "$work/cdn2"
}
# The debug library (shared Swift runtime), from the build folder.
echo "libpackverify from $BUILD"
gcc -Wall -Wextra -Werror -I Sources/CPackVerify/include Tests/c/packverify_test.c -L "$BUILD" -lpackverify -Wl,-rpath,"$BUILD" -o "$work/packverify_test"
run
# The release one as it ships (Swift runtime linked in statically), installed into a prefix and found by pkg-config.
RELEASE=$(scripts/libpackverify.sh -c release)
prefix="$work/prefix"
scripts/libpackverify.sh -c release --install "$prefix" >/dev/null
echo "libpackverify installed in $prefix"
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs packverify)
gcc -Wall -Wextra -Werror Tests/c/packverify_test.c $flags -Wl,-rpath,"$prefix/lib" -o "$work/packverify_test"
run
[ "$(readlink "$prefix/lib/libpackverify.so")" = libpackverify.so.1 ] && [ -f "$prefix/lib/libpackverify.so.1" ] && [ ! -L "$prefix/lib/libpackverify.so.1" ] \
  || { echo "FAIL the install does not ship libpackverify.so.1 with libpackverify.so linked to it"; exit 1; }
readelf -d "$prefix/lib/libpackverify.so.1" | grep -q 'Library soname: \[libpackverify.so.1\]' || { echo "FAIL libpackverify.so.1 lacks its SONAME"; exit 1; }
readelf -d "$work/packverify_test" | grep -q 'Shared library: \[libpackverify.so.1\]' || { echo "FAIL a program linked with -lpackverify does not load libpackverify.so.1"; exit 1; }
echo "ok   the installed library is libpackverify.so.1 (its SONAME, what programs record) with packverify.pc"
# The release library must not need the Swift runtime from the machine.
! ldd "$RELEASE/libpackverify.so.1" | grep -q libswiftCore || { echo "FAIL the release libpackverify loads the shared Swift runtime"; exit 1; }
echo "ok   the release libpackverify is self-contained (libcrypto, libssl and the C/C++ runtime only)"
