"""Run notebooks and save their outputs in place, so the documentation site shows figures and printed results.

Usage: python scripts/execute_notebooks.py [nbs/NAME.ipynb ...]   (default: every notebook in nbs/)

This is the one way outputs are saved (with progress bars off, TQDM_DISABLE=1; every old output cleared first): cells
marked `#| eval: false` and the hidden `nbdev_export()` cell are skipped
(as nbdev_test does), then `nbdev_clean` normalises the notebooks, so a second run changes nothing but the outputs.
Set IKD_DATA to the data folder first if a notebook reads real data.
"""
import os
import subprocess
import sys
from pathlib import Path

from execnb.nbio import read_nb, write_nb
from execnb.shell import CaptureShell


def skip(cell):
    "True for cells that must not run: markdown, `#| eval: false` and the export cell."
    if cell.cell_type != "code": return True
    lines = cell.source.splitlines()
    directives = [line.replace(" ", "") for line in lines if line.startswith("#|")]
    return "nbdev_export(" in cell.source or "#|eval:false" in directives


def execute(path):
    nb = read_nb(path)
    # execnb replaces a cell's outputs only when the cell printed something: clear them all, or stale ones survive
    for cell in nb.cells:
        if cell.cell_type == "code": cell.outputs = []
    shell = CaptureShell(path)
    cwd = os.getcwd()
    os.chdir(path.parent)
    try: shell.run_all(nb, exc_stop=True, preproc=skip)
    finally: os.chdir(cwd)
    write_nb(nb, path)


def main():
    os.environ["TQDM_DISABLE"] = "1"  # progress bars are for people watching a run, not for the saved pages
    root = Path(__file__).resolve().parent.parent
    paths = [Path(p).resolve() for p in sys.argv[1:]] or sorted((root / "nbs").glob("*.ipynb"))
    for path in paths:
        print(f"executing {path.relative_to(root)}", flush=True)
        execute(path)
        # the nbdev_clean of this interpreter's environment (it may not be on PATH), on the executed notebook alone
        clean = Path(sys.executable).with_name("nbdev_clean")
        subprocess.run([str(clean if clean.exists() else "nbdev_clean"), "--fname", str(path)], cwd=root, check=True)


if __name__ == "__main__":
    main()
