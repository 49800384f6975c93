# A stand-in of the part of Homebrew's Formula API that Formula/packtool.rb calls, so Linux can run the formula's
# `install` and `test do` blocks for real (as the Apple stand-ins let Linux compile the client's Darwin code).
#
# Each method has the signature and the meaning Homebrew's own source gives it (Homebrew/brew at aad366f:
# Library/Homebrew/formula.rb, formula_assertions.rb, extend/os/linux/formula.rb for `shared_library`,
# extend/os/mac/formula.rb for `std_swift_args`), and nothing else is defined: a formula calling a method Homebrew
# does not have, or misspelling one, fails here with NoMethodError (Tests/mac/run.sh plants one to prove it).
#
# What it cannot prove: Homebrew's superenv (its compiler shims, PKG_CONFIG_PATH for keg-only dependencies), its
# build sandbox, the Xcode and macOS requirements, and the download of the `head` branch. The `homebrew` job of
# .github/workflows/apple.yml runs the formula through Homebrew itself on macOS.
require "etc"
require "fileutils"
require "pathname"
require "tmpdir"

class Formula
  include FileUtils

  class << self
    # What the class body declared, for the checks in run.sh.
    attr_reader :declared

    def inherited(subclass)
      super
      subclass.instance_variable_set(:@declared, { depends_on: [] })
    end

    # formula.rb: `def desc(val = T.unsafe(nil))`
    def desc(val = nil) = (@declared[:desc] = val)
    # formula.rb: `def homepage(val = T.unsafe(nil), browsed: nil)`
    def homepage(val = nil, browsed: nil) = (@declared[:homepage] = val)
    # formula.rb: `def head(val = nil, specs = {}, &block)`; a git head must name its branch (Formula Cookbook).
    def head(val = nil, specs = {}, &block)
      raise ArgumentError, "a git head needs branch: (Formula Cookbook, \"Unstable versions\")" if val.to_s.end_with?(".git") && !specs.key?(:branch)

      @declared[:head] = [val, specs]
    end
    # formula.rb: `def depends_on(dep)`: a name, `name => :build`, or a requirement (`xcode:`, `macos:`).
    def depends_on(dep) = @declared[:depends_on] << dep
  end

  # The formula's name as Homebrew derives it from the class name (Packtool → packtool).
  def name = self.class.name.gsub(/([a-z])([A-Z])/, '\1-\2').downcase

  def initialize(prefix:, buildpath:)
    @prefix = Pathname(prefix)
    @buildpath = Pathname(buildpath)
  end

  attr_reader :prefix, :buildpath

  def bin = prefix/"bin"
  def lib = prefix/"lib"
  def share = prefix/"share"
  def man = share/"man"
  def man1 = man/"man1"
  def pkgshare = prefix/"share"/name
  def testpath = @testpath || raise("testpath exists only inside `test do`")

  # extend/os/mac/formula.rb prepends --disable-sandbox to formula.rb's release flags: what a Mac build passes.
  def std_swift_args = ["--disable-sandbox", "--configuration", "release", "--jobs", Etc.nprocessors.to_s]

  # extend/os/linux/formula.rb: `libname.so.VERSION` (on macOS: `libname.VERSION.dylib`).
  def shared_library(name, version = nil) = version.nil? ? "#{name}.so" : "#{name}.so.#{version}"

  # Homebrew runs the command without a shell and fails the build on a non-zero exit (BuildError).
  def system(cmd, *args)
    Kernel.system(cmd.to_s, *args.map(&:to_s)) || raise("build failed: #{([cmd] + args).join(" ")} (exit #{$?.exitstatus})")
  end

  # formula_assertions.rb: `def shell_output(cmd, result = 0)`: backticks, then the exit status asserted.
  def shell_output(cmd, result = 0)
    output = `#{cmd}`
    assert_equal result, $?.exitstatus, "exit status of #{cmd}"
    output
  end

  def assert_match(matcher, obj, msg = nil)
    ok = matcher.is_a?(Regexp) ? matcher.match?(obj) : obj.to_s.include?(matcher)
    raise "assertion failed: #{msg || "expected #{matcher.inspect} in #{obj.to_s[0, 400].inspect}"}" unless ok
  end

  def assert_equal(exp, act, msg = nil)
    raise "assertion failed: #{msg || "values differ"}: expected #{exp.inspect}, got #{act.inspect}" unless exp == act
  end

  def assert_path_exists(path, msg = nil)
    raise "assertion failed: #{msg || "#{path} does not exist"}" unless File.exist?(path)
  end

  # `brew install`: the install method in the unpacked source (here: the checkout), then `brew test`: the test block
  # in a fresh temporary folder that is also HOME.
  def run_install
    Dir.chdir(buildpath) { install }
  end

  def run_test(block)
    Dir.mktmpdir("brew-test") do |dir|
      @testpath = Pathname(dir)
      home = ENV["HOME"]
      ENV["HOME"] = dir
      begin
        Dir.chdir(dir) { instance_exec(&block) }
      ensure
        ENV["HOME"] = home
        @testpath = nil
      end
    end
  end

  # formula.rb: `def self.test(&block)` keeps the block for `brew test`.
  class << self
    def test(&block) = (@declared[:test] = block)
  end
end
