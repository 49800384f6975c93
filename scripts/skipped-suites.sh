#!/usr/bin/env bash
# Prints one line naming every test suite `swift test` skipped because third-party data in ../shared/testdata was not
# there (see Tests/TestSupport/ThirdPartyData.swift), and why; prints nothing when none was skipped.
# Usage: scripts/skipped-suites.sh .build/test.log
set -euo pipefail
log=${1:?usage: scripts/skipped-suites.sh TEST-LOG}
[ -f "$log" ] || exit 0
# Lines look like: /…/ThirdPartyData.swift:23: Suite.testName : Test skipped - third-party data missing: NAME (PATH not found)
skips=$(grep -E ": Test skipped - third-party data missing: " "$log" \
  | sed -E 's/^.*: ([A-Za-z0-9_]+)\.[A-Za-z0-9_]+ : Test skipped - third-party data missing: ([^ ]+) \((.*) not found\).*$/\1 \2 \3/' \
  | sort -u) || true
[ -n "$skips" ] || exit 0
tests=$(grep -cE ": Test skipped - third-party data missing: " "$log" || true)
suites=$(printf '%s\n' "$skips" | awk '{ data[$1] = (data[$1] ? data[$1] "+" : "") $2 } END { for (s in data) printf "%s (%s)\n", s, data[s] }' | sort | paste -sd ',' - | sed 's/,/, /g')
where=$(printf '%s\n' "$skips" | awk 'NR == 1 { print $3 }' | sed -E 's|/testdata/.*$|/testdata|')
echo "skipped $tests third-party test(s), $where not found: $suites — put shared/ beside the checkout or set PACKTOOL_SHARED; CI sets PACKTOOL_REQUIRE_SHARED_TESTDATA=1 and runs them all"
