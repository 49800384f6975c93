#!/usr/bin/env bash
# Compiles the Apple code on Linux (DESIGN.md §9.6; issue 42): every Apple-only branch of the client modules and
# PackBackground, and docs/client-apple.md's snippets, against the test-only stand-ins of Apple's APIs
# (Tests/Shims/*StandIns, each declaration copied from Apple's documentation). Steps:
#   1. the client modules and the snippets' target built with PACKTOOL_APPLE_STANDINS=1 (Package.swift: `import
#      Darwin`, UIKit, BackgroundTasks and StoreKit resolve to the stand-ins), in .build/apple; no warning from Sources/;
#   2. the snippets type-checked as an app's code in Swift 6 language mode, and with default MainActor isolation (what
#      Xcode 26 gives a new app target) — as written, no edit;
#   3. the self-test: misspellings planted in a copy of a Darwin branch and of a snippet, and wrong uses of the
#      stand-ins (Tests/Shims/AppleStandInSelfTest), must each fail to compile — so the check can fail.
# What it cannot prove (Apple's runtime behaviour, availability, SDK drift) is in docs/client-apple.md, "What was
# compiled where". Usage: scripts/check-apple-code.sh [--no-self-test]
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=.build/apple
LOG=.build/apple-code.log
ALIASES=(-module-alias Darwin=DarwinStandIns -module-alias UIKit=UIKitStandIns -module-alias BackgroundTasks=BackgroundTasksStandIns
         -module-alias StoreKit=StoreKitStandIns)
fail() { echo "check-apple-code: $*" >&2; exit 1; }
# What SwiftPM passes as -package-name (the root package's identity: its folder's name, lower-cased, as a C99 extended
# identifier), so a module copied for the self-test sees its sibling modules' `package` declarations.
PACKAGE_NAME=$(basename "$PWD" | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9_]/_/g' -e 's/^\([0-9]\)/_\1/')

# 1. The package's Apple branches.
if ! PACKTOOL_APPLE_STANDINS=1 swift build --scratch-path "$SCRATCH" --target AppleGuideSnippets > "$LOG" 2>&1; then
  grep -E "error:" "$LOG" | sort -u | head -20 >&2
  fail "the Apple-only code does not compile against the stand-ins (full log: $LOG)"
fi
warnings=$(grep -E "^/.*/Sources/.*: warning:" "$LOG" | sort -u || true)
[ -z "$warnings" ] || { echo "$warnings" >&2; fail "the client modules' Apple build prints warnings (an app would see them)"; }
MODULES="$SCRATCH/debug/Modules"
typecheck() {  # FILE FLAGS... : type-checks FILE as an app's code against the stand-in build
  local file=$1; shift
  swiftc -typecheck -parse-as-library -I "$MODULES" -I Sources/COpenSSL "${ALIASES[@]}" "$@" "$file"
}

# 2. The guide's snippets in an app's stricter modes (warnings are errors: an app with -warnings-as-errors).
SNIPPETS=Tests/AppleGuideSnippets/AppleGuideSnippets.swift
APPROACHABLE="-swift-version 6 -default-isolation MainActor -enable-upcoming-feature NonisolatedNonsendingByDefault -enable-upcoming-feature InferIsolatedConformances"
for mode in "-swift-version 6" "-swift-version 6 -default-isolation MainActor" "$APPROACHABLE"; do
  # shellcheck disable=SC2086
  if ! typecheck "$SNIPPETS" $mode -warnings-as-errors > .build/apple-snippets.log 2>&1; then
    grep -E "error:" .build/apple-snippets.log | sort -u | head -20 >&2
    fail "the guide's snippets do not compile in an app built with $mode"
  fi
done
echo "check-apple-code: the client's Apple branches, PackBackground and the guide compile against the stand-ins; the guide also in Swift 6, with default MainActor isolation and with approachable concurrency, without warnings"

[ "${1:-}" = "--no-self-test" ] && exit 0

# 3. Self-test: each planted mistake must be refused.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
refused=0
expect_refused() {  # LABEL FILE FLAGS...
  local label=$1 file=$2; shift 2
  if typecheck "$file" "$@" > "$work/log" 2>&1; then fail "self-test: $label compiled; the check cannot catch that mistake"; fi
  refused=$((refused + 1))
}
plant() {  # LABEL SOURCE OLD NEW : a copy of SOURCE with OLD replaced by NEW
  grep -qF -- "$3" "$2" || fail "self-test: '$3' is no longer in $2; update the planted mistake"
  python3 -c 'import sys; s=open(sys.argv[1]).read(); open(sys.argv[4], "w").write(s.replace(sys.argv[2], sys.argv[3], 1))' "$2" "$3" "$4" "$work/$1.swift"
}
# The control: the snippets as they are compile with the plants' very command, so each plant fails for its mistake.
typecheck "$SNIPPETS" -swift-version 5 > "$work/log" 2>&1 || { cat "$work/log" >&2; fail "self-test: the snippets do not compile in Swift 5 as they are, so the planted mistakes prove nothing"; }
typecheck "$SNIPPETS" Tests/AppleGuideSnippets/Witnesses.swift -swift-version 5 > "$work/log" 2>&1 || { cat "$work/log" >&2; fail "self-test: the snippets and their witnesses do not compile as they are"; }
# A misspelt optional delegate method in the guide's app delegate: only the witnesses can catch it.
plant snippet-delegate "$SNIPPETS" "handleEventsForBackgroundURLSession identifier: String" "handleEventsForBackgroundURLSessions identifier: String"
expect_refused "a misspelt app-delegate method (never called by the system)" "$work/snippet-delegate.swift" Tests/AppleGuideSnippets/Witnesses.swift -swift-version 5
# A misspelt UIKit, BackgroundTasks and StoreKit name in the snippets, and wrong isolation.
plant snippet-uikit "$SNIPPETS" "UIApplication.LaunchOptionsKey" "UIApplication.LaunchOptionKey"
expect_refused "a misspelt UIKit type in the guide" "$work/snippet-uikit.swift" -swift-version 5
plant snippet-bgtasks "$SNIPPETS" "requiresExternalPower" "requiresPower"
expect_refused "a misspelt BackgroundTasks property in the guide" "$work/snippet-bgtasks.swift" -swift-version 5
plant snippet-storekit "$SNIPPETS" "transaction.revocationDate" "transaction.refundDate"
expect_refused "a misspelt StoreKit property in the guide" "$work/snippet-storekit.swift" -swift-version 5
# Each stand-in self-test file holds one wrong use and, in its `// control: WRONG => RIGHT` line, how to right it: the
# righted copy must compile (so the wrong one fails for its mistake, not for anything else).
for file in Tests/Shims/AppleStandInSelfTest/*.swift; do
  name=$(basename "$file" .swift)
  expect_refused "$name" "$file" -swift-version 6
  python3 -c '
import re, sys
s = open(sys.argv[1]).read()
wrong, right = re.search(r"// control: (.*) => (.*)", s).groups()
body = s.split("\n", 2)[2]
assert wrong in body, "control does not apply"
open(sys.argv[2], "w").write(body.replace(wrong, right, 1))' "$file" "$work/$name-control.swift" || fail "self-test: $name has no working control line"
  typecheck "$work/$name-control.swift" -swift-version 6 > "$work/log" 2>&1 || { cat "$work/log" >&2; fail "self-test: $name's righted copy does not compile, so its failure proves nothing"; }
done
# A misspelt Darwin name in a Darwin-only branch of a client module: its whole module is type-checked from a copy.
plant_module() {  # MODULE FILE OLD NEW (OLD must be code, not a comment: the first occurrence is replaced)
  local module=$1 file=$2
  mkdir -p "$work/$module"
  grep -qF -- "$3" "Sources/$module/$file" || fail "self-test: '$3' is no longer in Sources/$module/$file; update the planted mistake"
  cp -r "Sources/$module/." "$work/$module/"
  # The control: the copy as it is must compile with this very command, so a planted copy fails for its mistake alone.
  swiftc -typecheck -parse-as-library -swift-version 5 -module-name "$module" -package-name "$PACKAGE_NAME" -I "$MODULES" -I Sources/COpenSSL "${ALIASES[@]}" \
    $(find "$work/$module" -name '*.swift') > "$work/log" 2>&1 || { cat "$work/log" >&2; fail "self-test: $module does not type-check as copied, so its planted mistakes prove nothing"; }
  python3 -c 'import sys; p=sys.argv[1]; s=open(p).read(); open(p, "w").write(s.replace(sys.argv[2], sys.argv[3], 1))' "$work/$module/$file" "$3" "$4"
  if swiftc -typecheck -parse-as-library -swift-version 5 -module-name "$module" -package-name "$PACKAGE_NAME" -I "$MODULES" -I Sources/COpenSSL "${ALIASES[@]}" \
       $(find "$work/$module" -name '*.swift') > "$work/log" 2>&1; then
    fail "self-test: '$4' in $module/$file compiled: that Darwin branch is not compiled against the stand-ins"
  fi
  rm -rf "${work:?}/$module"
  refused=$((refused + 1))
}
plant_module PackFiles Durability.swift "fcntl(fd, F_FULLFSYNC)" "fcntl(fd, F_FULLSYNC)"
plant_module PackModel FileSystem.swift "fp_length: off_t(count)" "fp_len: off_t(count)"
plant_module PackVerify Access/ClockGuard.swift "sysctlbyname(" "sysctl_byname("
plant_module PackBackground BackgroundPackDownloads.swift "configuration.sessionSendsLaunchEvents = true" "configuration.sessionSendsLaunchEvent = true"
plant_module PackBackground BackgroundTime.swift "application.beginBackgroundTask(withName: name)" "application.beginBackgroundTask(named: name)"
echo "check-apple-code self-test: all $refused planted mistakes refused (misspelt Apple names in the guide and in Darwin branches, wrong isolation and signatures)"
