#!/usr/bin/env python3
"""Draws the timeline of an `impact eval` pipeline as a Gantt chart (PNG).

    plot_timeline.py TIMELINE.csv OUT.png

TIMELINE.csv is what `impact eval --timeline` writes: one line per chunk and stage (read, parse,
law, format, write) with its begin and end in seconds since the pipeline started. The chart has
one lane per pipeline thread (input: read and parse; law; output: format and write), each chunk a
bar coloured by stage and labelled with its number, so that the overlap of the stages, and where a
thread waits, can be seen. Needs matplotlib (Debian python3-matplotlib).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

LANES = [("input", ("read", "parse")), ("law", ("law",)), ("output", ("format", "write"))]
COLOURS = {"read": "#9ecae1", "parse": "#3182bd", "law": "#e6550d", "format": "#74c476", "write": "#238b45"}


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(argv[1])))
    if not rows:
        sys.exit(argv[1] + ": no chunk in the timeline")
    fig, ax = plt.subplots(figsize=(10, 2.8))
    wall = max(float(r["end_s"]) for r in rows)
    for lane, (_name, stages) in enumerate(LANES):
        y = len(LANES) - 1 - lane
        for r in rows:
            if r["stage"] not in stages:
                continue
            b, e = float(r["begin_s"]), float(r["end_s"])
            ax.barh(y, e - b, left=b, height=0.6, color=COLOURS[r["stage"]], edgecolor="white", linewidth=0.3)
            if e - b > wall / 60 and r["stage"] in ("parse", "law", "format"):
                ax.text(b + (e - b) / 2, y, r["chunk"], ha="center", va="center", fontsize=6, color="white")
    ax.set_yticks(range(len(LANES)))
    ax.set_yticklabels([name for name, _ in reversed(LANES)])
    chunks = len({r["chunk"] for r in rows})
    rows_total = sum(int(r["rows"]) for r in rows if r["stage"] == "law")
    ax.set_xlabel(f"seconds since the pipeline started ({chunks} chunks, {rows_total} rows, wall {wall:.3g} s)")
    ax.set_xlim(0, wall)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    ax.legend(handles, COLOURS.keys(), ncol=5, loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=130)


if __name__ == "__main__":
    main(sys.argv)
