#!/usr/bin/env python3
"""Fails when an Apple-versioned API appears where the Apple build would not allow it.

No machine here has Apple's SDK, and the Linux compiler does not check Apple availability, so this
script does what it can on Linux: DESIGN.md keeps a table of every Apple-versioned API the SDK
touches, with the first OS versions that have it (between the `availability:begin` and
`availability:end` markers). For every use of one in Sources/, in code an Apple build compiles
(the `#if` branches are evaluated as on Darwin), the versions in force there must cover the
table's: the package's floor (Package.swift's `platforms:`), raised by an enclosing
`@available(...)` declaration or `if #available(...)` / `guard #available(...)` block.

It is a text check, not a compiler: it knows braces, `#if`, comments and the two availability
forms, and nothing else. What it cannot see (an API reached through a typealias, say) the hosted
macOS workflow (.github/workflows/apple.yml) still catches.

Usage: scripts/check-apple-availability.py [repository root]
       scripts/check-apple-availability.py --self-test
"""
import pathlib
import re
import sys

PLATFORMS = ("macOS", "iOS")
# What `canImport`/`os` say when the compiler targets an Apple platform.
APPLE_TRUE = {"Darwin", "ObjectiveC", "Foundation", "Dispatch", "os", "SwiftUI", "UIKit", "AppKit",
              "CZlib", "Synchronization", "macOS", "iOS", "Security", "Network"}


def version(text):
    return tuple(int(part) for part in text.split("."))


def read_table(design):
    text = design.read_text()
    match = re.search(r"<!-- availability:begin -->(.*?)<!-- availability:end -->", text, re.S)
    if not match:
        sys.exit("DESIGN.md has no availability table between its markers")
    rows = []
    for line in match.group(1).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        token = cells[0].strip("`")
        # "—": the API does not exist on that platform; the code that uses it is guarded by
        # `canImport`, which the `#if` evaluation already handles.
        needs = {platform: (0,) if cell in ("—", "-") else version(cell) for platform, cell in zip(PLATFORMS, cells[1:3])}
        rows.append((token, needs))
    if not rows:
        sys.exit("the availability table is empty")
    return rows


def read_floor(package):
    text = package.read_text()
    floor = {}
    for platform in PLATFORMS:
        found = re.search(r"\.%s\(\.v(\d+)(?:_(\d+))?\)" % platform, text)
        if not found:
            sys.exit("Package.swift declares no %s floor" % platform)
        floor[platform] = (int(found.group(1)), int(found.group(2) or 0))
    return floor


def parse_available(text):
    """The versions an `@available(...)` or `#available(...)` names, by platform."""
    found = {}
    for platform in PLATFORMS:
        match = re.search(r"\b%s(?:ApplicationExtension)?\s+(\d+(?:\.\d+)*)" % platform, text)
        if match:
            found[platform] = version(match.group(1))
    return found


def evaluate(condition):
    """Whether an `#if` condition holds when compiling for an Apple platform."""
    expression = condition
    expression = re.sub(r"canImport\(\s*(\w+)[^)]*\)", lambda m: " True " if m.group(1) in APPLE_TRUE else " False ", expression)
    expression = re.sub(r"os\(\s*(\w+)\s*\)", lambda m: " True " if m.group(1) in APPLE_TRUE else " False ", expression)
    expression = re.sub(r"arch\(\s*\w+\s*\)", " True ", expression)
    expression = re.sub(r"compiler\([^)]*\)|swift\([^)]*\)|hasFeature\([^)]*\)", " True ", expression)
    expression = re.sub(r"\b(DEBUG|SWIFT_PACKAGE)\b", " True ", expression)
    expression = expression.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    try:
        return bool(eval(expression, {"__builtins__": {}}, {"True": True, "False": False}))
    except Exception:
        sys.exit("cannot read the #if condition: %s" % condition)


def strip_comments(line):
    stripped = line.strip()
    if stripped.startswith("//"):
        return ""
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', line).split("//")[0]


def check_file(path, table, floor):
    problems = []
    conditions = []  # (active, any branch taken)
    scopes = [dict(floor)]  # the versions in force, one entry per open brace
    pending = None  # an @available seen, waiting for its declaration's brace
    in_block_comment = False
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw
        if in_block_comment:
            if "*/" not in line:
                continue
            line = line.split("*/", 1)[1]
            in_block_comment = False
        if "/*" in line and "*/" not in line:
            line = line.split("/*", 1)[0]
            in_block_comment = True
        stripped = line.strip()
        directive = re.match(r"#(if|elseif|else|endif)\b(.*)", stripped)
        if directive:
            kind, rest = directive.group(1), directive.group(2)
            if kind == "if":
                holds = evaluate(rest)
                conditions.append([holds, holds])
            elif kind == "elseif":
                holds = not conditions[-1][1] and evaluate(rest)
                conditions[-1] = [holds, conditions[-1][1] or holds]
            elif kind == "else":
                conditions[-1] = [not conditions[-1][1], True]
            else:
                conditions.pop()
            continue
        if not all(active for active, _ in conditions):
            continue
        code = strip_comments(line)
        if not code.strip():
            continue
        current = dict(scopes[-1])
        attribute = re.search(r"@available\((.*?)\)", code)
        if attribute and "unavailable" not in attribute.group(1) and "deprecated" not in attribute.group(1):
            pending = parse_available(attribute.group(1))
        check_available = re.search(r"#available\((.*?)\)", code)
        block = None
        if check_available:
            block = parse_available(check_available.group(1))
        in_force = dict(current)
        for extra in (pending, block):
            for platform, value in (extra or {}).items():
                in_force[platform] = max(in_force[platform], value)
        for token, needs in table:
            if token in code:
                for platform in PLATFORMS:
                    if in_force[platform] < needs[platform]:
                        problems.append("%s:%d: %s needs %s %s; %s %s is in force here" % (
                            path, number, token, platform, ".".join(map(str, needs[platform])),
                            platform, ".".join(map(str, in_force[platform]))))
                        break
        if check_available and code.lstrip().startswith("guard"):
            # `guard #available(...) else { return }`: the rest of this scope has it.
            scopes[-1] = in_force
            block = None
        for character in code:
            if character == "{":
                if pending is not None or block is not None:
                    scopes.append(in_force)
                    pending = None
                    block = None
                else:
                    scopes.append(dict(scopes[-1]))
            elif character == "}":
                if len(scopes) > 1:
                    scopes.pop()
        if pending is not None and not attribute and not code.rstrip().endswith((",", "(")) and "{" not in code \
                and re.search(r"\b(func|var|let|init|case|subscript)\b", code):
            pending = None  # a declaration without a body: the attribute covered this line only
    return problems


SELF_TEST_CASES = [
    # (source, whether the check must flag it)
    ("func f(_ job: consuming ExecutorJob) {}\n", True),
    ("@available(macOS 14, iOS 17, *)\nfunc f(_ job: consuming ExecutorJob) {}\n", False),
    ("@available(macOS 14, *)\nfunc f(_ job: consuming ExecutorJob) {}\n", True),  # iOS stays at the floor
    ("#if os(Linux)\nlet a = Atomic<Int>(0)\n#endif\n", False),
    ("#if canImport(Darwin)\nlet a = Atomic<Int>(0)\n#endif\n", True),
    ("#if canImport(Glibc)\n#elseif canImport(Darwin)\nlet a = Atomic<Int>(0)\n#endif\n", True),
    ("func f() {\n    if #available(macOS 15, iOS 18, *) {\n        let a = Atomic<Int>(0)\n    }\n    let b = Atomic<Int>(0)\n}\n", True),
    ("func f() {\n    if #available(macOS 15, iOS 18, *) {\n        let a = Atomic<Int>(0)\n    }\n}\n", False),
    ("func f() {\n    guard #available(macOS 15, iOS 18, *) else { return }\n    let a = Atomic<Int>(0)\n}\n", False),
    ("/// ExecutorJob in a doc comment\n// and ExecutorJob in a comment\n", False),
    ("let lock = OSAllocatedUnfairLock(initialState: 0)\n", False),
]


def self_test():
    """Runs the check on small sources whose verdict is known; fails when one is wrong."""
    import tempfile
    table = [("ExecutorJob", {"macOS": (14,), "iOS": (17,)}), ("Atomic<", {"macOS": (15,), "iOS": (18,)}),
             ("OSAllocatedUnfairLock", {"macOS": (13,), "iOS": (16,)})]
    floor = {"macOS": (13, 0), "iOS": (16, 0)}
    wrong = 0
    with tempfile.TemporaryDirectory() as folder:
        for index, (source, flagged) in enumerate(SELF_TEST_CASES):
            path = pathlib.Path(folder) / ("case%d.swift" % index)
            path.write_text(source)
            if bool(check_file(path, table, floor)) != flagged:
                wrong += 1
                print("self-test case %d: expected %s:\n%s" % (index, "a problem" if flagged else "none", source))
    print("self-test: %d of %d cases right" % (len(SELF_TEST_CASES) - wrong, len(SELF_TEST_CASES)))
    return 1 if wrong else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    table = read_table(root / "DESIGN.md")
    floor = read_floor(root / "Package.swift")
    problems = []
    for path in sorted((root / "Sources").rglob("*.swift")):
        problems += check_file(path, table, floor)
    if problems:
        print("\n".join(problems))
        print("%d use(s) of Apple-versioned APIs outside the availability that covers them" % len(problems))
        return 1
    print("Apple availability: %d APIs from DESIGN.md's table, every use covered (floor macOS %d, iOS %d)" % (
        len(table), floor["macOS"][0], floor["iOS"][0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
