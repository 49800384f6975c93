#!/usr/bin/env bash
# Fails, naming file:line, when a client module (PackCrypto, PackModel, PackTrust, PackFetch, PackVerify, PackURLSession) uses a
# Linux-only symbol outside `#if os(Linux)` / `#if canImport(Glibc)`, or imports Glibc without a Darwin branch: the
# client builds for iOS and macOS, where those would not compile or would behave differently. Without arguments it
# also fails when Package.swift lets a client module reach PackSigning, or COpenSSL/CTLS off Linux. `make test` runs
# it first. Usage: scripts/portability-check.sh [FILE-OR-FOLDER ...]
set -euo pipefail
exec python3 "$(dirname "$0")/portability_check.py" "$@"
