#!/usr/bin/env python3
"""Checks the architecture of the source tree (docs/architecture.md):

1. layers: the layers form a DAG, written down as the table USES (layer -> the layers its files may
   include, directly), drawn in docs/architecture.md ("Layers") and linked the same way by
   CMakeLists.txt's impact_layer(...) lines. A file includes headers of its own layer and of the
   layers its layer lists, no others: that a listed layer uses a third gives no right to include
   the third. The table itself has no cycle, no layer lists a front end (the command line and the
   Python package's extension module do not use each other) and the Python module does not list
   dist; each impact_layer(...) line links exactly the layer libraries its layer lists. --report
   prints the graph the includes really draw, and the listed edges no file uses
2. dependencies where they belong: CLI11 only in host/cli, pybind11 only in host/python, Eigen never in
   include/ or kernels/ (device code), Boost.Odeint only in host/reference
3. size: no function in host/, include/ or kernels/ longer than --max-lines lines (signature to
   closing brace), with no exception (a long solver is cut into a state machine of short phases
   like any other function); no host layer folder over --max-folder-lines lines, so that no room
   grows into a drawer of several roles (a folder past the bound is split by role)
4. reproducible math: no libm transcendental (std::exp, sin, atan2, pow, ... ) and no Boost.Math in
   host code, include/ or kernels/ but where rmath implements them (include/impact/impl/) and where
   the laws reach CUDA's on the device (include/impact/math.hpp): on the host every one is rmath's
   (include/impact/rmath.hpp), the same bits on every machine; MATH_ALLOWED lists the
   exceptions and why
5. the scripts' size: in python/, scripts/, benches/, perf/, tests/ and examples/ no Python function
   (ast: def line to last line, decorators not counted) and no bash function (`name() {` to the `}`
   at its indentation) longer than --max-lines lines, and no program of more than 20 lines in a
   bash heredoc (one an interpreter reads, or written to a script file): a module, which can be
   parsed, linted and imported, instead
6. no history in the code: code and comments state rules and their reasons; when a thing happened
   and in which build belong to git and to docs/perf-log.md (a measurement cited as a reason names
   its figure and its machine). In CMakeLists.txt, pyproject.toml, include/, kernels/, host/,
   python/, scripts/, tests/, perf/ (but its measurement records), benches/, examples/ and cmake/, the
   comments and strings of C++ and Python files, and every line of any other text file (bash,
   CMake, Markdown, TOML: their words are strings), hold no
     commit hash  a word (a maximal run of [0-9A-Za-z_]) of 7 to 40 hex digits, either case, with
                  at least one letter a-f and one digit, that is not a decimal number in scientific
                  notation (digits, e, digits: the 7976931348623157e308 of 1.7976931348623157e308):
                  so 0x-constants and names (an x or another letter in the word), longer digests
                  (sha256: 64 digits), numbers and words of letters alone (deadbeef) are none
     issue, stop or session number  "issue NN", "issues NN", "issue #NN", "stop NN", "session NN",
                  NN digits (not a percentage: "the issue" of a warp is its instruction issue)
     date         YYYY-MM-DD, 1900-2099 (a timestamp's date too)
   Data is not read: tests/data/ (inputs read as they are), tests/fuzz/corpus/, tests/fuzz/findings/
   and tests/fuzz/dict/ (fuzz inputs and dictionaries; a README.md there is prose, and read),
   tests/golden/ (digests), perf/measurements/ (the records of device runs, which name their
   builds by design), and files that are not UTF-8 text. HISTORY_ALLOWED names the few words
   that are data where they stand (CRC-32 values, a format's example, a data source's commit in
   another repository), each with why. The rule is
   lexical: it does not ask git whether a word names a commit, so a clean clone and a working tree
   give the same findings. Every finding is printed, as FILE:LINE.

Usage: check_layout.py [ROOT] [--max-lines N] [--max-folder-lines N] [--report]   (exit 1 on a violation)
--report also prints the longest functions per layer and the lines of every host folder, the
longest function per language (C++, Python, bash) and how many script files and functions it read.
"""
import argparse
import os
import re
import sys

# the layers, bottom up, and the layers each one's files may include besides their own: the real
# include graph, a DAG. A layer includes only the layers it lists (direct uses, no closure). The same
# table is drawn in docs/architecture.md ("Layers"), and CMakeLists.txt links each layer library to
# exactly the layer libraries listed here (core and kernels have none: impact_core, impact_cuda).
# A new edge is added in the three places, or the code moves.
USES = {
    "core": set(),  # include/impact: header-only physics for host and device
    "kernels": {"core"},  # kernels/: the backends' per-instance code
    "io": set(),  # host/io: files, formats, config trees, machine info (no physics)
    "infer": {"core"},  # inference on a log density, no impacts in it
    "engine": {"core", "kernels", "io"},
    "design": {"core", "io"},
    "reference": {"core", "kernels", "io", "engine"},
    "systems": {"core", "io", "engine", "design"},
    "resume": {"core", "io", "infer"},  # infer: the samplers' checkpoints
    "dist": {"resume"},  # and MPI
    "study": {"core", "io", "engine", "design", "reference", "systems", "resume"},
    "sampled": {"core", "kernels", "io", "engine", "systems", "resume"},
    "bench": {"core", "kernels", "io", "engine", "systems"},
    "calibrate": {"core", "io", "engine", "infer", "design", "systems", "resume", "study"},
    # which law explains the data: calibrations of several laws compared by their evidence
    "comparison": {"core", "io", "resume", "study", "calibrate"},
    "cli": {"core", "io", "engine", "reference", "systems", "resume", "study", "sampled", "bench", "calibrate",
            "comparison", "dist"},
    "python": {"kernels", "io", "engine", "reference", "systems", "study", "sampled", "calibrate", "comparison"},
}
LAYERS = list(USES)
# the two front ends: no layer lists one, so neither uses the other; the Python module is one process
FRONT_ENDS = ("cli", "python")
NOT_IN_PYTHON = ("dist",)
# CMakeLists.txt's layer libraries: impact_layer(impact_<name> <folder> <what it links...>)
IMPACT_LAYER = re.compile(r"^[ \t]*impact_layer\(\s*(impact_\w+)\s+(\w+)([^)]*)\)", re.M)
SOURCE_EXT = (".hpp", ".cpp", ".cu", ".cuh", ".inc", ".h")


def table_cycle(uses):
    """A cycle of a layer table as its path [a, b, ..., a], or None when the table is a DAG."""
    done, path = set(), []

    def visit(layer):
        if layer in path:
            return path[path.index(layer):] + [layer]
        if layer in done:
            return None
        path.append(layer)
        for other in sorted(uses.get(layer, ())):
            cycle = visit(other)
            if cycle:
                return cycle
        path.pop()
        done.add(layer)
        return None

    for layer in uses:
        cycle = visit(layer)
        if cycle:
            return cycle
    return None


def table_errors(uses):
    """What is wrong with a layer table: a layer it lists but does not define, a front end listed
    by a layer, dist listed by the Python module, a cycle (named by its path)."""
    errors = []
    for layer, used in uses.items():
        for other in sorted(used):
            if other not in uses:
                errors.append(f"the layer table: {layer} lists {other}, which is no layer")
            elif other in FRONT_ENDS:
                errors.append(f"the layer table: {layer} lists the front end {other} (no layer uses a front end)")
    for other in NOT_IN_PYTHON:
        if other in uses.get("python", ()):
            errors.append(f"the layer table: python lists {other} (the Python module is one process)")
    cycle = table_cycle(uses)
    if cycle:
        errors.append(f"the layer table has a cycle, {' -> '.join(cycle)}: the layers must form a DAG")
    return errors


def cmake_link_errors(root):
    """CMakeLists.txt's impact_layer(...) lines against the table: each layer library links exactly
    the layer libraries its layer lists (none when the tree has no CMakeLists.txt)."""
    path = os.path.join(root, "CMakeLists.txt")
    if not os.path.exists(path):
        return []
    text = open(path, encoding="utf-8").read()
    errors = []
    for m in IMPACT_LAYER.finditer(text):
        at = f"CMakeLists.txt:{text.count(chr(10), 0, m.start()) + 1}: {m.group(1)}"
        layer = m.group(2)
        if layer not in USES:
            errors.append(f"{at}: host/{layer} is no layer of the table (USES)")
            continue
        links = {w[len("impact_"):] for w in m.group(3).split() if w.startswith("impact_")} & set(USES)
        extra, missing = sorted(links - USES[layer]), sorted(USES[layer] - links - {"core", "kernels"})
        if extra or missing:
            errors.append(f"{at} links other layer libraries than {layer}'s row of the layer table (USES, "
                          f"docs/architecture.md): not listed {extra}, listed but not linked {missing}")
    return errors


def report_layer_graph(measured):
    """--report's lines on the layers: what each one's files include, and the listed edges no file uses."""
    for layer in LAYERS:
        used = measured.get(layer, set())
        unused = USES[layer] - used
        print(f"layer {layer} uses: {', '.join(sorted(used)) or 'nothing'}"
              + (f" (listed, included by no file: {', '.join(sorted(unused))})" if unused else ""))

# functions over the size limit, allowed while they are being cut (none now): file -> function names
LONG_ALLOWED = {}
# libm transcendentals: std::NAME( or ::NAME( or a bare NAME( call
TRANSCENDENTAL = ("exp|exp2|expm1|log|log2|log10|log1p|pow|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|"
                  "asinh|acosh|atanh|hypot|cbrt|erf|erfc|lgamma|tgamma|sincos|sincosf|expf|logf|sinf|cosf|powf")
LIBM_CALL = re.compile(r"(?<![\w.>])(?:std::|::)?(" + TRANSCENDENTAL + r")\s*\(")
# where a libm call is the point, or changes no result: file -> why
MATH_ALLOWED = {
    os.path.join("include", "impact", "math.hpp"): "the device branch: CUDA's math for the laws",
    os.path.join("include", "impact", "probe.hpp"):
        "slip_ratio_key's log2 orders the GPU's work (regime keys), never a result",
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
                if re.search(r"\b(namespace|class|struct|union)\b", header) and "(" not in header.split("{")[0]:
                    stack.append("scope")
                    header_start = i + 1
                elif (")" in header and "=" not in re.sub(r"\([^()]*\)", "", header.split("(")[0])
                      and not re.search(r"\benum\b", header)):
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


# ---- no history in the code -----------------------------------------------------------------------
# Code and comments state rules and their reasons. When a thing happened and in which build (a commit,
# an issue, a work session, a date) belongs to git and to docs/perf-log.md, the one file where dates
# and hashes are kept; a measurement cited as a reason names its figure and its machine instead.
HISTORY_TOPS = ("include", "kernels", "host", "python", "scripts", "tests", "perf", "benches", "examples", "cmake")
# the build's and the package's own files at the top of the tree
HISTORY_ROOT_FILES = ("CMakeLists.txt", "pyproject.toml")
# data, not prose: inputs read as they are (a comment line there would be part of what is read),
# fuzz inputs and dictionaries, the golden digests; the README.md of such a folder is prose, and read
HISTORY_DATA = tuple(os.path.join(*p.split("/")) + os.sep for p in (
    "tests/data", "tests/fuzz/corpus", "tests/fuzz/findings", "tests/fuzz/dict", "tests/golden",
    # the records of device runs: what ran and in which build, by design (docs/perf-log.md reads them)
    "perf/measurements"))
HISTORY_PROSE = ("README.md",)
# a commit hash: a word (a maximal run of [0-9A-Za-z_]) of 7 to 40 hex digits with a letter a-f and a
# digit, so that 0x-constants and identifiers (an x or another letter in the word), longer digests
# (sha256: 64 digits), numbers (no letter) and words such as "deadbeef" or "facade" (no digit) are
# none ...
HEX_WORD = re.compile(r"(?<![0-9A-Za-z_])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9A-Za-z_])", re.I)
# ... and neither is a decimal number in scientific notation: digits, one e, digits (the word
# 7976931348623157e308 of 1.7976931348623157e308; 865876450377e of 9.865876450377e-10)
DECIMAL_WORD = re.compile(r"\d+e\d*", re.I)
# an issue, stop or session number (not "an issue 9% lower": a warp's instruction issue), a date
HISTORY_WORDS = re.compile(
    r"(?i)\b(?:(issue)s?|(stop|session)s?)[ \t]*#?[ \t]*\d+(?![\d%]|\.\d)"
    r"|(?<!\d)((?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))(?!\d)")
# the words that are data where they stand, per file: (path, word) -> why (this file names them here)
HISTORY_ALLOWED = {
    ("host/io/machine.hpp", "2026-11-24"): "utc_now's format shown by an example timestamp",
    ("host/io/checksum.hpp", "1a2b3c4d"): "crc_hex's format shown by an example: a CRC-32 as 8 hex digits",
    ("tests/study/test_parts.cpp", "0123abcd"): "a parts manifest's run: the CRC-32 of a run's key, as written",
    ("tests/study/test_parts.cpp", "0000abcd"): "a part file's CRC-32 in a hand-written manifest",
    ("tests/fuzz/fuzz_folder.cpp", "0000abcd"): "a parts manifest's run: the CRC-32 of a run's key, as written",
    ("examples/calibration/README.md", "1997226fda1d9e27e7000ab23691cc2930ccd0bf"):
        "the Cornell data's source: a commit of another repository (provenance, not this project's history)",
}


def comments_and_strings(text):
    """A C++ text with its code blanked: only its comments and its string and character literals
    are kept, at their places (newlines kept)."""
    code = strip_comments_and_strings(text)
    return "".join(t if (c != t or t.isspace()) else " " for c, t in zip(code, text))


def python_comments_and_strings(text):
    """A Python text with its code blanked: only its comments and strings (docstrings, f-strings)
    are kept, at their places; the whole text when it does not tokenize."""
    import io
    import tokenize
    lines = text.split("\n")
    keep = [[" "] * len(line) for line in lines]
    # an f-string is one STRING token before Python 3.12, and FSTRING_START/MIDDLE/END pieces since
    kinds = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type not in kinds:
                continue
            (r0, c0), (r1, c1) = tok.start, tok.end
            for r in range(r0, r1 + 1):
                line = lines[r - 1]
                lo, hi = (c0 if r == r0 else 0), (c1 if r == r1 else len(line))
                keep[r - 1][lo:hi] = line[lo:hi]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text
    return "\n".join("".join(k) for k in keep)


def history_text(rel, text):
    """The part of a file the history rule reads, at its lines: a C++ or Python file's comments and
    strings (a hex word in code is a constant or a name), any other text file whole (bash, CMake,
    Markdown, TOML: their words are strings)."""
    if rel.endswith(SOURCE_EXT):
        return comments_and_strings(text)
    if rel.endswith(".py"):
        return python_comments_and_strings(text)
    return text


def history_files(root):
    """The relative paths the history rule reads, sorted: HISTORY_ROOT_FILES and every file under
    HISTORY_TOPS but those of the data folders (HISTORY_DATA) that are not their prose (HISTORY_PROSE)."""
    found = [f for f in HISTORY_ROOT_FILES if os.path.isfile(os.path.join(root, f))]
    for top in HISTORY_TOPS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if not x.startswith(".") and x != "__pycache__"]
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), root)
                if rel.startswith(HISTORY_DATA) and f not in HISTORY_PROSE:
                    continue
                found.append(rel)
    return sorted(found)


def history_findings(rel, text):
    """(line, what, word) of every commit hash, issue, stop or session number and date in the part
    of a text the rule reads."""
    found = []
    key = rel.replace(os.sep, "/")
    for ln, line in enumerate(history_text(rel, text).split("\n"), 1):
        for m in HEX_WORD.finditer(line):
            if not DECIMAL_WORD.fullmatch(m.group(0)) and not history_allowed(key, m.group(0)):
                found.append((ln, "a commit hash", m.group(0)))
        for m in HISTORY_WORDS.finditer(line):
            if not history_allowed(key, m.group(0)):
                what = "a date" if m.group(3) else "an issue number" if m.group(1) else f"a {m.group(2).lower()} number"
                found.append((ln, what, m.group(0)))
    return found


def history_allowed(key, word):
    """Is word data where it stands: an entry of HISTORY_ALLOWED, or one of its words in this file?"""
    return (key, word) in HISTORY_ALLOWED or (key == "scripts/check_layout.py"
                                              and any(word == w for _, w in HISTORY_ALLOWED))


def history_errors(root):
    """The history rule's violations, every one: FILE:LINE, what was found, and the line. A file that
    is not UTF-8 text (a binary, a NUL byte) has no comments to read."""
    errors = []
    for rel in history_files(root):
        try:
            with open(os.path.join(root, rel), "rb") as fh:
                text = fh.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "\0" in text:
            continue
        lines = text.split("\n")
        for ln, what, word in history_findings(rel, text):
            errors.append(f"{rel}:{ln}: {what} ({word}): state the rule and its reason; when and in which build "
                          f"belong to git and docs/perf-log.md | {lines[ln - 1].strip()[:100]}")
    return errors


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
    measured = {}  # layer -> the other layers its files include
    errors += table_errors(USES) + cmake_link_errors(root)
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
                    if target is not None and target != layer:
                        measured.setdefault(layer, set()).add(target)
                    if target is not None and target != layer and target not in USES[layer]:
                        errors.append(f"{rel}:{ln}: the {layer} layer includes {m.group(1)}: the edge {layer} -> "
                                      f"{target} is not in the layer table (USES in scripts/check_layout.py, drawn in "
                                      f"docs/architecture.md); a layer includes only the layers it lists")
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
                        if (re.search(r"(rmath|math)::$", before)
                                or re.search(r"\b(double|float|T|auto|inline|void)\s+$", before)):
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
    history = history_errors(root)
    errors += history
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
        report_layer_graph(measured)
        print(f"history rule: {len(history_files(root))} files read, {len(history)} finding(s)")
    for e in errors:
        print("check_layout: " + e, file=sys.stderr)
    if history:
        print(f"check_layout: {len(history)} finding(s) of history in the code (rule 6: commit hashes, "
              f"issue, stop and session numbers, dates)", file=sys.stderr)
    print(f"check_layout: {nfiles} files, {nfuncs} functions, {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
