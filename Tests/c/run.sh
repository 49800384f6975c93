#!/usr/bin/env bash
# Builds the C test against libpackverify (debug and release) with gcc, publishes the example pack with fresh keys,
# and runs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=$(swift build --show-bin-path)
swift build --product packverify >/dev/null
swift build --product packtool >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
P="$BUILD/packtool"
for r in root manifest index grant; do "$P" key generate --role $r --out "$work/keys" >/dev/null; done
"$P" root init --state "$work/pub" --root-key "$work/keys/root.pem" --manifest-key "$work/keys/manifest.pub" \
  --index-key "$work/keys/index.pub" --grant-key "$work/keys/grant.pub" >/dev/null
"$P" sign scenes/royal-mile --state "$work/pub" --manifest-key "$work/keys/manifest.pem" --index-key "$work/keys/index.pem" --publish "$work/cdn" >/dev/null
# The debug library (shared Swift runtime), then the release one as it ships (Swift runtime linked in statically).
swift build -c release --product packverify >/dev/null
for lib in "$BUILD" "$(swift build -c release --show-bin-path)"; do
  echo "libpackverify from $lib"
  gcc -Wall -Wextra -Werror -I Sources/CPackVerify/include Tests/c/packverify_test.c -L "$lib" -lpackverify -Wl,-rpath,"$lib" -o "$work/packverify_test"
  rm -rf "$work/client"
  "$work/packverify_test" "$work/pub/root/1.root.json" "$work/cdn/packs/royal-mile/1/royal-mile-1.tar" "$work/client" "$work/cdn"
done
# The release library must not need the Swift runtime from the machine.
! ldd "$(swift build -c release --show-bin-path)/libpackverify.so" | grep -q libswiftCore || { echo "FAIL the release libpackverify loads the shared Swift runtime"; exit 1; }
echo "ok   the release libpackverify is self-contained (libcrypto, libssl and the C/C++ runtime only)"
