"""What the scripts set beside the SIMT model read, written once: a row of `impact-simt
--json`, and the function of a source tree whose body holds a line (as scripts/check_layout.py
finds functions). Used by perf/sass/sass_lines.py and perf/sass/simt_beside_hotspots.py."""
import json
import os
import sys

# check_layout.py stays in scripts/: the layout rule and these tools read functions alike
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from check_layout import functions


def model_row(path, law, precision, steps, blocks="sorted_blocks"):
    """The model's row for law, precision and steps, holding the block list `blocks`; exits with a
    message where the JSON has none."""
    rows = [r for r in json.load(open(path))["simt"]
            if r["law"] == law and r["precision"] == precision and r["steps"] == steps]
    if not rows:
        sys.exit(f"{path}: no model row for {law} {precision} {steps} steps")
    if blocks not in rows[0]:
        sys.exit(f"{path}: no {blocks} (a JSON of an older impact-simt)")
    return rows[0]


class SourceFunctions:
    """The functions of the source tree at `root`, file by file as asked for."""

    def __init__(self, root):
        self.root, self.cache = root, {}

    def at(self, path, line):
        """(path relative to the root, the unqualified name of the outermost function of the file whose
        body holds the line; '' outside any or for a file not in the tree)."""
        rel = os.path.relpath(path, self.root) if os.path.isabs(path) else path
        if rel not in self.cache:
            try:
                self.cache[rel] = functions(open(os.path.join(self.root, rel)).read())
            except OSError:
                self.cache[rel] = []
        return rel, next((n.split("::")[-1] for n, a, b in self.cache[rel] if a <= line <= b), "")
