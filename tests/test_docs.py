"""Build the documentation site and look at it in headless Chromium, as a reader would."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "_site"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--virtual-time-budget=8000"]


def chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "the docs check needs Debian's chromium (apt-get install chromium); scripts/test installs it"
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    build = subprocess.run(["bash", str(ROOT / "scripts" / "build_docs")], cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, f"scripts/build_docs failed:\n{build.stdout[-3000:]}\n{build.stderr[-3000:]}"
    return SITE


def open_page(site, name, tmp_path):
    "The page's DOM after its scripts ran, and a screenshot saved next to the site."
    url = (site / name).as_uri()
    common = [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*common, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True).stdout
    shots = site / "screenshots"
    shots.mkdir(exist_ok=True)
    shot = shots / name.replace(".html", ".png")
    subprocess.run([*common, "--window-size=1280,2000", f"--screenshot={shot}", url], capture_output=True, timeout=120,
                   check=True)
    assert shot.stat().st_size > 20_000
    return dom


def test_home_page(site, tmp_path):
    dom = open_page(site, "index.html", tmp_path)
    assert "Inverse Kernel Decomposition" in dom
    assert 'href="kernels.html"' in dom and 'href="estimator.html"' in dom
    assert "bash scripts/main" in dom


def test_module_page_has_api_maths_and_figure(site, tmp_path):
    dom = open_page(site, "kernels.html", tmp_path)
    assert re.search(r"<h[23][^>]*>\s*Kernel\.inverse", dom), "show_doc entry for Kernel.inverse"
    assert "get_kernel" in dom
    assert dom.count('class="katex"') > 20, "KaTeX did not render the maths"
    assert "\\frac{" not in re.sub(r'<annotation[^>]*>.*?</annotation>', "", dom, flags=re.S), "raw TeX left on the page"
    assert re.search(r'<img[^>]+src="data:image/png;base64,', dom), "no figure on the page"
    assert "site_libs/katex/katex.min.js" in dom and "cdn.jsdelivr.net/npm/katex" not in dom


PROGRESS_LINE = re.compile(r"\[[#.]{5,}\]\s*\d+/\d+|\d+%\|[^|]*\|\s*\d+/\d+")
MACHINE_PATH = re.compile(r"(/work/|/home/|/root/|/tmp/|site-packages|\.venv)")


def saved_text_outputs(notebook):
    "(cell number, text) of every saved stream or plain-text output of a notebook."
    import json
    for number, cell in enumerate(json.loads(notebook.read_text())["cells"]):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            # a rich output (a table, a figure) is what the page shows; its plain-text fallback is not
            text = output.get("text") or ("" if "text/html" in data or "image/png" in data else data.get("text/plain", ""))
            yield number, "".join(text) if isinstance(text, list) else text


@pytest.mark.parametrize("notebook", sorted((ROOT / "nbs").glob("*.ipynb")), ids=lambda path: path.stem)
def test_saved_outputs_are_for_readers(notebook):
    "No progress bar, no machine path and no wall of more than 40 lines of raw text in what a page shows."
    for number, text in saved_text_outputs(notebook):
        lines = re.split(r"\r\n|\r|\n", text)
        assert not any(PROGRESS_LINE.search(line) for line in lines), f"cell {number}: a saved progress bar"
        assert not MACHINE_PATH.search(text), f"cell {number}: a path of the machine it ran on: {MACHINE_PATH.search(text)[0]}"
        assert len(lines) <= 40, f"cell {number}: {len(lines)} lines of raw output"
