#!/usr/bin/env python3
"""Rooms a newcomer finds (issue 43): no Swift source file over 420 lines and no function, initializer, deinit or
subscript body over 80 lines, so each file is a room one reads in a sitting and each function a phase one holds in mind.

How it reads Swift: comments (`//`, nested `/* */`) and the contents of string literals (`"…"`, multi-line `\"\"\"…\"\"\"`,
raw `#"…"#`, interpolations `\\(…)` within them) are blanked first, so a brace in a string, a comment or an HTML
template never opens or closes a body. A declaration has a body when a `{` follows its signature outside parentheses
(a default argument's closure does not count) before the next declaration or the enclosing `}`; protocol requirements
have none. A function's length runs from the line of its `func`/`init` keyword to the line of its closing brace. A
file's length is its count of lines, as `wc -l` gives it. Files whose first line is a comment saying `Generated` are
exempt.

scripts/rooms-pending.txt lists the functions that may stay long for now, one `path:function  # reason` a line: only
those in files other sessions are rewriting at the time. The check fails on a violation not listed, on a listed
entry without a reason, and on a listed entry that no longer violates (delete its line), so the list only shrinks.

usage: scripts/check-rooms.py                 the Swift files under Sources at the repository's root
       scripts/check-rooms.py DIR…            the Swift files under each DIR (paths as given, relative to the root)
       scripts/check-rooms.py --self-test     plants a 421-line file and an 81-line function (and shapes that must
                                              pass) in a scratch folder and checks each is found and nothing else
       scripts/check-rooms.py --pending FILE  another allow-list
Each finding is printed as `path: N lines` or `path:line: func name is N lines`; the exit status is 1 when any.
"""
import os
import re
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PENDING = os.path.join(REPO, "scripts", "rooms-pending.txt")
MAX_FILE, MAX_FUNC = 420, 80

MODIFIERS = (r"public|private|fileprivate|internal|package|open|static|class|final|override|mutating|nonmutating|"
             r"nonisolated(?:\(unsafe\))?|convenience|required|dynamic|prefix|postfix|infix|consuming|borrowing|"
             r"distributed|optional|(?:private|fileprivate|internal|public|package)\(set\)")
ATTRIBUTE = r"@\w+(?:\((?:[^()]|\([^()]*\))*\))?"
DECL = re.compile(r"^\s*(?:" + ATTRIBUTE + r"\s+)*(?:(?:" + MODIFIERS + r")\s+)*"
                  r"(func\s+[^\s(<]+|init[?!]?(?=[\s(<])|deinit\b|subscript(?=[\s(<]))")
# A line that begins another declaration: the one before it ended without a body.
NEXT_DECL = re.compile(r"^\s*(?:@|#|(?:" + MODIFIERS + r"|func|init|deinit|subscript|var|let|case|struct|class|enum|"
                       r"protocol|extension|actor|typealias|associatedtype|import)\b)")
GENERATED = re.compile(r"^\s*//.*\bGenerated\b")


def blank(ch):
    return ch if ch == "\n" else " "


def code_only(text):
    """The text with comments and string literals' contents replaced by spaces (newlines kept, so line numbers hold):
    what remains is the code's own braces and keywords."""
    out = []
    n = len(text)

    def lex_code(i, in_interpolation):
        """Code from i; inside an interpolation, up to and including its closing parenthesis."""
        depth = 0
        while i < n:
            c = text[i]
            if text.startswith("//", i):
                while i < n and text[i] != "\n":
                    out.append(" ")
                    i += 1
            elif text.startswith("/*", i):
                nesting = 0
                while i < n:
                    if text.startswith("/*", i):
                        nesting += 1
                        out.append("  ")
                        i += 2
                    elif text.startswith("*/", i):
                        nesting -= 1
                        out.append("  ")
                        i += 2
                        if nesting == 0:
                            break
                    else:
                        out.append(blank(text[i]))
                        i += 1
            elif c == "#" and re.match(r"#+\"", text[i:i + 64]):
                hashes = len(re.match(r"#+", text[i:]).group(0))
                out.append(" " * hashes)
                i = lex_string(i + hashes, hashes)
            elif c == '"':
                i = lex_string(i, 0)
            else:
                if c == "(":
                    depth += 1
                elif c == ")":
                    if in_interpolation and depth == 0:
                        out.append(c)
                        return i + 1
                    depth -= 1
                out.append(c)
                i += 1
        return i

    def lex_string(i, hashes):
        """A string literal opening at i (its quotes, after any #s); returns the index after it closes."""
        multiline = text.startswith('"""', i)
        quote = '"""' if multiline else '"'
        out.append('"' * len(quote))
        i += len(quote)
        close = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        while i < n:
            if text.startswith(close, i):
                out.append(" " * len(close))
                return i + len(close)
            if text.startswith(escape, i):
                out.append(" " * len(escape))
                i += len(escape)
                if i < n and text[i] == "(":
                    out.append("(")
                    i = lex_code(i + 1, True)
                elif i < n:
                    out.append(blank(text[i]))
                    i += 1
                continue
            if not multiline and text[i] == "\n":
                return i  # an unterminated literal ends with its line, as the compiler would report it
            out.append(blank(text[i]))
            i += 1
        return i

    lex_code(0, False)
    return "".join(out)


def functions(code):
    """(name, first line, length in lines) of every function-like declaration with a body in the blanked code."""
    lines = code.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found = []
    for number, line in enumerate(lines):
        m = DECL.match(line)
        if not m:
            continue
        name = m.group(1).split()[-1] if m.group(1).startswith("func") else re.match(r"\w+", m.group(1)).group(0)
        i, depth, body = starts[number] + m.end(), 0, None
        while i < len(code):
            c = code[i]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif depth == 0 and c == "{":
                body = i
                break
            elif depth == 0 and c == "}":
                break
            elif depth == 0 and c == "\n":
                following = code[i + 1:code.find("\n", i + 1) if code.find("\n", i + 1) >= 0 else len(code)]
                if NEXT_DECL.match(following):
                    break
            i += 1
        if body is None:
            continue
        braces, i = 0, body
        while i < len(code):
            if code[i] == "{":
                braces += 1
            elif code[i] == "}":
                braces -= 1
                if braces == 0:
                    break
            i += 1
        last = code.count("\n", 0, i)
        found.append((name, number + 1, last - number + 1))
    return found


def violations(roots, base, counted=None):
    """((path relative to base, function name or None), message) for every file or function over its limit; the
    files read are added to `counted` when given."""
    found = []
    for root in roots:
        for folder, subfolders, files in os.walk(root):
            subfolders.sort()
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(folder, name)
                shown = os.path.relpath(path, base)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                if GENERATED.match(text.split("\n", 1)[0]):
                    continue
                if counted is not None:
                    counted.append(shown)
                count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
                if count > MAX_FILE:
                    found.append(((shown, None), f"{shown}: {count} lines (at most {MAX_FILE})"))
                for fn, line, length in functions(code_only(text)):
                    if length > MAX_FUNC:
                        found.append(((shown, fn), f"{shown}:{line}: {fn} is {length} lines (at most {MAX_FUNC})"))
    return found


def read_pending(path):
    """{(path, function): reason} from the allow-list, and the problems with its lines."""
    pending, problems = {}, []
    if not os.path.exists(path):
        return pending, problems
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            entry, _, reason = line.partition("#")
            entry, reason = entry.strip(), reason.strip()
            file, _, fn = entry.rpartition(":")
            if not file or not fn or not reason:
                problems.append(f"{os.path.basename(path)}:{number}: want `path:function  # reason`, got `{line}`")
                continue
            pending[(file, fn)] = reason
    return pending, problems


def check(roots, base, pending_path, counted=None):
    """The findings to print: violations not allow-listed, then problems with the allow-list itself."""
    pending, problems = read_pending(pending_path)
    found = violations(roots, base, counted)
    report = [message for key, message in found if key not in pending]
    seen = {key for key, _ in found}
    listed = os.path.basename(pending_path)
    report += problems
    report += [f"{file}:{fn} is listed in {listed} but no longer over {MAX_FUNC} lines (or gone): delete its line"
               for (file, fn) in sorted(pending) if (file, fn) not in seen]
    return report


CLEAN = '''// A file that must pass: braces in strings and comments, a protocol requirement, a default-argument closure.
protocol Shape {
    func area() -> Double
    func scaled(by factor: Double) -> Self
}

struct Clean {
    /* a block comment with a { brace /* nested { */ still comment { */
    func template() -> String {
        let open = "{"  // and a comment {
        let raw = #"a raw \\(not interpolated) { string"#
        let both = "\\(open == "}" ? "{" : "}")"
        return """
        function f() { if (x) { return "}"; }
        """ + raw + both
    }

    func withDefault(_ pick: () -> Int = { 1 }) -> Int { pick() }
'''


def planted(lines_in_body):
    body = "".join(f"        total += {k}\n" for k in range(lines_in_body - 4))
    return f"    func long{lines_in_body}() -> Int {{\n        var total = 0\n{body}        return total\n    }}\n"


def self_test():
    """Plants in a scratch folder: a 421-line file, an 81-line function, a clean file holding an 80-line function and
    brace-laden strings and comments at 420 lines, and a generated 500-line file; checks exactly the first two are
    found, and that the allow-list silences an entry, demands a reason and reports an entry that no longer violates."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="rooms-") as root:
        folder = os.path.join(root, "Sources", "Demo")
        os.makedirs(folder)

        def write(name, text):
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)

        clean = CLEAN + planted(80) + "}\n"
        write("Clean.swift", clean + "//\n" * (420 - clean.count("\n")))
        write("Long.swift", "// A file one line too long.\n" + "//\n" * 420)
        write("LongFunction.swift", "struct LongFunction {\n" + planted(81) + "}\n")
        write("Generated.swift", "// Generated by a script. Do not edit.\n" + "//\n" * 499)
        sources = os.path.join(root, "Sources")
        pending = os.path.join(root, "pending.txt")
        expected = ["Sources/Demo/Long.swift: 421 lines (at most 420)",
                    "Sources/Demo/LongFunction.swift:2: long81 is 81 lines (at most 80)"]
        got = check([sources], root, pending)
        if got != expected:
            failures.append("expected:\n  " + "\n  ".join(expected) + "\ngot:\n  " + "\n  ".join(got))
        with open(pending, "w") as f:
            f.write("# comment\nSources/Demo/LongFunction.swift:long81  # being rewritten\n")
        got = check([sources], root, pending)
        if got != expected[:1]:
            failures.append(f"an allow-listed function was still reported, or more: {got}")
        with open(pending, "w") as f:
            f.write("Sources/Demo/LongFunction.swift:long81\nSources/Demo/Clean.swift:long80  # being rewritten\n")
        got = check([sources], root, pending)
        if len(got) != 4 or "want `path:function  # reason`" not in got[2] or "no longer over" not in got[3]:
            failures.append(f"an entry without a reason or one that no longer violates was not reported: {got}")
    for failure in failures:
        print("rooms guard self-test: " + failure)
    if failures:
        return 1
    print("rooms guard self-test: a 421-line file and an 81-line function each found; a 420-line file with an 80-line "
          "function, braces in strings, comments and a multi-line template, a protocol and a generated file not; "
          "the allow-list silences its entry, wants a reason and names an entry that no longer violates")
    return 0


def main(argv):
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    pending = PENDING
    if len(args) >= 2 and args[0] == "--pending":
        pending, args = args[1], args[2:]
    if any(a.startswith("-") for a in args):
        print(__doc__)
        return 2
    if args:
        roots, base = args, os.getcwd()
    else:
        roots, base = [os.path.join(REPO, "Sources")], REPO
    counted = []
    report = check(roots, base, pending, counted)
    for line in report:
        print(line)
    if not report:
        print(f"rooms guard: {len(counted)} Swift files, none over {MAX_FILE} lines and no function over {MAX_FUNC} "
              f"but the {len(read_pending(pending)[0])} listed in {os.path.basename(pending)}")
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
