#!/usr/bin/env python3
"""Type-checks the Apple-only Swift code on Linux, against stand-ins of Apple's modules.

No machine here has Apple's SDK (its license keeps it off them), so the code under
`#if canImport(UIKit|AppKit|SwiftUI|os|Darwin|ObjectiveC)` and `#if os(iOS|macOS)` was never
compiled before it reached the hosted macOS workflow. This script compiles it here, for each
Apple configuration (iOS: UIKit, SwiftUI, os, Darwin; macOS: AppKit, SwiftUI, os, Darwin):

1. the stand-in modules in scripts/apple-stand-ins/ (the signatures we use, written from Apple's
   documentation) are built with `swiftc -emit-module`;
2. a scratch copy of Sources/SimpleDataLogs is made in which every `canImport(...)` and `os(...)`
   of an `#if`/`#elseif` is replaced by what it is on that platform (`os(iOS)` -> true,
   `canImport(Glibc)` -> false, ...), so the Apple branches are the ones compiled;
3. the whole module is compiled with the package's flags (Swift 6, the upcoming features of
   Package.swift, warnings as errors), then the README's SwiftUI app (Sources/Examples/SwiftUIApp)
   against it.

Where Linux cannot stand in for Apple, the check says so rather than pretend:
- code that needs Objective-C interop (an NSException handler as a C function pointer) is not
  compiled, and the report names it (the Linux compiler has no Objective-C interop);
- the Darwin stand-in is Glibc plus Darwin's own names (F_FULLFSYNC); the two typealiases that
  spell Darwin's C type widths (LINUX_SPELLING) keep their Linux spelling;
- `canImport(FoundationNetworking)` counts as true: URLSession is in Foundation on Apple and in
  FoundationNetworking on Linux, and only the import sits under that test.

It proves that our Apple code type-checks against those declarations; not that the declarations
are Apple's in every detail beyond what we wrote from the docs, nor availability
(scripts/check-apple-availability.py), nor runtime behaviour (the hosted macOS workflow).

`--self-test` plants a type error in one Apple-only file of each kind (UIKit, AppKit, SwiftUI, os)
of the scratch copy and fails unless the compile fails on that very line, for each.

It also checks what no compiler here can: that the SDK stays linkable into app extensions. Xcode
refuses code that names an API marked unavailable in extensions (`UIApplication.shared`:
"'shared' is unavailable in application extensions for iOS"), and the Linux compiler ignores
that availability. So no line of the module may name the shared application object
(EXTENSION_UNAVAILABLE); the lifecycle adapters look it up by name, only in an app. The
self-test plants such a line and fails unless this check catches it.

Usage: scripts/check-apple-code.py [--self-test] [--keep]
"""
import concurrent.futures
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
STAND_INS = ROOT / "scripts" / "apple-stand-ins"
MODULE_SOURCES = ROOT / "Sources" / "SimpleDataLogs"
EXAMPLE_SOURCES = ROOT / "Sources" / "Examples" / "SwiftUIApp"

# Modules every Apple platform has (and we either use from the toolchain or stand in for).
# `ObjectiveC` is left out: the Linux compiler has no Objective-C interop, so code that needs it
# (an NSException handler as a C function pointer) cannot be type-checked here; the report names it.
# `FoundationNetworking` counts as present: on Apple URLSession is in Foundation, on Linux in
# FoundationNetworking, and the only code under that test is the import itself.
APPLE_COMMON = {"Darwin", "Foundation", "FoundationNetworking", "Dispatch", "os", "SwiftUI", "CZlib", "CSignals", "CMemoryOrder",
                "Synchronization", "CoreGraphics"}
CONFIGURATIONS = {
    "iOS": {"os": "iOS", "modules": APPLE_COMMON | {"UIKit"}},
    "macOS": {"os": "macOS", "modules": APPLE_COMMON | {"AppKit"}},
}
# Stand-ins in build order (a module after those it imports).
STAND_IN_MODULES = ["CoreGraphics", "Darwin", "os", "UIKit", "AppKit", "SwiftUI"]
# What an Apple-only file of each kind plants: (configuration, file, the import line it follows,
# a statement that is a type error only as long as that branch is compiled against the stand-in).
PLANTS = {
    # A wrong argument label (Apple's is `withName:`).
    "UIKit": ("iOS", "Platform/AppleLifecycle.swift", "import UIKit",
              "@MainActor private func plantedError() { _ = UIApplication.shared.beginBackgroundTask(withNam: nil) }"),
    # A wrong type (`isActive` is a `Bool`).
    "AppKit": ("macOS", "Platform/AppleLifecycle.swift", "import AppKit",
               "@MainActor private func plantedError() { let _: Int = NSApplication.shared.isActive }"),
    # A wrong argument label (Apple's is `perform:`).
    "SwiftUI": ("iOS", "Platform/TrackScreenViewModifier.swift", "public import SwiftUI",
                "@MainActor private func plantedError() { _ = Text(\"planted\").onAppear(action: {}) }"),
    # A missing argument (`Logger` has `init(subsystem:category:)`, no `init(subsystem:)`).
    "os": ("macOS", "Platform/OSLogSink.swift", "import os",
           "private func plantedError() { Logger(subsystem: \"planted\").info(\"planted\") }"),
}
# API that app extensions may not name (Apple marks it NS_EXTENSION_UNAVAILABLE; `NSApplication`'s
# is held to the same rule so that both adapters read alike). A match outside a comment fails.
EXTENSION_UNAVAILABLE = re.compile(r"\b(?:UIApplication|NSApplication)\s*\.\s*shared\b|\bNSApp\b")
EXTENSION_PLANT = ("Platform/AppleLifecycle.swift", "import UIKit",
                   "@MainActor private func plantedExtensionUse() { _ = UIApplication.shared }")
# Package.swift's `strictSettings`, as swiftc flags.
STRICT_FLAGS = ["-swift-version", "6",
                "-enable-upcoming-feature", "ExistentialAny",
                "-enable-upcoming-feature", "MemberImportVisibility",
                "-enable-upcoming-feature", "InternalImportsByDefault",
                "-warnings-as-errors"]
# Declarations under `#if canImport(Darwin)` that only spell a C type's Darwin width or shape
# (`mode_t` is UInt16, `opendir` returns `UnsafeMutablePointer<DIR>`): the Darwin stand-in is
# Glibc, so these keep their Linux spelling (the hosted macOS build checks the Darwin one).
LINUX_SPELLING = ("package typealias FileMode = UInt16", "typealias DirectoryStream = UnsafeMutablePointer<DIR>")
CONDITION = re.compile(r"^(\s*#(?:if|elseif)\b)(.*)$")
TEST = re.compile(r"\b(canImport|os)\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)")


def resolve(line, configuration):
    """The line with its `canImport`/`os` tests replaced by their value for `configuration`."""
    match = CONDITION.match(line)
    if not match:
        return line
    return match.group(1) + TEST.sub(lambda test: resolve_test(test, configuration), match.group(2))


def active_lines(lines, configuration, linux_spelling=False):
    """Line numbers (1-based) compiled under `configuration`, by the `canImport`/`os` tests alone.
    Other conditions (DEBUG, swift(>=...)) count as true on both sides: they do not tell Apple
    code from Linux code."""
    stack, active = [], set()
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        directive = re.match(r"#(if|elseif|else|endif)\b(.*)", stripped)
        if directive:
            kind, rest = directive.groups()
            here = LINUX if linux_spelling and keeps_linux_spelling(lines, number - 1) else configuration
            condition = TEST.sub(lambda test: resolve_test(test, here), rest)
            condition = re.sub(r"\b(?!true\b|false\b)[A-Za-z_][A-Za-z0-9_]*(\([^)]*\))?", "true", condition)
            truth = evaluate(condition) if kind in ("if", "elseif") else True
            if kind == "if":
                parent = all(frame[0] for frame in stack)
                stack.append([parent and truth, truth])
            elif kind == "elseif":
                frame = stack[-1]
                parent = all(f[0] for f in stack[:-1])
                frame[0] = parent and not frame[1] and truth
                frame[1] = frame[1] or truth
            elif kind == "else":
                frame = stack[-1]
                parent = all(f[0] for f in stack[:-1])
                frame[0] = parent and not frame[1]
                frame[1] = True
            else:
                stack.pop()
            continue
        if all(frame[0] for frame in stack):
            active.add(number)
    return active


def resolve_test(test, configuration):
    """`true` or `false`: what one `canImport(X)` or `os(X)` test says under `configuration`."""
    kind, name = test.group(1), test.group(2)
    if kind == "os":
        return "true" if name == configuration["os"] else "false"
    return "true" if name in configuration["modules"] else "false"


def evaluate(condition):
    expression = condition.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    expression = expression.replace("true", "True").replace("false", "False")
    return bool(eval(expression, {"__builtins__": {}}, {}))  # only True/False/and/or/not remain


LINUX = {"os": "Linux", "modules": {"Glibc", "Foundation", "FoundationNetworking", "Dispatch", "CZlib", "CSignals", "CMemoryOrder",
                                    "Synchronization"}}


def apple_ranges(path, configuration):
    """The line ranges of `path` compiled for `configuration` and not on Linux: its Apple code."""
    lines = path.read_text().splitlines()
    only = sorted(active_lines(lines, configuration, linux_spelling=True) - active_lines(lines, LINUX))
    # Blank and comment-only lines do not make a branch.
    only = [n for n in only if lines[n - 1].strip() and not lines[n - 1].strip().startswith("//")]
    ranges = []
    for number in only:
        if ranges and number <= ranges[-1][1] + 3:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    return ranges


def run(command, cwd=None):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True)


def build_stand_ins(out):
    for name in STAND_IN_MODULES:
        result = run(["swiftc", "-emit-module", "-parse-as-library", "-module-name", name, *STRICT_FLAGS,
                      "-I", str(out), "-o", str(out / (name + ".swiftmodule")), str(STAND_INS / (name + ".swift"))])
        if result.returncode != 0:
            sys.exit("stand-in %s does not compile:\n%s%s" % (name, result.stdout, result.stderr))


def keeps_linux_spelling(lines, index):
    """Whether line `index` is the `#if` of a LINUX_SPELLING declaration."""
    return (CONDITION.match(lines[index]) is not None and index + 1 < len(lines)
            and lines[index + 1].strip() in LINUX_SPELLING)


def scratch_copy(configuration, into, plant=None):
    """Copies the module's sources into `into` with the platform tests resolved; `plant`, if
    given, is (relative file, import line, statement) to insert after that import."""
    files = []
    for source in sorted(MODULE_SOURCES.rglob("*.swift")):
        relative = source.relative_to(MODULE_SOURCES)
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        original = source.read_text().split("\n")
        lines = [resolve(line, LINUX if keeps_linux_spelling(original, i) else configuration)
                 for i, line in enumerate(original)]
        if plant and str(relative) == plant[0]:
            index = next((i for i, line in enumerate(lines) if line.strip() == plant[1]), None)
            if index is None:
                sys.exit("self-test: %s has no line `%s` to plant after" % (relative, plant[1]))
            lines.insert(index + 1, plant[2])
        target.write_text("\n".join(lines))
        files.append(target)
    return files


def compile_module(files, scratch, stand_ins, c_modules):
    out = scratch / "module"
    out.mkdir(exist_ok=True)
    command = ["swiftc", "-emit-module", "-wmo", "-parse-as-library", "-module-name", "SimpleDataLogs",
               "-package-name", "simpledatalogs", "-D", "SWIFT_PACKAGE", "-D", "DEBUG", *STRICT_FLAGS,
               "-I", str(stand_ins), "-I", str(ROOT / "Sources" / "CZlib"), "-I", str(c_modules),
               "-emit-module-path", str(out / "SimpleDataLogs.swiftmodule"), *map(str, files)]
    return run(command, cwd=scratch), out


def compile_example(configuration, scratch, stand_ins, module_dir, c_modules):
    example = scratch / "example"
    example.mkdir(exist_ok=True)
    files = []
    for source in sorted(EXAMPLE_SOURCES.glob("*.swift")):
        target = example / source.name
        target.write_text("\n".join(resolve(line, configuration) for line in source.read_text().split("\n")))
        files.append(str(target))
    command = ["swiftc", "-typecheck", "-module-name", "ExampleSwiftUIApp", *STRICT_FLAGS,
               "-I", str(stand_ins), "-I", str(module_dir), "-I", str(ROOT / "Sources" / "CZlib"), "-I", str(c_modules),
               *files]
    return run(command, cwd=scratch)


def c_module_map(scratch):
    """The package's C targets as SwiftPM presents them: a module of each include folder's header."""
    folder = scratch / "c-modules"
    folder.mkdir(exist_ok=True)
    modules = [("CSignals", "sdl_signals.h"), ("CMemoryOrder", "sdl_memory_order.h")]
    (folder / "module.modulemap").write_text("".join(
        'module %s {\n    header "%s"\n    export *\n}\n' % (name, ROOT / "Sources" / name / "include" / header)
        for name, header in modules))
    return folder


def check(name, configuration, base, stand_ins):
    """Compiles the module and the example app for one configuration; returns (ok, report)."""
    scratch = base / name
    scratch.mkdir()
    c_modules = c_module_map(scratch)
    files = scratch_copy(configuration, scratch / "Sources", None)
    result, module_dir = compile_module(files, scratch, stand_ins, c_modules)
    report = []
    if result.returncode != 0:
        return False, ["%s: the module does not type-check:" % name, result.stdout + result.stderr]
    example = compile_example(configuration, scratch, stand_ins, module_dir, c_modules)
    if example.returncode != 0:
        return False, ["%s: Sources/Examples/SwiftUIApp does not type-check:" % name, example.stdout + example.stderr]
    report.append("%s: type-checked Sources/SimpleDataLogs (%d files) and Sources/Examples/SwiftUIApp; "
                  "its Apple code:" % (name, len(files)))
    for source in sorted(MODULE_SOURCES.rglob("*.swift")) + sorted(EXAMPLE_SOURCES.glob("*.swift")):
        ranges = apple_ranges(source, configuration)
        if ranges:
            spans = ", ".join("%d" % a if a == b else "%d-%d" % (a, b) for a, b in ranges)
            report.append("  %s: lines %s" % (source.relative_to(ROOT), spans))
    for source in sorted(MODULE_SOURCES.rglob("*.swift")):
        lines = source.read_text().splitlines()
        with_objc = dict(configuration, modules=configuration["modules"] | {"ObjectiveC"})
        skipped = sorted(active_lines(lines, with_objc) - active_lines(lines, configuration))
        if skipped:
            report.append("  NOT compiled here (needs Objective-C interop, which the Linux compiler lacks; the hosted "
                          "macOS workflow compiles it): %s: lines %d-%d" % (source.relative_to(ROOT), skipped[0], skipped[-1]))
    return True, report


def extension_unsafe_lines(root):
    """(file, line number, text) of every line under `root` that names EXTENSION_UNAVAILABLE API,
    comments aside."""
    found = []
    for source in sorted(root.rglob("*.swift")):
        for number, line in enumerate(source.read_text().splitlines(), 1):
            code = line.split("//", 1)[0]
            if EXTENSION_UNAVAILABLE.search(code):
                found.append((source, number, line.strip()))
    return found


def extension_safety(base, stand_ins):
    """The module names no API that app extensions may not use."""
    found = extension_unsafe_lines(MODULE_SOURCES)
    if found:
        return False, (["extension safety: these lines name API that app extensions may not use (look the "
                        "object up by name, only in an app; see Platform/AppleLifecycle.swift):"]
                       + ["  %s:%d: %s" % (path.relative_to(ROOT), number, text) for path, number, text in found])
    return True, "extension safety: no line of Sources/SimpleDataLogs names UIApplication.shared, NSApplication.shared or NSApp"


def extension_self_test(base, stand_ins):
    """Plants a use of `UIApplication.shared` in a scratch copy; passes only when it is caught."""
    scratch = base / "planted-extension"
    files = scratch_copy(CONFIGURATIONS["iOS"], scratch, EXTENSION_PLANT)
    planted = scratch / EXTENSION_PLANT[0]
    caught = [entry for entry in extension_unsafe_lines(scratch) if entry[0] == planted and EXTENSION_PLANT[2] in entry[2]]
    return bool(caught) and len(files) > 0, "self-test extension safety (%s): %s" % (
        EXTENSION_PLANT[0], "the planted use is caught" if caught else "the planted use of UIApplication.shared PASSED")


def self_test(kind, base, stand_ins):
    """Plants `kind`'s error; passes only when the compile fails on the planted line."""
    configuration_name, relative, after, statement = PLANTS[kind]
    configuration = CONFIGURATIONS[configuration_name]
    scratch = base / ("planted-" + kind)
    scratch.mkdir()
    c_modules = c_module_map(scratch)
    files = scratch_copy(configuration, scratch / "Sources", (relative, after, statement))
    result, _ = compile_module(files, scratch, stand_ins, c_modules)
    planted = scratch / "Sources" / relative
    line = planted.read_text().split("\n").index(statement) + 1
    output = result.stdout + result.stderr
    caught = result.returncode != 0 and re.search(r"%s:%d:\d+: error:" % (re.escape(str(planted)), line), output)
    return bool(caught), "self-test %s (%s, %s:%d): %s" % (
        kind, configuration_name, relative, line, "the planted error fails the check" if caught else
        "the planted error PASSED the check:\n" + output)


def main(arguments):
    started = time.time()
    base = pathlib.Path(tempfile.mkdtemp(prefix="apple-check-"))
    try:
        stand_ins = base / "stand-ins"
        stand_ins.mkdir()
        build_stand_ins(stand_ins)
        jobs = [(check, name, CONFIGURATIONS[name]) for name in CONFIGURATIONS]
        jobs.append((extension_safety, None, None))
        if "--self-test" in arguments:
            jobs += [(self_test, kind, None) for kind in PLANTS]
            jobs.append((extension_self_test, None, None))
        ok = True
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            futures = [pool.submit(job[0], *([job[1]] if job[1] else []), *([job[2]] if job[2] else []), base, stand_ins)
                       for job in jobs]
            for future in futures:
                passed, report = future.result()
                ok = ok and passed
                print("\n".join(report) if isinstance(report, list) else report)
        print("apple code check: %s in %.0f s" % ("passed" if ok else "FAILED", time.time() - started))
        return 0 if ok else 1
    finally:
        if "--keep" in arguments:
            print("scratch kept in", base)
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
