#!/usr/bin/env bash
# The test suites of `make test`, after the debug build, in four lanes that run at once:
#   swift      the Swift test bundle over OpenSSL, itself in two processes (scripts/swift-test-lanes.py)
#   python     the Python suites (schemas, media, C ABI through ctypes, S3 against SeaweedFS, the preview in Chromium, …),
#              two modules at a time (scripts/python-test-lanes.py)
#   cryptokit  the CryptoKit stand-in build (its own scratch folder) and its suites
#   tools      the release build (no warning), the C test, the nginx end-to-end test, then `make demo` on it, `make dist`'s checks and
#              the Homebrew formula against its stand-in (Tests/mac)
# The two builds (stand-in and release) used to run one after the other in one lane, the longest of the three (20 of
# the 25 minutes CI took); in their own lanes they share the two cores with lanes that mostly wait.
# Most of the suites' time is waiting (slow servers on purpose, killed and restarted processes, fsync), so on two
# cores the lanes overlap well: serially they took ~15 minutes, in lanes about half that (figures in the README).
# Each lane writes its own log under .build/; the terminal gets each lane's failures and summary as it ends. The exit
# status is non-zero when any lane failed.
# Usage (from make test): PYTHON=… SHIM_SCRATCH=… SHIM_SUITES=… scripts/test-lanes.sh
set -uo pipefail
cd "$(dirname "$0")/.."
: "${PYTHON:?}" "${SHIM_SCRATCH:?}" "${SHIM_SUITES:?}"

BIN=$(swift build --show-bin-path)
# Suites that start packtool or load libpackverify use these instead of asking SwiftPM, which would wait for the
# release build the tools lane holds the build folder for.
scripts/libpackverify.sh >/dev/null || exit 1  # libpackverify.so.1 beside SwiftPM's libPackVerifyC.so
export PACKTOOL_BIN_DIR="$BIN"

swift_lane() {
  PACKTOOL_EXPECT_CRYPTO_BACKEND=OpenSSL scripts/swift-test-lanes.py --bundle "$BIN/packtoolPackageTests.xctest" \
    --log .build/test.log --lanes 2 > .build/test-swift.out 2>&1
  local status=$?
  { cat .build/test-swift.out; scripts/skipped-suites.sh .build/test.log; } | sed 's/^/[swift] /'
  return $status
}

python_lane() {
  # Two processes, one module each at a time (scripts/python-test-lanes.py); the modules' logs end up in
  # .build/test-python.log.
  PYTHON="$PYTHON" scripts/python-test-lanes.py --lanes 2 > .build/test-python.out 2>&1
  local status=$?
  { cat .build/test-python.out
    [ $status = 0 ] || grep -A 30 -E "^(FAIL|ERROR):" .build/test-python.log | head -n 120; } | sed 's/^/[python] /'
  return $status
}

cryptokit_lane() {
  {
    echo "CryptoKit backend (stand-in): building in $SHIM_SCRATCH (full log in .build/test-cryptokit.log)"
    PACKTOOL_CRYPTOKIT_SHIM=1 swift build --build-tests --scratch-path "$SHIM_SCRATCH" > .build/test-cryptokit.log 2>&1 || {
      grep -E "error:" .build/test-cryptokit.log; echo "CryptoKit backend (stand-in): build failed"; return 1; }
    PACKTOOL_CRYPTOKIT_SHIM=1 PACKTOOL_EXPECT_CRYPTO_BACKEND=CryptoKit swift test --skip-build --scratch-path "$SHIM_SCRATCH" \
      --filter "$SHIM_SUITES" >> .build/test-cryptokit.log 2>&1
    local status=$?
    grep -E "error:|' failed \(" .build/test-cryptokit.log
    summary=$(grep -E "Executed [0-9]+ tests?, with" .build/test-cryptokit.log | tail -n 1 | sed -E 's/^[[:space:]]*Executed //')
    echo "CryptoKit backend (stand-in): ${summary:-no test summary} ($SHIM_SUITES)"
    # The group's status, not `return`: a return here would leave the function before the lane's lines are printed.
    [ $status = 0 ]
  } > .build/test-cryptokit.out 2>&1
  local status=$?
  sed 's/^/[cryptokit] /' .build/test-cryptokit.out
  return $status
}

tools_lane() {
  {
    # packtool's release build first (make demo below reuses it), held to printing no warning.
    scripts/check-release-warnings.sh || return 1
    Tests/c/run.sh || return 1
    Tests/http/run.sh || return 1
    # The README's first command, on the optimised build users run (an optimised build once refused every valid key
    # that the debug build accepted).
    if make --no-print-directory demo > .build/demo.log 2>&1; then
      echo "make demo: passed on the release build (log in .build/demo.log)"
    else
      tail -n 20 .build/demo.log; echo "make demo failed (log in .build/demo.log)"; return 1
    fi
    # What a user installs: make install's man page and completions, make dist's archive run without Swift.
    scripts/check-dist.sh || return 1
    # The Mac route: the Homebrew formula's install and test blocks against a stand-in of Homebrew's Formula API, and
    # make dist's Darwin branch against stand-ins of otool, uname and strings.
    Tests/mac/run.sh || return 1
  } > .build/test-tools.out 2>&1
  local status=$?
  sed 's/^/[tools] /' .build/test-tools.out
  return $status
}

start=$(date +%s)
echo "running four lanes at once: swift (.build/test.log), python (.build/test-python.log), cryptokit (.build/test-cryptokit.out), tools (.build/test-tools.out)"
swift_lane & swift_pid=$!
python_lane & python_pid=$!
cryptokit_lane & cryptokit_pid=$!
tools_lane & tools_pid=$!
failed=""
wait $swift_pid || failed="$failed swift"
wait $python_pid || failed="$failed python"
wait $cryptokit_pid || failed="$failed cryptokit"
wait $tools_pid || failed="$failed tools"
echo "lanes finished in $(( $(date +%s) - start )) s"
if [ -n "$failed" ]; then
  # Again at the very end, so a CI page that keeps only the tail of the output still says what failed.
  for lane in $failed; do
    case $lane in
      swift) grep -E "error: |' failed \(" .build/test.log | head -n 20 ;;
      python) grep -E "^(FAIL|ERROR):" .build/test-python.log | head -n 20 ;;
      cryptokit) grep -E "error:|failed" .build/test-cryptokit.out | head -n 10; tail -n 15 .build/test-cryptokit.out ;;
      tools) grep -E "^FAIL|error:|failed" .build/test-tools.out | head -n 10; tail -n 15 .build/test-tools.out ;;
    esac | sed "s/^/[$lane, again] /"
  done
  echo "FAILED lanes:$failed"
  exit 1
fi
