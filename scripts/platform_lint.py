#!/usr/bin/env python3
"""Platform checks that Linux can make for code only an Apple machine compiles.

1. imports: the SDK's modules (the targets an app build compiles) import only Apple's SDK, the Swift
   toolchain's modules and lower SDK modules, except inside a branch an Apple platform never takes
   (`#if os(Linux)`, `#if canImport(Glibc)`, the `#else` of `#if canImport(SQLite3)`, `#if canImport(X)` for
   the very module X). An unconditional `import CSQLite` fails here, as it does in Xcode.
2. availability: the SDK names no API newer than the deployment target Package.swift declares, unless inside
   an `@available`/`#available` scope that covers it; scripts/availability.txt lists the APIs and versions.
3. linux-only: no source or test file, the server's included, names a Linux-only symbol (epoll, eventfd,
   getrandom, MSG_NOSIGNAL, `Glibc.` ...) outside a branch only Linux takes, so the package builds on a Mac.
4. bash32: every script .github/workflows/apple.yml runs (and the scripts those run) uses nothing newer than
   the bash 3.2 of macOS nor a GNU-only tool option.
5. example: the example app's deployment target is not below the package's (Xcode refuses the package
   product otherwise).

Usage: platform_lint.py [--self-test]
"""
import json
import pathlib
import re
import subprocess
import sys

from apple_glue_lint import strip_comments_and_strings

ROOT = pathlib.Path(__file__).resolve().parent.parent
SDK_TARGETS = ["TidingsModel", "TidingsSQLite", "Tidings", "TidingsNotificationService"]
APPLE_MODULES = {
    "Foundation", "Dispatch", "Darwin", "Security", "SQLite3", "os", "UIKit", "UserNotifications", "PushKit",
    "ActivityKit", "SafariServices", "CallKit", "Network", "CryptoKit", "SwiftUI", "Combine", "CoreFoundation",
    "_Concurrency", "Swift",
}
# Branches Linux takes and Apple platforms never do.
LINUX_ONLY_CONDITION = re.compile(r"os\(Linux\)|canImport\((Glibc|Musl|FoundationNetworking|CSQLite|CSocket)\)")
LINUX_ONLY_SYMBOLS = re.compile(
    r"\b(epoll_\w+|eventfd|getrandom|accept4|pipe2|signalfd|timerfd_\w+|inotify_\w+|prctl|MSG_NOSIGNAL|"
    r"SOCK_CLOEXEC|SOCK_NONBLOCK|TCP_INFO|SOCK_(STREAM|DGRAM)\.rawValue|Glibc\.\w+|import Glibc|import Musl)\b")
BASH4 = [
    (re.compile(r"\b(mapfile|readarray|coproc)\b"), "a bash 4 builtin"),
    (re.compile(r"\b(declare|local|typeset)\s+-[a-zA-Z]*[An]"), "associative arrays or namerefs (bash 4)"),
    (re.compile(r"\$\{[#!]?\w+(\[[^]]*\])?(,,?|\^\^?)[^}]*\}"), "case conversion in an expansion (bash 4)"),
    (re.compile(r"\$\{\w+@[QEPAa]\}"), "a transformation expansion (bash 4.4)"),
    (re.compile(r"\$\{\w+\[-\d+\]\}"), "a negative array index (bash 4.3)"),
    (re.compile(r"\|&|&>>"), "a bash 4 redirection"),
    (re.compile(r";;&|;&\s*$"), "a bash 4 case fall-through"),
    (re.compile(r"\[\[\s+-v\s"), "[[ -v (bash 4.2)"),
    (re.compile(r"shopt\s+-s\s+(globstar|lastpipe|inherit_errexit)"), "a bash 4 shell option"),
    (re.compile(r"\bwait\s+-n\b|\$EPOCH(SECONDS|REALTIME)|\bBASH_ARGV0\b"), "a bash 5 feature"),
    (re.compile(r"\bsed\s+(-[a-zA-Z]*\s+)*-i\s"), "GNU sed -i (BSD sed needs a suffix: -i.bak)"),
    (re.compile(r"\bgrep\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*P"), "grep -P (GNU only)"),
    (re.compile(r"\bfind\b.*\s-printf\b"), "find -printf (GNU only)"),
    (re.compile(r"\bdate\s+(-[a-zA-Z]+\s+)*-d\b"), "date -d (GNU only)"),
    (re.compile(r"\bstat\s+-c\b"), "stat -c (GNU only)"),
    (re.compile(r"\bxargs\s+(-[a-zA-Z]+\s+)*-r\b"), "xargs -r (GNU only)"),
    (re.compile(r"(^|[;&|(]\s*)(timeout|nproc|tac|numfmt|sha256sum)\s"), "a GNU coreutils command macOS lacks"),
    (re.compile(r"\bbase64\s+-w\b"), "base64 -w (GNU only)"),
]


class Finding:
    def __init__(self, check, path, line, message):
        self.check, self.path, self.line, self.message = check, path, line, message

    def __str__(self):
        return f"{self.path}:{self.line}: [{self.check}] {self.message}"


def conditions_by_line(text):
    """For each line, the compilation conditions in force (`!`-prefixed for the branch after `#else`)."""
    stack, result = [], []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#if "):
            stack.append([stripped[4:].strip()])
            result.append([])
            continue
        if stripped.startswith("#elseif ") and stack:
            stack[-1] = ["!(" + c + ")" for c in stack[-1] if not c.startswith("!")] + [stripped[8:].strip()]
        elif stripped == "#else" and stack:
            stack[-1] = ["!(" + c + ")" if not c.startswith("!") else c for c in stack[-1]]
        elif stripped.startswith("#endif") and stack:
            stack.pop()
        result.append([c for frame in stack for c in frame])
    return result


def linux_only(conditions, module=None):
    """Whether a line under `conditions` is compiled on Linux only (or, for `module`, only where it exists)."""
    for condition in conditions:
        if condition.startswith("!(") and condition.endswith(")"):
            if re.fullmatch(r"canImport\((Darwin|SQLite3)\)", condition[2:-1].strip()):
                return True
        elif "||" not in condition:
            if LINUX_ONLY_CONDITION.search(condition) or (module and f"canImport({module})" in condition):
                return True
    return False


def check_imports(path, text, allowed_modules):
    findings = []
    clean = strip_comments_and_strings(text)
    conditions = conditions_by_line(clean)
    for number, line in enumerate(clean.split("\n"), 1):
        match = re.match(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:\w+\s+)?([\w.]+)", line)
        if not match:
            continue
        module = match.group(1).split(".")[0]
        if module in APPLE_MODULES or module in allowed_modules:
            continue
        if linux_only(conditions[number - 1], module):
            continue
        findings.append(Finding("imports", path, number,
                                f"imports {module}, which an Apple build of the SDK does not have; "
                                f"put it behind `#if canImport({module})` or `#if os(Linux)`"))
    return findings


def read_availability():
    entries = []
    for raw in (ROOT / "scripts" / "availability.txt").read_text().splitlines():
        if raw.strip() and not raw.startswith("#"):
            pattern, ios, macos = raw.split("\t")
            entries.append((re.compile(pattern), version(ios), version(macos), pattern))
    return entries


def version(text):
    """`16.2` as (16, 2, 0), so that versions of different lengths compare as numbers."""
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def available_scopes(clean):
    """For each line, the highest iOS version an enclosing `@available`/`#available` scope guarantees."""
    scopes, depth, pending, result = [], 0, None, []
    for line in clean.split("\n"):
        declared = re.search(r"[@#]available\(\s*iOS\s+([\d.]+)", line)
        if declared:
            pending = version(declared.group(1))
        guaranteed = max([v for v, _ in scopes] + [pending or version("0")])
        result.append(guaranteed)
        for char in line:
            if char == "{":
                depth += 1
                if pending:
                    scopes.append((pending, depth))
                    pending = None
            elif char == "}":
                scopes = [(v, d) for v, d in scopes if d < depth]
                depth -= 1
        # `guard #available(...) else { return }` covers the rest of the enclosing scope.
        if declared and line.strip().startswith("guard"):
            scopes.append((version(declared.group(1)), depth))
    return result


def check_availability(path, text, deployment, entries):
    findings = []
    clean = strip_comments_and_strings(text)
    guaranteed = available_scopes(clean)
    for number, line in enumerate(clean.split("\n"), 1):
        for pattern, ios, _macos, name in entries:
            if ios > deployment and guaranteed[number - 1] < ios and pattern.search(line):
                findings.append(Finding("availability", path, number,
                                        f"{name} needs iOS {'.'.join(map(str, ios))}, above the deployment "
                                        f"target iOS {'.'.join(map(str, deployment))}: raise the target or "
                                        f"guard it with @available/#available"))
    return findings


def check_linux_only(path, text):
    findings = []
    clean = strip_comments_and_strings(text)
    conditions = conditions_by_line(clean)
    for number, line in enumerate(clean.split("\n"), 1):
        match = LINUX_ONLY_SYMBOLS.search(line)
        if match and not linux_only(conditions[number - 1]):
            findings.append(Finding("linux-only", path, number,
                                    f"{match.group(0)} exists only on Linux: keep it inside "
                                    f"`#if canImport(Glibc)` or `#if os(Linux)` with a Darwin branch beside it"))
    return findings


def check_bash32(path, text):
    findings = []
    for number, line in enumerate(text.split("\n"), 1):
        code = re.sub(r"(^|\s)#.*$", "", line)
        for pattern, what in BASH4:
            if pattern.search(code):
                findings.append(Finding("bash32", path, number, f"{what}; macOS runs bash 3.2 and BSD tools"))
    return findings


def workflow_scripts():
    """The scripts apple.yml runs, and the scripts those run, transitively."""
    found, pending = [], [ROOT / ".github" / "workflows" / "apple.yml"]
    while pending:
        text = pending.pop().read_text()
        for name in re.findall(r"\bscripts/[\w.-]+", text):
            path = ROOT / name
            if path.is_file() and path not in found and path.suffix != ".py":
                found.append(path)
                pending.append(path)
    return found


def deployment_target():
    manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                                         capture_output=True, text=True).stdout)
    return next(version(p["version"]) for p in manifest["platforms"] if p["platformName"] == "ios")


def check_example(deployment):
    path = ROOT / "Examples" / "TidingsExample" / "project.yml"
    findings = []
    for number, line in enumerate(path.read_text().split("\n"), 1):
        match = re.match(r'\s*iOS:\s*"?([\d.]+)"?', line)
        if match and version(match.group(1)) < deployment:
            findings.append(Finding("example", path.relative_to(ROOT), number,
                                    f"iOS {match.group(1)} is below the package's iOS deployment target"))
    return findings


def lint_tree():
    findings = []
    entries = read_availability()
    deployment = deployment_target()
    for index, target in enumerate(SDK_TARGETS):
        allowed = set(SDK_TARGETS[:index])
        for path in sorted((ROOT / "Sources" / target).rglob("*.swift")):
            text = path.read_text()
            relative = path.relative_to(ROOT)
            findings += check_imports(relative, text, allowed)
            findings += check_availability(relative, text, deployment, entries)
    for folder in ["Sources", "Tests"]:
        for path in sorted((ROOT / folder).rglob("*.swift")):
            findings += check_linux_only(path.relative_to(ROOT), path.read_text())
    for path in workflow_scripts():
        findings += check_bash32(path.relative_to(ROOT), path.read_text())
    return findings + check_example(deployment)


def self_test():
    """Each check catches the defect it is for, and passes the fixed code."""
    entries = read_availability()
    cases = [
        ("unconditional CSQLite", check_imports("f", "import CSQLite\nimport Foundation\n", set()), 1),
        ("CSQLite in the else of SQLite3",
         check_imports("f", "#if canImport(SQLite3)\n    import SQLite3\n#else\n    import CSQLite\n#endif\n", set()), 0),
        ("Glibc behind canImport", check_imports("f", "#if canImport(Darwin)\nimport Darwin\n#elseif canImport("
                                                 "Glibc)\nimport Glibc\n#endif\n", set()), 0),
        ("a server module", check_imports("f", "import TidingsStore\n", {"TidingsModel"}), 1),
        ("a lower SDK module", check_imports("f", "import TidingsModel\n", {"TidingsModel"}), 0),
        ("Duration below iOS 16", check_availability("f", "let d: Duration = .seconds(1)\n", version("15"), entries), 1),
        ("Duration at iOS 16", check_availability("f", "let d: Duration = .seconds(1)\n", version("16"), entries), 0),
        ("Mutex unguarded", check_availability("f", "let m = Mutex(0)\n", version("16"), entries), 1),
        ("Mutex guarded", check_availability(
            "f", "@available(iOS 18, *)\nfinal class A {\n    let m = Mutex(0)\n}\nlet b = 1\n", version("16"), entries), 0),
        ("Mutex after a guarded scope", check_availability(
            "f", "if #available(iOS 18, *) {\n    _ = 1\n}\nlet m = Mutex(0)\n", version("16"), entries), 1),
        ("MSG_NOSIGNAL bare", check_linux_only("f", "send(fd, p, n, Int32(MSG_NOSIGNAL))\n"), 1),
        ("MSG_NOSIGNAL behind Glibc", check_linux_only(
            "f", "#if canImport(Glibc)\nlet f = Int32(MSG_NOSIGNAL)\n#else\nlet f: Int32 = 0\n#endif\n"), 0),
        ("epoll in the Darwin branch", check_linux_only(
            "f", "#if canImport(Darwin)\nepoll_wait(a, b, c, d)\n#endif\n"), 1),
        ("mapfile", check_bash32("s", 'mapfile -t files < <(ls)\n'), 1),
        ("lower-casing", check_bash32("s", 'x="${name,,}"\n'), 1),
        ("sed -i", check_bash32("s", "sed -i 's/a/b/' file\n"), 1),
        ("portable bash", check_bash32("s", 'while IFS= read -r f; do files+=("$f"); done < <(ls)\n'
                                            "sed -i.bak 's/a/b/' file\n"), 0),
    ]
    failed = [name for name, findings, expected in cases if len(findings) != expected]
    for name in failed:
        print(f"platform_lint self-test: {name}: wrong number of findings", file=sys.stderr)
    return not failed


def main():
    if "--self-test" in sys.argv and not self_test():
        return 1
    findings = lint_tree()
    for finding in findings:
        print(finding, file=sys.stderr)
    if findings:
        print(f"platform_lint: {len(findings)} findings", file=sys.stderr)
        return 1
    print("platform_lint: SDK imports, availability, Linux-only symbols and the workflow's scripts are clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
