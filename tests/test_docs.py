"""Build the documentation site and look at it in headless Chromium, as a reader would."""
import re
import shutil
import subprocess
import sys
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
    shots = ROOT / "_screenshots"  # beside the site, not in it: the published copy carries no screenshots
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


def test_every_figure_has_alt_text_and_no_link_leaves_the_copy(site):
    "Images carry alt text (a cell's `fig-alt`); no raw Markdown link and no link to the unpublished doc host or repository."
    for page in sorted(site.glob("*.html")):
        html = page.read_text()
        for image in re.findall(r"<img[^>]*>", html):
            assert re.search(r'alt="[^"]+"', image), f"{page.name}: an image without alt text"
        text = re.sub(r"<[^>]+>", "", html)
        assert not re.search(r"\[`[^`]+`\]\(http", text), f"{page.name}: raw Markdown link left in the text"
        assert "ikd-dev.github.io" not in html, f"{page.name}: a link to the doc host, which serves nothing yet"
        # the repository is linked once, from the home page; nowhere else may a page send the reader out of this copy
        repository_links = re.findall(r'href="https://github.com/ikd-dev/[^"]*"', html)
        expected = {'href="https://github.com/ikd-dev/ikd"'} if page.name == "index.html" else set()
        assert set(repository_links) == expected, f"{page.name}: {repository_links}"


def test_no_dead_link_on_the_site(site):
    """LinkChecker follows every link from the home page through the whole site (internal links only: no network here);
    a link's #fragment must name an id on the page it leads to (LinkChecker checks only that the page exists)."""
    import os
    import tempfile
    # LinkChecker run as root drops to the user nobody, who must be able to read the copy it checks
    copy = Path(tempfile.mkdtemp(prefix="ikd_site_")) / "site"
    shutil.copytree(site, copy)
    for folder in [copy.parent, *(path for path in copy.rglob("*") if path.is_dir()), copy]: os.chmod(folder, 0o755)
    for file in (path for path in copy.rglob("*") if path.is_file()): os.chmod(file, 0o644)
    linkchecker = Path(sys.executable).with_name("linkchecker")  # the one installed with the dev requirements
    run = subprocess.run([str(linkchecker), "--no-status", "--no-warnings", "--no-robots", (copy / "index.html").as_uri()],
                         capture_output=True, text=True, timeout=600)
    shutil.rmtree(copy.parent)
    errors = re.findall(r"^URL\s+`([^']+)'\s*\n(?:.*\n)*?Parent URL (\S+)", run.stdout, re.M)
    assert run.returncode == 0 and " 0 errors found" in run.stdout, f"dead links (URL, page): {errors}\n{run.stdout[-2000:]}"
    assert not dead_fragments(site), f"links to an id the target page does not have (page: links): {dead_fragments(site)}"


def dead_fragments(site):
    "{page: [href, ...]} of the site's links whose #fragment names no id (or name) on the page they lead to."
    import html
    pages = {page.name: page.read_text() for page in site.glob("*.html")}
    anchors = {name: set(re.findall(r'\b(?:id|name)="([^"]+)"', text)) for name, text in pages.items()}
    dead = {}
    for name, text in pages.items():
        for href in map(html.unescape, re.findall(r'href="([^"]*#[^"]*)"', text)):
            target, fragment = href.split("#", 1)
            target = target or name
            if fragment and target in anchors and fragment not in anchors[target]:
                dead.setdefault(name, []).append(href)
    return dead


def test_getting_started_leads_and_estimator_page_tables_every_parameter(site, tmp_path):
    sidebar = re.findall(r"^\s*- (\w+)\.ipynb", (ROOT / "nbs/sidebar.yml").read_text(), re.M)
    assert sidebar[:2] == ["index", "getting_started"]
    dom = open_page(site, "estimator.html", tmp_path)
    tables = " ".join(re.findall(r"<table.*?</table>", dom, re.S))
    from ikd import IKD
    model = IKD()
    for name in [*model.get_params(), "embedding_", "settings_", "eigenvalues_"]:
        assert f"<code>{name}</code>" in tables, f"{name} is missing from the estimator page's tables"
    start = open_page(site, "getting_started.html", tmp_path)
    for option in ("solver", "n_neighbors", "path", "refine", "n_landmarks"):
        assert f"<code>{option}</code>" in start
    assert "pickle" in start and "transform" in start


def test_home_page_shows_results_claims_and_citation(site, tmp_path):
    dom = open_page(site, "index.html", tmp_path)
    assert re.search(r"<table.*?the paper.s other methods.*?</table>", dom, re.S), "headline results table"
    assert re.search(r"Of the \d+ quantitative claims", dom), "claims summary"
    assert "@article" in dom and "Apache" in dom
    assert (ROOT / "LICENSE").read_text().lstrip().startswith("Apache License")
    readme = (ROOT / "README.md").read_text()
    assert "](nbs/images/headline.png)" in readme and re.search(r"Of the \d+ quantitative claims", readme)
    assert not re.search(r"\]\((?!https?:|nbs/|#)[\w-]+\.ipynb\)", readme), "README link that only works inside nbs/"
