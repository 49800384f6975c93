#!/usr/bin/env python3
"""The public-docs guard (issue 30, part 5): every public declaration of the client library an app links carries a
DocC comment, so Xcode's Quick Help and the generated documentation never show a bare name.

The rule: in the Swift sources of the client modules (CLIENT_MODULES), a declaration of a type (struct, class, enum,
actor, protocol), func, init, var, let, subscript or typealias that is `public` or `open` — written so, or without a
modifier inside a `public extension` or a public protocol — has a `///` line or a `/** … */` block directly above
it. Between the comment and the declaration only attribute lines (`@discardableResult`, `@available(…)`, …) and
`#if`/`#elseif`/`#else`/`#endif` lines may stand; a blank line or a `//` comment breaks the link, as it does for DocC.
Declarations inside a function body, or in a type or extension that is not itself public, are not public API.

Not checked, on purpose:
  - `case`s of a public enum: the enum's comment says what it models and its cases are read by name; a case that
    needs more (a failure code, a unit) is documented by hand, and the codes of VerificationFailure have their registry.
  - witnesses whose meaning is the protocol's: `init(from:)`, `encode(to:)`, `description`, `debugDescription`,
    `errorDescription`, `==`, `<`, `hash(into:)` and `CodingKeys`;
  - every member of an extension that only declares a conformance (`extension T: P { … }`): its members are P's.
  - registry constants, `static let NAME = Code("name", …, "meaning")` (VerificationFailure.Code in PackTrust,
    AccessDecision.Code in PackVerify): the meaning is an argument, generated into docs/verification-codes.md and
    docs/access-codes.md, and a `///` line would only repeat it. The call's arguments (over up to 8 lines) must hold
    at least two non-empty string literals, the name and the meaning; a plain `static let`, or a `Code(rawValue: …)`
    without a meaning, still needs its `///` line.
  - names listed in scripts/public-docs-pending.txt (`Module.Type.member(labels:)`, one a line, `#` comments): only
    for files other sessions are editing at the time, to be documented when they land.

Each finding is printed as `file:line: kind Module.Name`; the exit status is 1 when there is any.

usage: scripts/check-public-docs.py              the client modules at the repository's root
       scripts/check-public-docs.py --self-test  plants an undocumented public func, property and type (and the shapes
                                                 that must pass, registry constants among them) in a scratch module
                                                 and checks each is found
       scripts/check-public-docs.py --root DIR [--pending FILE]   the modules under DIR/Sources
"""
import os
import re
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIENT_MODULES = ["PackVerify", "PackFetch", "PackURLSession", "PackBackground", "PackTrust", "PackModel",
                  "PackCrypto", "PackFiles", "PackHTTP"]
PENDING = os.path.join(REPO, "scripts", "public-docs-pending.txt")

WITNESSES = {"init(from:)", "encode(to:)", "description", "debugDescription", "errorDescription", "==", "<",
             "hash(into:)", "CodingKeys"}
TYPE_KINDS = {"struct", "class", "enum", "actor", "protocol"}
MODIFIER = (r"(?:public|open|internal|private|fileprivate|package|static|class|final|override|mutating|nonmutating|"
            r"convenience|required|lazy|weak|unowned|dynamic|nonisolated|isolated|indirect|prefix|postfix|infix|"
            r"consuming|borrowing|distributed)(?:\([a-z]+\))?")
ATTRIBUTE = r"@[A-Za-z_][\w.]*(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?"
DECL = re.compile(r"^\s*(?:" + ATTRIBUTE + r"\s+)*((?:" + MODIFIER + r"\s+)*)"
                  r"(struct|class|enum|actor|protocol|extension|func|init|subscript|var|let|typealias|case|"
                  r"associatedtype|deinit)\b[?!]?\s*(.*)$")
DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b")
ATTRIBUTE_LINE = re.compile(r"^\s*@[A-Za-z_]")


def code_lines(text):
    """Each line's code with comments removed and string literals emptied, so braces and keywords inside them do
    not count. Handles /* */ (nested), //, "…", \"\"\"…\"\"\" and #"…"#."""
    out, line = [], []
    i, n = 0, len(text)
    comment_depth, string = 0, None  # string: (raw hashes, quotes) while inside a literal
    while i < n:
        c = text[i]
        if c == "\n":
            out.append("".join(line))
            line = []
            i += 1
            continue
        if comment_depth:
            if text.startswith("*/", i):
                comment_depth -= 1
                i += 2
            elif text.startswith("/*", i):
                comment_depth += 1
                i += 2
            else:
                i += 1
            continue
        if string:
            hashes, quotes = string
            if c == "\\" and not hashes:
                i += 2
                continue
            if text.startswith(quotes + hashes, i):
                i += len(quotes + hashes)
                line.append('""')
                string = None
                continue
            i += 1
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            comment_depth = 1
            i += 2
            continue
        m = re.match(r'(#*)("""|")', text[i:i + 12])
        if m and c in '"#':
            string = (m.group(1), m.group(2))
            i += len(m.group(0))
            continue
        line.append(c)
        i += 1
    out.append("".join(line))
    return out


def signature_name(kind, rest, following):
    """The name a declaration is listed under: `foo`, `foo(bar:_:)`, `init(from:)`, `subscript(_:)`, `==`."""
    if kind in ("init", "subscript"):
        name, params = kind, rest
    else:
        m = re.match(r"(`?[A-Za-z_][\w]*`?|[^\s(<]+)", rest)
        name = m.group(1).strip("`") if m else "?"
        params = rest[len(m.group(1)):] if m else ""
        if kind != "func" or not re.match(r"[A-Za-z_]", name):
            return name  # a property, type or operator: listed by its name alone
    text = params + " " + " ".join(following)
    text = re.sub(r"^\s*<[^()]*?>", "", text)  # generic parameters
    start = text.find("(")
    if start < 0:
        return name
    depth, end = 0, None
    for j in range(start, len(text)):
        if text[j] in "([<":
            depth += 1
        elif text[j] in ")]>" and not (text[j] == ">" and text[j - 1] == "-"):
            depth -= 1
            if depth == 0:
                end = j
                break
    inner = text[start + 1:end] if end else text[start + 1:]
    labels, depth, current = [], 0, ""
    for ch in inner + ",":
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        if ch == "," and depth == 0:
            if current.strip():
                labels.append(current.strip().split()[0].split(":")[0] + ":")
            current = ""
        else:
            current += ch
    return f"{name}({''.join(labels)})"


def findings_in(path, module, shown):
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read().split("\n")
    code = code_lines("\n".join(raw))
    found = []
    # Each scope: (kind, public, conformance-only extension, name). kind: "type", "protocol", "extension", "body".
    stack = []
    header = None  # (kind, public, conformance_only, name) of the declaration whose `{` is still to come
    for index, line in enumerate(code):
        m = DECL.match(line)
        inside_body = any(s[0] == "body" for s in stack)
        if m and not inside_body:
            modifiers, kind, rest = m.group(1), m.group(2), m.group(3)
            explicit = re.search(r"\b(public|open)\b(?!\()", modifiers) is not None
            restricted = re.search(r"\b(internal|private|fileprivate|package)\b(?!\()", modifiers) is not None
            enclosing = stack[-1] if stack else None
            implicit = (not restricted and enclosing is not None and enclosing[1]
                        and enclosing[0] in ("protocol", "extension") and enclosing[3] is not None
                        and (enclosing[0] == "protocol" or enclosing[4]))
            chain_public = all(s[1] for s in stack if s[0] in ("type", "protocol"))
            is_public = (explicit or implicit) and chain_public
            name_match = re.match(r"`?([A-Za-z_][\w.]*)", rest)
            if kind in TYPE_KINDS or kind == "extension":
                type_name = name_match.group(1) if name_match else "?"
                if kind == "extension":
                    conformance_only = re.match(r"[\w.]+(?:<[^>]*>)?\s*:", rest) is not None
                    header = ("extension", explicit or not restricted, conformance_only, type_name, explicit)
                else:
                    header = ("protocol" if kind == "protocol" else "type", is_public, False, type_name, is_public)
            else:
                header = ("body", False, False, None, False)
            if is_public and kind not in ("extension", "case", "deinit", "associatedtype"):
                name = signature_name(kind, rest, code[index + 1:index + 12])
                in_conformance = any(s[0] == "extension" and s[2] for s in stack)
                if (name not in WITNESSES and not in_conformance and not documented(raw, index)
                        and not registry_constant(raw, index)):
                    qualified = ".".join([module] + [s[3] for s in stack if s[3]] + [name])
                    found.append((f"{shown}:{index + 1}: {kind} {qualified}", qualified))
        for ch in line:
            if ch == "{":
                if header is not None:
                    stack.append(header)
                    header = None
                else:
                    stack.append(("body", False, False, None, False))
            elif ch == "}":
                if stack:
                    stack.pop()
                header = None
    return found


def documented(raw, index):
    """Whether a `///` line or the end of a `/** */` block stands directly above line `index`, past attribute and
    #if lines."""
    j = index - 1
    while j >= 0 and (ATTRIBUTE_LINE.match(raw[j]) or DIRECTIVE.match(raw[j])):
        j -= 1
    if j < 0:
        return False
    above = raw[j].strip()
    if above.startswith("///"):
        return True
    if above.endswith("*/"):
        while j >= 0 and "/*" not in raw[j]:
            j -= 1
        return j >= 0 and raw[j].strip().startswith("/**")
    return False


REGISTRY = re.compile(r"^\s*(?:" + ATTRIBUTE + r"\s+)*(?:" + MODIFIER + r"\s+)*static\s+(?:" + MODIFIER
                      + r"\s+)*let\s+`?[A-Za-z_]\w*`?\s*(?::\s*Code\s*)?=\s*Code\(")
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def registry_constant(raw, index):
    """Whether line `index` declares a registry constant, `static let NAME = Code("name", …, "meaning")`: a code whose
    meaning is an argument, generated into docs/verification-codes.md or docs/access-codes.md, so that argument is its
    documentation. The call's arguments (up to its closing parenthesis, over at most 8 lines) must hold at least two
    non-empty string literals, the name and the meaning; `Code(rawValue: "x")` or a call without a meaning is not one."""
    m = REGISTRY.match(raw[index])
    if not m:
        return False
    text = "\n".join(raw[index:index + 8])
    depth, i, literals = 0, m.end() - 1, []  # i: the call's opening parenthesis
    while i < len(text):
        c = text[i]
        if c == '"':
            m = STRING.match(text, i)
            if not m:
                return False
            literals.append(m.group(1))
            i = m.end()
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    else:
        return False
    return sum(1 for literal in literals if literal.strip()) >= 2


def swift_files(folder):
    for base, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def read_pending(path):
    if not path or not os.path.exists(path):
        return set()
    with open(path) as f:
        return {line.split("#")[0].strip() for line in f if line.split("#")[0].strip()}


def findings(root, modules, pending=frozenset(), undocumented=None):
    """The findings not in `pending`, and how many files were read; `undocumented` (a set) collects every
    undocumented name, pending ones included, so stale pending entries can be named."""
    found, files = [], 0
    for module in modules:
        folder = os.path.join(root, "Sources", module)
        for file in swift_files(folder):
            files += 1
            for text, qualified in findings_in(file, module, os.path.relpath(file, root)):
                if undocumented is not None:
                    undocumented.add(qualified)
                if qualified not in pending:
                    found.append(text)
    return found, files


PLANTED = '''import Foundation

/// A documented type.
public struct Documented: Codable, Equatable {
    /// A documented property.
    public let value: Int
    public let undocumentedProperty: Int
    @discardableResult
    public func undocumentedFunction() -> Int { let local = 1; return local }
    /// Documented, with attributes and a conditional line between.
    @available(macOS 13, *)
    #if DEBUG
    @discardableResult
    #endif
    public func documented() -> Int { 1 }
    public init(from decoder: Decoder) throws { value = 0; undocumentedProperty = 0 }
    public static func == (a: Documented, b: Documented) -> Bool { true }
    internal func notPublic() {}
    public var computed: String {
        let text = "public func inAString() {"
        return text
    }

    // A plain comment is not documentation.
    public static var plainCommented: Int { 1 }
}

public enum UndocumentedType {
    case notChecked
}

/// A documented protocol.
public protocol Requirements {
    /// Documented requirement.
    var documentedRequirement: Int { get }
    func undocumentedRequirement()
}

public extension Documented {
    func undocumentedInPublicExtension() {}
    /**
     A block comment documents too.
     */
    func blockDocumented() {}
    private func hidden() {}
}

extension Documented: CustomStringConvertible {
    public var description: String { "" }
    public var alsoWitness: String { "" }
}

struct Internal {
    public func notReachable() {}
}

/// A documented registry.
public struct Code {
    init(_ name: String, _ meaning: String) {}
    init(rawValue: String) {}
    public static let registered = Code("registered", "a registry constant: its meaning is an argument")
    public static let registeredOverLines = Code("registered-over-lines",
                                                 "a registry constant whose meaning is on the next line")
    public static let plainConstant = 1
    public static let withoutMeaning = Code(rawValue: "without-meaning")
}
'''
EXPECTED = [
    "Sources/PackDemo/Planted.swift:7: let PackDemo.Documented.undocumentedProperty",
    "Sources/PackDemo/Planted.swift:9: func PackDemo.Documented.undocumentedFunction()",
    "Sources/PackDemo/Planted.swift:19: var PackDemo.Documented.computed",
    "Sources/PackDemo/Planted.swift:25: var PackDemo.Documented.plainCommented",
    "Sources/PackDemo/Planted.swift:28: enum PackDemo.UndocumentedType",
    "Sources/PackDemo/Planted.swift:36: func PackDemo.Requirements.undocumentedRequirement()",
    "Sources/PackDemo/Planted.swift:40: func PackDemo.Documented.undocumentedInPublicExtension()",
    "Sources/PackDemo/Planted.swift:64: let PackDemo.Code.plainConstant",
    "Sources/PackDemo/Planted.swift:65: let PackDemo.Code.withoutMeaning",
]


def self_test():
    """A scratch module: each planted undocumented public declaration is found at its line, nothing else is; a
    pending entry silences exactly its name; documenting a finding clears it."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="public-docs-") as root:
        folder = os.path.join(root, "Sources", "PackDemo")
        os.makedirs(folder)
        planted = os.path.join(folder, "Planted.swift")
        with open(planted, "w") as f:
            f.write(PLANTED)
        got, _ = findings(root, ["PackDemo"])
        if got != EXPECTED:
            failures.append("expected:\n  " + "\n  ".join(EXPECTED) + "\ngot:\n  " + "\n  ".join(got))
        got, _ = findings(root, ["PackDemo"], {"PackDemo.UndocumentedType"})
        if got != [e for e in EXPECTED if not e.endswith(" PackDemo.UndocumentedType")]:
            failures.append(f"a pending entry did not silence exactly its name: {got}")
        with open(planted, "w") as f:
            f.write(PLANTED.replace("    public let undocumentedProperty", "    /// Now documented.\n    public let undocumentedProperty"))
        got, _ = findings(root, ["PackDemo"])
        if any("undocumentedProperty" in g for g in got) or len(got) != len(EXPECTED) - 1:
            failures.append(f"documenting the property did not clear exactly its finding: {got}")
    for failure in failures:
        print("public-docs guard self-test: " + failure)
    if failures:
        return 1
    print(f"public-docs guard self-test: {len(EXPECTED)} planted undocumented public declarations (type, func, "
          "property, protocol requirement, public-extension member, plain and meaningless static let) each found; "
          "documented, registry-constant, witness, conformance, internal and pending ones not")
    return 0


def main(argv):
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    root, pending_path = REPO, PENDING
    while args:
        flag, value, args = args[0], (args[1] if len(args) > 1 else None), args[2:]
        if flag == "--root" and value:
            root = value
        elif flag == "--pending" and value:
            pending_path = value
        else:
            print(__doc__)
            return 2
    pending = read_pending(pending_path)
    undocumented = set()
    found, files = findings(root, CLIENT_MODULES, pending, undocumented)
    for finding in found:
        print(finding)
    for name in sorted(pending - undocumented):
        print(f"note: {name} is listed in {os.path.basename(pending_path)} but documented now (or gone): delete its line")
    if found:
        print(f"public-docs guard: {len(found)} public declaration(s) without a /// doc comment in the client modules")
        return 1
    print(f"public-docs guard: {files} Swift files of {', '.join(CLIENT_MODULES)}; every public declaration documented"
          + (f" ({len(pending)} pending in {os.path.relpath(pending_path, root)})" if pending else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
