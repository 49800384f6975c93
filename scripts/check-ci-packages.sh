#!/usr/bin/env bash
# CI installs its apt packages from .ci/run's own list, before make exists on the machine; make demo and make test
# install theirs from the Makefile's APT_BUILD and APT_TEST. The two lists drifted once (a test package added to the
# Makefile only passes here, where it is installed, and fails on a fresh CI machine), so this checks they name the
# same packages.
# usage: scripts/check-ci-packages.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ci=$(sed -n 's/^APT_PACKAGES="\(.*\)"$/\1/p' .ci/run | tr ' ' '\n' | sed '/^$/d' | sort -u)
make_lists=$(sed -n -E 's/^APT_(BUILD|TEST)[[:space:]]*:=[[:space:]]*(.*)$/\2/p' Makefile | tr ' ' '\n' | sed '/^$/d' | sort -u)
[ -n "$ci" ] || { echo "check-ci-packages: no APT_PACKAGES=\"…\" line in .ci/run"; exit 1; }
only_ci=$(comm -23 <(echo "$ci") <(echo "$make_lists") | paste -sd ' ')
only_make=$(comm -13 <(echo "$ci") <(echo "$make_lists") | paste -sd ' ')
if [ -n "$only_ci$only_make" ]; then
  [ -z "$only_make" ] || echo "check-ci-packages: the Makefile's APT_BUILD/APT_TEST name $only_make, which .ci/run does not install"
  [ -z "$only_ci" ] || echo "check-ci-packages: .ci/run installs $only_ci, which the Makefile's APT_BUILD/APT_TEST do not name"
  exit 1
fi
echo "check-ci-packages: .ci/run and the Makefile name the same $(echo "$ci" | wc -l) apt packages"
