#!/usr/bin/env bash
# Builds the C test against libpackverify with gcc, publishes the example pack with fresh keys, and runs it.
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
"$P" sign scenes/royal-mile --state "$work/pub" --key "$work/keys/manifest.pem" --index-key "$work/keys/index.pem" --publish "$work/cdn" >/dev/null
gcc -Wall -Wextra -Werror -I Sources/CPackVerify/include Tests/c/packverify_test.c -L "$BUILD" -lpackverify -Wl,-rpath,"$BUILD" -o "$work/packverify_test"
"$work/packverify_test" "$work/pub/root/1.root.json" "$work/cdn/packs/royal-mile/1/royal-mile-1.tar" "$work/client"
