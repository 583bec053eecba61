#!/usr/bin/env python3
"""Checks the architecture of the source tree (docs/architecture.md):

1. layers: a file includes only headers of its own layer or of the layers below it
     core (include/impact) <- kernels <- engine <- reference <- design <- systems <- resume <- study
     <- sampled <- bench <- dist <- cli; bench <- python; io <- engine (io uses nothing of the
     physics); the two front ends (the command line and the Python package's extension module) do
     not use each other
2. dependencies where they belong: CLI11 only in host/cli, pybind11 only in host/python, Eigen never in include/ or kernels/
   (device code), Boost.Odeint only in host/reference
3. size: no function in host/, include/ or kernels/ longer than --max-lines lines (signature to
   closing brace), with no exception (the integrator solvers were allowed until issue 22 cut them
   into state machines of short pieces); no host layer folder over --max-folder-lines lines, so
   that no room grows into a drawer again (host/study held seven roles in 8,100 lines before issue 24)
4. reproducible math: no libm transcendental (std::exp, sin, atan2, pow, ... ) and no Boost.Math in
   host code, include/ or kernels/ but where rmath implements them (include/impact/impl/) and where
   the laws reach CUDA's on the device (include/impact/math.hpp): on the host every one is rmath's
   (include/impact/rmath.hpp), the same bits on every machine (issue 21); MATH_ALLOWED lists the
   exceptions and why
5. the scripts' size: in python/, scripts/, benches/, perf/, tests/ and examples/ no Python function
   (ast: def line to last line, decorators not counted) and no bash function (`name() {` to the `}`
   at its indentation) longer than --max-lines lines, and no program of more than 20 lines in a
   bash heredoc (one an interpreter reads, or written to a script file): a module, which can be
   parsed, linted and imported, instead

Usage: check_layout.py [ROOT] [--max-lines N] [--max-folder-lines N] [--report]   (exit 1 on a violation)
--report also prints the longest functions per layer and the lines of every host folder, the
longest function per language (C++, Python, bash) and how many script files and functions it read.
"""
import argparse
import os
import re
import sys

# the host layers from the bottom up: each may include its own headers and those of the layers below
# it (io: only its own; the two front ends, cli and python, do not use each other)
HOST_ORDER = ["engine", "infer", "reference", "design", "systems", "resume", "study", "sampled", "bench", "calibrate", "dist"]
LAYERS = ["core", "kernels", "io"] + HOST_ORDER + ["cli", "python"]
ALLOWED = {"core": {"core"}, "kernels": {"core", "kernels"}, "io": {"io"}}
for _i, _layer in enumerate(HOST_ORDER):
    ALLOWED[_layer] = {"core", "kernels", "io", *HOST_ORDER[: _i + 1]}
ALLOWED["cli"] = ALLOWED["dist"] | {"cli"}
ALLOWED["python"] = (ALLOWED["dist"] - {"dist"}) | {"python"}
SOURCE_EXT = (".hpp", ".cpp", ".cu", ".cuh", ".inc", ".h")

# functions over the size limit, allowed until their issue is done: file -> function names
LONG_ALLOWED = {}
# libm transcendentals: std::NAME( or ::NAME( or a bare NAME( call
TRANSCENDENTAL = ("exp|exp2|expm1|log|log2|log10|log1p|pow|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|"
                  "asinh|acosh|atanh|hypot|cbrt|erf|erfc|lgamma|tgamma|sincos|sincosf|expf|logf|sinf|cosf|powf")
LIBM_CALL = re.compile(r"(?<![\w.>])(?:std::|::)?(" + TRANSCENDENTAL + r")\s*\(")
# where a libm call is the point, or changes no result: file -> why
MATH_ALLOWED = {
    os.path.join("include", "impact", "math.hpp"): "the device branch: CUDA's math for the laws",
    os.path.join("include", "impact", "probe.hpp"): "slip_ratio_key's log2 orders the GPU's work (regime keys), never a result",
    os.path.join("kernels", "cuda", "evaluate.cu"): "device code",
    os.path.join("kernels", "cuda", "sampled.cu"): "device code",
    os.path.join("kernels", "cuda", "device_arrays.cu"): "device code",
}


def layer_of_path(rel):
    """The layer of a source file (path relative to the root), or None when not layered."""
    parts = rel.split(os.sep)
    if parts[0] == "include" and len(parts) > 1 and parts[1] == "impact":
        return "core"
    if parts[0] == "kernels":
        return "kernels"
    if parts[0] == "host" and len(parts) > 2 and parts[1] in LAYERS:
        return parts[1]
    return None


def layer_of_include(inc):
    """The layer of a quoted include as the build resolves it (include/, host/, the root)."""
    first = inc.split("/")[0]
    if first == "impact":
        return "core"
    if first == "kernels":
        return "kernels"
    if first in LAYERS:
        return first
    return None


def strip_comments_and_strings(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
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
        elif c == '"' and text[max(0, i - 1)] == "R" and re.match(r'R"([^(]*)\(', text[i - 1 :]):
            m = re.match(r'R"([^(]*)\(', text[i - 1 :])
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def without_launch_bounds(header):
    """The header without its __launch_bounds__(...) attributes, whose arguments may hold
    parentheses of their own (e.g. a constexpr call): the balanced group is removed."""
    while True:
        m = re.search(r"__launch_bounds__\s*\(", header)
        if not m:
            return header
        depth, j = 0, m.end() - 1
        while j < len(header):
            depth += {"(": 1, ")": -1}.get(header[j], 0)
            if depth == 0:
                break
            j += 1
        header = header[:m.start()] + header[j + 1:]


def functions(text):
    """(name, first line, last line) of every function body outside other function bodies."""
    code = strip_comments_and_strings(text)
    # preprocessor lines do not open scopes
    code = re.sub(r"(?m)^[ \t]*#.*(?:\\\n.*)*$", lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)
    found = []
    stack = []  # kinds of the open braces: 'scope', 'function', 'other'
    header_start = 0
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in ";}" and (not stack or stack[-1] == "scope"):
            if c == "}":
                stack.pop() if stack else None
            header_start = i + 1
        elif c == "}":
            kind = stack.pop()
            if kind == "function" and (not stack or stack[-1] == "scope"):
                fstart, fname = func_open.pop()
                found.append((fname, code.count("\n", 0, fstart) + 1, code.count("\n", 0, i) + 1))
                header_start = i + 1
        elif c == "{":
            if stack and stack[-1] != "scope":
                stack.append("other")
            else:
                header = code[header_start:i]
                stripped = header.strip()
                if re.search(r"\b(namespace|class|struct|union)\b", header) and "(" not in header.split("{")[0]:
                    stack.append("scope")
                    header_start = i + 1
                elif ")" in header and "=" not in re.sub(r"\([^()]*\)", "", header.split("(")[0]) and not re.search(r"\benum\b", header):
                    # the name before the parameter list (not a __launch_bounds__(...) before it)
                    m = re.search(r"([~\w:]+|operator\S+)\s*\(", without_launch_bounds(header))
                    name = m.group(1) if m else "?"
                    lead = len(header) - len(header.lstrip())
                    stack.append("function")
                    func_open.append((header_start + lead, name))
                else:
                    stack.append("other")
        i += 1
    return found


func_open = []


def source_files(root, top):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            if f.endswith(SOURCE_EXT):
                yield os.path.join(d, f)


# ---- the length rule for the scripts: Python and bash ---------------------------------------------
# A script is code as much as a header: a 200-line main() or a Python program pasted into a bash
# heredoc is as hard to read, test and review as a 200-line C++ function, so the same bound holds.
SCRIPT_TOPS = ("python", "scripts", "benches", "perf", "tests", "examples")
# a heredoc over this many lines that holds a program (an interpreter reads it, or it is written to a
# script file) is a module waiting to be made: it gets no syntax check, no linter, no import
HEREDOC_MAX_LINES = 20
# an interpreter reading its program from stdin (`python3 - ARGS`, `"$PY" -`, `bash`), or a script file written
INTERPRETER = r"(?:(?<![\w$-])(?:python[\d.]*|perl|ruby|node|bash|sh|zsh|Rscript)|\$\{?\w*PY(?:THON)?\}?(?!\w))"
PROGRAM_COMMAND = re.compile(INTERPRETER + r"\"?(?:\s+-[A-Za-z]\w*)*(?:\s+-(?=\s|$)|\s*$)"
                             r"|>\s*\"?[^\s\"<>]*\.(?:py|sh|bash|pl|rb|js)\"?")
PROGRAM_BODY = re.compile(r"^\s*(?:#!|import\s+\w|from\s+[\w.]+\s+import\b|def\s+\w+\s*\(|class\s+\w+[(:])")
HEREDOC = re.compile(r"(?<!<)<<(-?)[ \t]*(['\"]?)([A-Za-z_]\w*)\2")
BASH_FUNCTION = re.compile(r"^(\s*)(?:function\s+([\w:.-]+)\s*(?:\(\s*\))?|([\w:.-]+)\s*\(\s*\))\s*(\{.*)?$")


def script_kind(path):
    """'python', 'bash' or None: by the name's ending, else by a #! line."""
    if path.endswith(".py"):
        return "python"
    if path.endswith((".sh", ".bash")):
        return "bash"
    try:
        with open(path, "rb") as fh:
            first = fh.readline(200)
    except OSError:
        return None
    if first.startswith(b"#!"):
        if re.search(rb"python", first):
            return "python"
        if re.search(rb"\b(ba)?sh\b", first):
            return "bash"
    return None


def script_files(root):
    """(relative path, kind) of every Python and bash file under SCRIPT_TOPS, sorted."""
    found = []
    for top in SCRIPT_TOPS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if not x.startswith(".") and x != "__pycache__"]
            for f in files:
                path = os.path.join(d, f)
                kind = script_kind(path)
                if kind:
                    found.append((os.path.relpath(path, root), kind))
    return sorted(found)


def python_functions(text):
    """(qualified name, def line, last line) of every function and method, nested ones too; the
    decorators are not counted (a def's lineno is its own line)."""
    import ast
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child.lineno, child.end_lineno))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(text), "")
    return found


def heredocs(lines):
    """(command line index, first body index, terminator index, tag, command) of every heredoc of a
    bash text as lines; a body without its terminator runs to the end. A terminator may close a
    single-quoted string too (a heredoc inside a `check NAME '...'` condition)."""
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = None if line.lstrip().startswith("#") else HEREDOC.search(line)
        if not m:
            i += 1
            continue
        dash, tag = m.group(1), m.group(3)
        j = i + 1
        while j < len(lines):
            body = lines[j].lstrip("\t") if dash else lines[j]
            if body.rstrip() in (tag, tag + "'") or body.startswith(tag + ")"):
                break
            j += 1
        found.append((i, i + 1, j, tag, line[: m.start()]))
        i = j + 1
    return found


def heredoc_is_program(command, body):
    """Does a heredoc hold a program: an interpreter reads it, it is written to a script file, or its
    text opens as one (#!, import, def, class)?"""
    first = next((b for b in body if b.strip()), "")
    return bool(PROGRAM_COMMAND.search(command) or PROGRAM_BODY.match(first))


def bash_code(line):
    """A bash line without its quoted text and its comment, for counting braces."""
    out, i, n = [], 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if c == '"' and line[j] == "\\" else 1
            i = j + 1
            continue
        if c == "#" and (i == 0 or line[i - 1] in " \t;"):
            break
        out.append(c)
        i += 1
    return "".join(out)


def bash_functions(text):
    """(name, first line, last line) of every bash function `name() {` or `function name {` ...
    the `}` at the indentation of its opening line (a one-line body: one line). Heredoc bodies are
    not read as code."""
    lines = text.split("\n")
    in_heredoc = [False] * len(lines)
    for _, first, end, _, _ in heredocs(lines):
        for k in range(first, min(end + 1, len(lines))):
            in_heredoc[k] = True
    found = []
    for i, line in enumerate(lines):
        m = None if in_heredoc[i] else BASH_FUNCTION.match(line)
        if not m or line.lstrip().startswith("#"):
            continue
        indent, name, rest = m.group(1), m.group(2) or m.group(3), m.group(4)
        if rest is None:  # the brace on the next line
            if i + 1 < len(lines) and lines[i + 1].strip().startswith("{"):
                rest = lines[i + 1].strip()
            else:
                continue
        tail = bash_code(rest[1:])
        if tail.count("}") > tail.count("{"):
            found.append((name, i + 1, i + 1))
            continue
        closing = re.compile(re.escape(indent) + r"\}")
        end = next((k for k in range(i + 1, len(lines)) if not in_heredoc[k] and closing.match(lines[k])),
                   len(lines) - 1)
        found.append((name, i + 1, end + 1))
    return found


def script_length_errors(root, max_lines, longest):
    """The length rule's violations in the Python and bash files under SCRIPT_TOPS: a function over
    max_lines lines, a heredoc program over HEREDOC_MAX_LINES lines. Fills longest[language] with
    (length, "path:line name") of the longest function. Returns (errors, {language: (files, functions)})."""
    errors, counts = [], {"Python": [0, 0], "bash": [0, 0]}
    for rel, kind in script_files(root):
        try:
            text = open(os.path.join(root, rel), encoding="utf-8").read()
        except (OSError, UnicodeDecodeError) as e:
            errors.append(f"{rel}: not read ({e})")
            continue
        language = "Python" if kind == "python" else "bash"
        if kind == "python":
            try:
                funcs = python_functions(text)
            except SyntaxError as e:
                errors.append(f"{rel}:{e.lineno}: not parsed as Python ({e.msg}): its functions are not measured")
                continue
        else:
            funcs = bash_functions(text)
            lines = text.split("\n")
            for at, first, end, tag, command in heredocs(lines):
                body = lines[first:end]
                if len(body) > HEREDOC_MAX_LINES and heredoc_is_program(command, body):
                    errors.append(f"{rel}:{at + 1}: a {len(body)}-line program in a heredoc (<<{tag}; at most "
                                  f"{HEREDOC_MAX_LINES}): make it a module")
        counts[language][0] += 1
        counts[language][1] += len(funcs)
        for name, first, last in funcs:
            length = last - first + 1
            if language not in longest or length > longest[language][0]:
                longest[language] = (length, f"{rel}:{first} {name}")
            if length > max_lines:
                errors.append(f"{rel}:{first}: {language} function {name} is {length} lines (at most {max_lines})")
    return errors, counts


def report_longest_by_language(longest, counts):
    """--report's lines on the length rule across languages: the longest function of each, and how
    many script files and functions were measured."""
    for language in ("C++", "Python", "bash"):
        if longest.get(language):
            print(f"longest {language} function: {longest[language][0]} lines, {longest[language][1]}")
    for language, (nfiles, nfuncs) in counts.items():
        print(f"{language}: {nfiles} files, {nfuncs} functions")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--max-lines", type=int, default=150)
    ap.add_argument("--max-folder-lines", type=int, default=3000)
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    errors = []
    longest = {}
    nfiles = nfuncs = 0
    folder_lines = {}
    for top in ("include", "kernels", "host"):
        for path in sorted(source_files(root, top)):
            rel = os.path.relpath(path, root)
            layer = layer_of_path(rel)
            if layer is None:
                errors.append(f"{rel}: not in a layer folder ({', '.join(LAYERS)})")
                continue
            nfiles += 1
            text = open(path, encoding="utf-8").read()
            if top == "host":
                folder_lines[layer] = folder_lines.get(layer, 0) + text.count("\n")
            for ln, line in enumerate(text.splitlines(), 1):
                m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if m:
                    target = layer_of_include(m.group(1))
                    if target is not None and target not in ALLOWED[layer]:
                        errors.append(f"{rel}:{ln}: the {layer} layer includes {m.group(1)} ({target}, a layer above)")
                m = re.match(r"\s*#\s*include\s*<([^>]+)>", line)
                if m:
                    lib = m.group(1)
                    if lib.startswith("CLI/") and layer != "cli":
                        errors.append(f"{rel}:{ln}: CLI11 outside host/cli")
                    if lib.startswith("pybind11/") and layer != "python":
                        errors.append(f"{rel}:{ln}: pybind11 outside host/python")
                    if lib == "mpi.h" and layer != "dist":
                        errors.append(f"{rel}:{ln}: MPI outside host/dist")
                    if lib.startswith("Eigen/") and layer in ("core", "kernels"):
                        errors.append(f"{rel}:{ln}: Eigen in host/device code ({layer})")
                    if lib.startswith("boost/numeric/odeint") and layer != "reference":
                        errors.append(f"{rel}:{ln}: Boost.Odeint outside host/reference")
            if not rel.startswith(os.path.join("include", "impact", "impl") + os.sep) and rel not in MATH_ALLOWED:
                code = strip_comments_and_strings(text)
                for ln, line in enumerate(code.splitlines(), 1):
                    for m in LIBM_CALL.finditer(line):
                        before = line[: m.start()]
                        if re.search(r"(rmath|math)::$", before) or re.search(r"\b(double|float|T|auto|inline|void)\s+$", before):
                            continue  # rmath's or the laws' wrappers, or a declaration
                        errors.append(f"{rel}:{ln}: libm's {m.group(1)}() (its last bits depend on the CPU and the C "
                                      f"library): use rmath:: (include/impact/rmath.hpp) or math:: in a law")
                    if re.search(r"#\s*include\s*<boost/math/(distributions|special_functions)", line):
                        errors.append(f"{rel}:{ln}: Boost.Math (double promoted to x87 long double): use rmath")
            func_open.clear()
            for name, first, last in functions(text):
                nfuncs += 1
                length = last - first + 1
                best = longest.get(layer)
                if best is None or length > best[0]:
                    longest[layer] = (length, f"{rel}:{first} {name}")
                if length > a.max_lines and name.split("::")[-1] not in LONG_ALLOWED.get(rel, ()):
                    errors.append(f"{rel}:{first}: function {name} is {length} lines (at most {a.max_lines})")
    longest_by_language = {"C++": max(longest.values(), default=None)}
    script_errors, script_counts = script_length_errors(root, a.max_lines, longest_by_language)
    errors += script_errors
    for layer, n in sorted(folder_lines.items()):
        if n > a.max_folder_lines:
            errors.append(f"host/{layer}: {n} lines (at most {a.max_folder_lines}): split it by role")
    if a.report:
        for layer in LAYERS:
            if layer in longest:
                print(f"longest function in {layer}: {longest[layer][0]} lines, {longest[layer][1]}")
        for layer in LAYERS:
            if layer in folder_lines:
                print(f"host/{layer}: {folder_lines[layer]} lines")
        report_longest_by_language(longest_by_language, script_counts)
    for e in errors:
        print("check_layout: " + e, file=sys.stderr)
    print(f"check_layout: {nfiles} files, {nfuncs} functions, {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
