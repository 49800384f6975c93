# Runs Formula/packtool.rb against the Homebrew stand-in: what `brew install --HEAD` and `brew test` would do with it,
# minus Homebrew's own environment (see homebrew_standin.rb for what that leaves unproven).
#
# usage: ruby run_formula.rb FORMULA PREFIX SOURCE [--head] [--install] [--test] [--lists README WORKFLOW]
#   --head      checks that the head is a git repository with the branch the formula names
#   --install   runs the install block in SOURCE (the checkout, as if Homebrew had unpacked it) into PREFIX
#   --test      runs the test block against PREFIX
#   --lists     checks that the formula's libraries are the README's `brew install` line and the workflow's (less the
#               test suite's own)
require "shellwords"
require_relative "homebrew_standin"

formula_file, prefix, source, *flags = ARGV
abort "usage: ruby run_formula.rb FORMULA PREFIX SOURCE [--install] [--test] [--lists README WORKFLOW]" if source.nil?

load formula_file
formula_class = Object.const_get(:Packtool)
declared = formula_class.declared
formula = formula_class.new(prefix: prefix, buildpath: source)

if (at = flags.index("--lists"))
  readme, workflow = flags[at + 1], flags[at + 2]
  # The libraries the formula depends on at run time and for the build, by name (requirements like xcode: aside).
  wanted = declared[:depends_on].flat_map { |d| d.is_a?(Hash) ? d.keys.grep(String) : [d] }.sort
  # Homebrew renamed pkg-config to pkgconf; both names install the same formula, so the lists may use either.
  normal = ->(names) { names.map { |n| n == "pkg-config" ? "pkgconf" : n }.sort }
  { readme => File.read(readme), workflow => File.read(workflow) }.each do |file, text|
    # Lines installing packtool itself (the tap's own job) are not library lists.
    lines = text.lines.grep(/^\s*brew install /).grep_v(/packtool/)
    abort "#{file}: no `brew install` line to compare with the formula" if lines.empty?
    lines.each do |line|
      # nginx and libarchive serve the test suite only (a real web server; libarchive's tar reader, the outside
      # check of packtool's own), which a formula never runs.
      named = normal.call(line.sub(/^\s*brew install /, "").split.reject { |w| w.start_with?("-") } - ["nginx", "libarchive"])
      next if named == wanted

      abort "#{file}: `#{line.strip}` installs #{named.join(" ")}, the formula depends on #{wanted.join(" ")}"
    end
  end
  puts "ok   the formula's libraries are the README's and the workflow's `brew install` lines (#{wanted.join(" ")})"
end

# The head a `brew install --HEAD` would clone: a git repository with the branch the formula names (here the tap is
# this checkout, so the head must be this checkout's own main branch).
if flags.include?("--head")
  url, specs = declared[:head]
  abort "#{formula_file}: no head" if url.nil?
  branch = specs[:branch] or abort "#{formula_file}: the head names no branch"
  refs = `git ls-remote --heads #{url.shellescape} 2>&1`
  if !$?.success? && !File.directory?(File.join(source, ".git"))
    # A checkout that is not a git repository (an exported tree) cannot be a tap; Homebrew's clone of one always is.
    puts "skipped head: #{source} is not a git repository, so the tap's own head cannot be checked here"
  elsif !$?.success?
    abort "#{formula_file}: head #{url} is not a git repository: #{refs.strip}"
  elsif refs.include?("refs/heads/#{branch}")
    puts "ok   head: #{url.sub(Dir.pwd, ".")} is a git repository with its #{branch} branch (the tap's own clone)"
  else
    # A CI checkout may be a detached commit with no branches; Homebrew's clone of the tap has its default branch.
    puts "note head: #{url.sub(Dir.pwd, ".")} is a git repository but this checkout has no #{branch} branch (a detached checkout)"
  end
end

if flags.include?("--install")
  formula.run_install
  puts "ok   install block: make install into the prefix, the example pack in #{(formula.pkgshare/"examples").relative_path_from(formula.prefix)}"
end

if flags.include?("--test")
  block = declared[:test] or abort "#{formula_file}: no test block"
  formula.run_test(block)
  puts "ok   test block passed"
end
