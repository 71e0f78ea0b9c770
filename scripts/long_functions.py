#!/usr/bin/env python3
"""Lists the C and C++ functions longer than N lines in the product tree (not tests/).

    scripts/long_functions.py [--max-lines N] [--check] [PATH...]

PATH: files or folders (default: every product folder of the repo). A function's length runs
from the first line of its header (return type, name, parameters) to its closing brace. A
function may be longer when a comment says why, in the tree's words: a comment starting
`// Long ... on purpose: <reason>` among the five lines above its header. Each function over
N lines is listed, longest first, with the first line of its reason if it has one; --check
exits 1 when one has none.

Limits (a brace-matching scan, not a parser): comments, string and character literals (raw
strings too) and preprocessor lines are blanked first, then a `{` outside any function body
opens a function when the text since the previous `;`, `{` or `}` ends like a function header
(`)`, then qualifiers such as const, noexcept, override, a trailing return type, or a member
initializer list). So a lambda assigned at namespace scope is not a function of its own, a
lambda inside a function counts towards that function, a brace in a macro definition is
ignored, and code switched by #if is read as if both branches were there.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT_FOLDERS = ["apps", "benchmarks", "cluster", "common", "dpa", "drivers", "engine",
                   "fabric", "generators", "judge", "nic", "policies", "reports", "suite"]
SOURCE_ENDINGS = (".c", ".h", ".cc", ".cpp", ".hpp")
REASON = re.compile(r"//\s*Long\b[^:]*\bon purpose:\s*(\S.*)")
KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype",
            "static_assert", "noexcept", "requires"}
TYPE_HEAD = re.compile(r"^(template\s*<.*>\s*)?(class|struct|union|enum|namespace|extern)\b")
QUALIFIERS = r"(\s*(const|noexcept(\s*\([^()]*\))?|override|final|mutable|volatile|&&?|" \
             r"->\s*[\w:<>,\s*&]+|\[\[[^\]]*\]\]))*"
FUNCTION_END = re.compile(r"\)" + QUALIFIERS + r"\s*$")
INITIALIZERS = re.compile(r"\)" + QUALIFIERS + r"\s*:(?!:)")


def blank_code(text):
    """The text with comments, literals and preprocessor lines blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":  # a preprocessor line, with its continuations
            j = i
            while j < n and text[j] != "\n":
                j = j + 2 if text[j] == "\\" else j + 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
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
        elif c == "R" and text.startswith('"', i + 1) and not (i and (text[i - 1].isalnum() or
                                                                        text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delimiter = text[i + 2:open_paren]
            j = text.find(")" + delimiter + '"', open_paren)
            j = n if j < 0 else j + len(delimiter) + 2
            out.append('R""' + re.sub(r"[^\n]", " ", text[i + 3:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(header):
    """The name before the parameter list of a one-line header text."""
    depth = 0
    for k, c in enumerate(header):
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif c == "(" and depth == 0:
            match = re.search(r"((?:[\w~]+::)*(?:operator\s*\S+|~?\w+))\s*$", header[:k])
            return match.group(1) if match else None
    return None


def is_function_header(header):
    if not header or TYPE_HEAD.match(header) or "(" not in header:
        return False
    # With a member initializer list, a `{` right after a member's name is its initializer;
    # the body's `{` follows a `)` or an initializer's `}`.
    if not (FUNCTION_END.search(header) or
            (INITIALIZERS.search(header) and header.endswith("}"))):
        return False
    name = function_name(header)
    if name is None or name.split("::")[-1] in KEYWORDS:
        return False
    before_params = header[:header.find(name)]
    return "=" not in before_params  # `auto f = [](...) {`: a lambda, not a function


def functions(path):
    """(first line, last line, name) of every function defined in the file (1-based)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    code = blank_code(text)
    line_of = [0] * (len(code) + 1)
    line = 1
    for k, c in enumerate(code):
        line_of[k] = line
        if c == "\n":
            line += 1
    found = []
    stack = []  # per open brace: "function", "scope" (namespace, class) or "other"
    header_start = 0
    in_function = 0
    for k, c in enumerate(code):
        if c == "{":
            if in_function:
                stack.append("other")
                continue
            header = " ".join(code[header_start:k].split())
            if is_function_header(header):
                start = header_start + (len(code[header_start:k]) -
                                        len(code[header_start:k].lstrip()))
                stack.append(("function", line_of[start], function_name(header)))
                in_function += 1
            elif TYPE_HEAD.match(header) or header.startswith("extern"):
                stack.append("scope")
            else:
                stack.append("other")
                continue  # an initializer: the header goes on
            header_start = k + 1
        elif c == "}":
            if not stack:
                continue
            kind = stack.pop()
            if isinstance(kind, tuple):
                in_function -= 1
                found.append((kind[1], line_of[k], kind[2]))
            if not in_function and kind != "other":
                header_start = k + 1
        elif c == ";" and not in_function:
            header_start = k + 1
    return text.splitlines(), found


def reason_for(lines, first_line):
    for line in lines[max(0, first_line - 6):first_line - 1]:
        match = REASON.search(line)
        if match:
            return match.group(1).strip()
    return None


def source_files(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for folder, subfolders, files in os.walk(path):
            subfolders[:] = sorted(d for d in subfolders if d not in ("build", "node_modules"))
            for name in sorted(files):
                if name.endswith(SOURCE_ENDINGS):
                    yield os.path.join(folder, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-lines", type=int, default=120)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a function over the limit gives no reason")
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    paths = args.paths or [os.path.join(ROOT, d) for d in PRODUCT_FOLDERS]
    rows = []
    for path in source_files(paths):
        lines, found = functions(path)
        for first, last, name in found:
            length = last - first + 1
            if length > args.max_lines:
                rows.append((length, os.path.relpath(path, ROOT), first, name,
                             reason_for(lines, first)))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    unexplained = 0
    for length, path, first, name, reason in rows:
        print(f"{path}:{first}: {name}: {length} lines" + (f" (reason: {reason})" if reason else ""))
        unexplained += reason is None
    print(f"{len(rows)} functions over {args.max_lines} lines, {unexplained} without a reason")
    return 1 if args.check and unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
