# packtool for Mac authors and publishers, as a Homebrew tap: this repository is the tap.
#
#   brew tap packtool/packtool URL-OF-THIS-REPOSITORY   # a tap may live at any git URL
#   brew install --HEAD packtool
#   packtool lint "$(brew --prefix packtool)/share/packtool/examples/royal-mile"
#
# It builds from source with the Swift of the Xcode it finds (SwiftPM cannot fetch packages; packtool needs none) and
# Homebrew's libraries. There is no stable `url` yet: packtool has no tagged release, so the formula builds the main
# branch (`--HEAD`) of the tap itself — the tap is a clone of this repository, so the formula needs no URL of its
# own and follows wherever the repository is hosted (`brew update` fetches the tap, `brew upgrade --fetch-HEAD`
# rebuilds). When a release is tagged, add its source archive's `url` and `sha256` here.
#
# What has run where (README, "On a Mac"): Homebrew itself has never run this file here. `make test` runs its install
# and test blocks on Linux against a stand-in of the Formula API it calls (Tests/mac/), and the `homebrew` job of
# .github/workflows/apple.yml taps this repository on macOS, installs and runs `brew test`.
class Packtool < Formula
  desc "Lint, sign, publish and verify signed content packs for the walking companion"
  # The tap's own clone (Formula/ is one level below its top): its README is the homepage, its main branch the head.
  homepage "file://#{File.expand_path("../README.md", __dir__)}"
  head "file://#{File.expand_path("..", __dir__)}", using: :git, branch: "main"

  # The same libraries as the README's `brew install` line and the workflow's, but for libarchive, which only the
  # test suite uses (the stand-in test checks the three lists agree). FFmpeg, libheif and webp are opened on first use (lint's voice checks, the preview's plates), so
  # they are needed at run time but never loaded by commands that do not use them.
  depends_on "pkgconf" => :build
  depends_on xcode: ["15.4", :build]
  depends_on "ffmpeg"
  depends_on "libheif"
  depends_on "libpng"
  depends_on macos: :sonoma
  depends_on "openssl@3"
  depends_on "qrencode"
  depends_on "sqlite"
  depends_on "webp"

  def install
    # `make install` builds the release binary and the C library and installs them with the man pages and the
    # bash, zsh and fish completions; Homebrew's own Swift flags (its sandbox already wraps the build).
    ENV["SWIFT_BUILD_FLAGS"] = std_swift_args.join(" ")
    system "make", "install", "PREFIX=#{prefix}"
    # The example pack, so an author's first `packtool lint` has something to read. Copied, not moved: the source
    # tree stays whole.
    (pkgshare/"examples").mkpath
    cp_r "scenes/royal-mile", pkgshare/"examples"
  end

  test do
    # A real lint of the example pack (copied: lint may write nothing into the keg), its JSON read back, and the
    # per-command man page the formula installed.
    cp_r pkgshare/"examples/royal-mile", testpath
    report = shell_output("#{bin}/packtool lint --format json #{testpath}/royal-mile").delete(" \n")
    assert_match '"stops":7', report
    assert_match '"errors":0', report
    assert_match "packtool", shell_output("#{bin}/packtool --version")
    assert_path_exists man1/"packtool-lint.1"
    assert_path_exists lib/shared_library("libpackverify", 1)
  end
end
