#!/usr/bin/env bash
# Fails, naming file:line and why, when a client module (PackVerify, PackTrust, PackHTTP, PackURLSession, CPackVerify)
# opens, removes, renames, makes or links a file by path instead of through the rooted layer (RootedFolder); runs its
# own self-test first, so a guard that stopped finding planted calls fails too. `make check` and `make test` run it.
# Usage: scripts/check-rooted-writes.sh [FILE-OR-FOLDER ...]
set -euo pipefail
python3 "$(dirname "$0")/check_rooted_writes.py" --self-test
exec python3 "$(dirname "$0")/check_rooted_writes.py" "$@"
