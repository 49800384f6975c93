#!/usr/bin/env bash
# The release build prints no warning (issue 42: an app embedding the client sees the package's warnings, and the
# tool's users build it with `make build`). Builds packtool in release mode, as `make build` and `make demo` do (so the
# tools lane pays nothing extra: building every product as well took 15 minutes of CI's two cores beside the other
# lanes), and fails if the compiler printed a warning about a file of this repository. That build compiles every module
# but the client-only ones (PackURLSession, PackBackground) and the test targets; those are held to no warning by
# scripts/check-apple-code.sh, which builds them with complete concurrency checking. An incremental build only
# reprints warnings of what it compiles again, so on a build folder that is already up to date the check judges
# nothing; it says how many modules it compiled, and on CI (a fresh clone) that is all of them.
# Usage: scripts/check-release-warnings.sh [--self-test]
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=.build/release-build.log
fail() { echo "check-release-warnings: $*" >&2; exit 1; }

# The compiler's warning lines about files under this folder (swiftc and clang print "PATH:LINE:COL: warning: …").
warnings_in() {
  grep -E "^$PWD/[^:]+:[0-9]+:[0-9]+: warning: " "$1" | sort -u || true
}

if [ "${1:-}" = "--self-test" ]; then
  # A planted warning, compiled by the same compiler as the build, must be found.
  work=$(mktemp -d "$PWD/.build/release-warnings-self-test.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  printf 'func planted() { let unused = 1 }\n' > "$work/Planted.swift"
  swiftc -O -parse-as-library -typecheck "$work/Planted.swift" > "$work/log" 2>&1 || true
  [ -n "$(warnings_in "$work/log")" ] || fail "self-test: a planted unused variable's warning was not found in the compiler's output"
  echo "check-release-warnings: self-test ok (a planted warning is found)"
  exit 0
fi

mkdir -p .build
if ! swift build -c release --product packtool > "$LOG" 2>&1; then
  grep -E "error:" "$LOG" | sort -u | head -20 >&2
  fail "the release build failed (log: $LOG)"
fi
compiled=$(grep -cE "^\[[0-9]+/[0-9]+\] Compiling " "$LOG" || true)
warnings=$(warnings_in "$LOG")
[ -z "$warnings" ] || { echo "$warnings" >&2; fail "the release build prints warnings (log: $LOG)"; }
echo "check-release-warnings: the release build compiled $compiled modules and printed no warning"
