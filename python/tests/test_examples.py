"""The Python examples (examples/python) run and print what they promise."""
import os
import subprocess
import sys

SRC = os.environ.get("IMPACT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def run(script, *args):
    p = subprocess.run([sys.executable, os.path.join(SRC, "examples", "python", script), *args], capture_output=True,
                       text=True, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_oblique_sphere(tmp_path):
    out = run("oblique_sphere.py", "--n", "7", "--plot", str(tmp_path / "o.png"))
    assert "jia_vt_ratio" in out and "stronge_spin" in out and out.count(" ok ") >= 7
    assert (tmp_path / "o.png").stat().st_size > 10000


def test_study_table(tmp_path):
    out = run("study_table.py", "--n", "300", "--out", str(tmp_path / "p"))
    assert "jia:" in out and "stronge:" in out and "w2" in out
