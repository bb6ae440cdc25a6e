#!/usr/bin/env python3
"""Mechanical checks of the Apple glue, which Linux cannot compile.

1. Every function and initializer body is at most MAX_BODY_LINES lines: the glue converts Apple's values,
   calls the core and applies the answer; anything longer is a decision that belongs in the core.
2. Every Apple type or constant the glue names (UI*, UN*, PK*, SF*, NS*, CX*) is listed in
   scripts/apple-declarations.txt, so a misspelt or invented type fails here, not only on a Mac.
3. Every method a glue class implements for an Apple protocol or superclass it adopts, when its name is one
   of that protocol's method names, matches a declaration listed for it, labels and types. An optional
   delegate method with a mistyped label compiles on iOS and is silently never called.

Usage: apple_glue_lint.py [--self-test] [FILES...]   (no files: the glue folders)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DECLARATIONS = ROOT / "scripts" / "apple-declarations.txt"
GLUE_FOLDERS = [ROOT / "Sources" / "Tidings" / "Apple", ROOT / "Sources" / "TidingsNotificationService"]
MAX_BODY_LINES = 20
APPLE_NAME = re.compile(r"\b((?:UI|UN|PK|SF|NS|CX)[A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)?)")
# Modules and our own names that look like Apple's.
NOT_TYPES = {"UIKit", "UIKitRoutePerformer"}


def strip_comments_and_strings(text):
    """Blanks comments and string literals, keeping line breaks so line numbers stay right."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def matching(text, start, open_char, close_char):
    """The index of the bracket closing the one at `start`."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == open_char:
            depth += 1
        elif text[index] == close_char:
            depth -= 1
            if depth == 0:
                return index
    return len(text) - 1


def split_top_level(text, separator=","):
    parts, depth, current = [], 0, []
    for char in text:
        if char in "([<{":
            depth += 1
        elif char in ")]>}":
            depth -= 1
        if char == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if "".join(current).strip():
        parts.append("".join(current))
    return parts


def normalise_type(text):
    text = re.sub(r"\b(any|some)\s+", "", text)
    return re.sub(r"\s+", "", text)


def signature_key(signature):
    """`name(label:Type,...)->Result`, without parameter names, defaults, modifiers or spacing."""
    match = re.search(r"\bfunc\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", signature)
    if not match:
        return None
    name = match.group(1)
    open_paren = match.end() - 1
    close_paren = matching(signature, open_paren, "(", ")")
    params = []
    for param in split_top_level(signature[open_paren + 1 : close_paren]):
        head, _, type_text = param.partition(":")
        type_text = split_top_level(type_text, "=")[0]
        label = head.split()[0] if head.split() else "_"
        params.append(f"{label}:{normalise_type(type_text)}")
    rest = signature[close_paren + 1 :]
    result = re.search(r"->\s*(.+)$", rest.strip(), re.S)
    returns = normalise_type(result.group(1)) if result else "Void"
    return f"{name}({','.join(params)})->{returns}"


def load_declarations(path=DECLARATIONS):
    names, methods = set(), {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        kind, _, rest = line.partition(" ")
        if kind in ("type", "constant"):
            names.add(rest.strip())
        elif rest.startswith("func "):
            key = signature_key(rest)
            if key is None:
                raise SystemExit(f"{path}:{number}: unreadable declaration")
            methods.setdefault(kind, set()).add(key)
        else:
            raise SystemExit(f"{path}:{number}: expected `type`, `constant` or `OWNER func ...`")
    return names, methods


def declarations_in(text):
    """(kind, name, inheritance, body start, body end) of each class, struct, enum or extension."""
    for match in re.finditer(r"\b(class|struct|enum|extension|actor)\s+([A-Za-z_][A-Za-z0-9_.]*)([^{]*)\{", text):
        start = match.end() - 1
        yield match.group(1), match.group(2), match.group(3), start, matching(text, start, "{", "}")


def functions_in(text, start, end):
    """(signature, body start, body end) of each func and init directly inside text[start:end]."""
    depth, index = 0, start
    while index < end:
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 1:
            match = re.compile(r"\b(func\s+[A-Za-z_]|init\??\s*\()").match(text, index)
            if match and (index == 0 or not (text[index - 1].isalnum() or text[index - 1] == "_")):
                brace = text.find("{", index)
                if brace < 0 or brace > end:
                    break
                # A `where`-less signature ends at its body's brace; skip default-value closures in it.
                paren = text.find("(", index)
                close = matching(text, paren, "(", ")")
                brace = text.find("{", close)
                body_end = matching(text, brace, "{", "}")
                yield text[index:brace], brace, body_end
                index = body_end + 1
                continue
        index += 1


def line_of(text, index):
    return text.count("\n", 0, index) + 1


def check_file(path, names, methods, label=None):
    label = label or str(path.relative_to(ROOT)) if isinstance(path, pathlib.Path) else label
    source = path.read_text() if isinstance(path, pathlib.Path) else path
    text = strip_comments_and_strings(source)
    problems = []
    declared = {name for _, name, _, _, _ in declarations_in(text)}
    for match in APPLE_NAME.finditer(text):
        name = match.group(1)
        if name in NOT_TYPES or name in declared or name.split(".")[0] in declared:
            continue
        if name not in names and name.split(".")[0] not in names - {n for n in names if "." in n}:
            problems.append(f"{label}:{line_of(text, match.start())}: {name} is not in {DECLARATIONS.name}")
        elif "." in name and name not in names:
            problems.append(f"{label}:{line_of(text, match.start())}: {name} is not in {DECLARATIONS.name}")
    for kind, _, inheritance, start, end in declarations_in(text):
        adopted = [owner for owner in methods if re.search(rf"\b{re.escape(owner)}\b", inheritance)]
        for signature, body_start, body_end in functions_in(text, start, end):
            body_lines = line_of(text, body_end) - line_of(text, body_start) - 1
            if body_lines > MAX_BODY_LINES:
                problems.append(
                    f"{label}:{line_of(text, body_start)}: a body of {body_lines} lines "
                    f"(at most {MAX_BODY_LINES}): move the decision into the core")
            key = signature_key(signature) if "func" in signature else None
            if key is None or kind == "extension":
                continue
            base = key.split("(")[0]
            owners = [owner for owner in adopted if any(k.split("(")[0] == base for k in methods[owner])]
            if owners and not any(key in methods[owner] for owner in owners):
                expected = sorted(k for owner in owners for k in methods[owner] if k.split("(")[0] == base)
                problems.append(
                    f"{label}:{line_of(text, body_start)}: {key} matches no declaration of "
                    f"{', '.join(owners)} in {DECLARATIONS.name}; iOS would never call it. Known: "
                    + "; ".join(expected))
    return problems


SELF_TEST = '''
import UserNotifications
final class Broken: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresentNotification notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {}
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void
    ) {}
    func userNotificationCenter(_ c: UNUserNotificationCenter, openSettingsFor n: UNNotification?) {
        let view: UIWebView? = nil  // "UIWebView" in a comment is fine
        LINES
    }
}
'''


def self_test(names, methods):
    """The checks must fail on a mistyped delegate method, a Sendable mismatch, an unlisted type and a
    long body, and pass on the same methods written as Apple declares them."""
    broken = SELF_TEST.replace("LINES", "\n".join("_ = 0" for _ in range(MAX_BODY_LINES)))
    problems = check_file(broken, names, methods, label="self-test")
    wanted = ["willPresentNotification:", "withCompletionHandler:@escaping()->Void", "UIWebView", "a body of"]
    missing = [w for w in wanted if not any(w in p for p in problems)]
    fixed = (
        SELF_TEST.replace("willPresentNotification", "willPresent")
        .replace("@escaping () -> Void", "@escaping @Sendable () -> Void")
        .replace("UIWebView", "UIViewController")
        .replace("LINES", ""))
    clean = check_file(fixed, names, methods, label="self-test-fixed")
    if missing or clean or len(problems) != 4:
        print("apple_glue_lint: self-test failed", file=sys.stderr)
        print("  missed:", missing, "\n  found:", problems, "\n  on the fixed source:", clean, file=sys.stderr)
        return False
    return True


def main(arguments):
    names, methods = load_declarations()
    if "--self-test" in arguments:
        arguments = [a for a in arguments if a != "--self-test"]
        if not self_test(names, methods):
            return 1
    files = [pathlib.Path(a).resolve() for a in arguments] or sorted(
        p for folder in GLUE_FOLDERS for p in folder.rglob("*.swift"))
    problems = [problem for path in files for problem in check_file(path, names, methods)]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"apple_glue_lint: {len(files)} files: bodies at most {MAX_BODY_LINES} lines, Apple names and "
          "delegate signatures as listed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
