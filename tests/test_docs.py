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


# What a reader at a given window width sees of each page's code blocks, tables and display equations, measured by
# Chromium itself: a script added to a copy of every page reports to a harness page that holds them all in frames of that
# width, and the harness's DOM is read back with --dump-dom (one browser start per width).
MEASURE = """<script>
addEventListener("load", () => setTimeout(() => {
  const beyond = (box) => box.getBoundingClientRect().right > document.documentElement.clientWidth + 1;
  const wider = (box) => box.scrollWidth > box.clientWidth + 1 || beyond(box);
  const hides = (box, axis) => ["hidden", "clip"].includes(getComputedStyle(box)[axis]);
  const kind = (pre) => pre.matches(".cell-code") ? "source" : !pre.closest(".cell-output") ? "code"
    : pre.matches(".sourceCode") ? "signature" : "output";
  const box = (table) => { for (let up = table.parentElement; up; up = up.parentElement)
    if (getComputedStyle(up).overflowX !== "visible") return up; return document.documentElement; };
  const clippedByAncestor = (element) => { for (let up = element.parentElement; up && up !== document.body; up = up.parentElement)
    if (hides(up, "overflowX") && element.getBoundingClientRect().right > up.getBoundingClientRect().right + 1) return true;
    return false; };
  const start = (element) => element.textContent.trim().slice(0, 60);
  parent.postMessage({
    page: location.pathname.split("/").pop(),
    blocks: [...document.querySelectorAll("main pre")].map((pre) => ({kind: kind(pre), cut: wider(pre), start: start(pre)})),
    tables: [...document.querySelectorAll("main table")].map((table) => ({cut: wider(box(table)), start: start(table),
      stickyFirstColumn: getComputedStyle(table.rows[table.rows.length - 1].cells[0]).position === "sticky"})),
    equations: [...document.querySelectorAll("main .katex-display")].map((equation) => ({start: start(equation),
      clipped: ((hides(equation, "overflowX") || hides(equation, "overflowY")) && wider(equation)) || clippedByAncestor(equation),
      scrollbarDown: equation.scrollHeight > equation.clientHeight + 1})),
  }, "*");
}, 300));
</script>
"""
HARNESS = """<!doctype html><html><body><pre id="measured">[]</pre><script>
const measured = [];
addEventListener("message", (event) => {
  measured.push(event.data);
  document.getElementById("measured").textContent = JSON.stringify(measured);
});
</script>
FRAMES</body></html>"""


def measured_pages(site, width, tmp_path):
    "{page: its code blocks, tables and display equations as Chromium measures them in a window `width` px wide}."
    import html
    import json
    copy = tmp_path / f"site-{width}"
    shutil.copytree(site, copy)
    pages = sorted(page.name for page in copy.glob("*.html"))
    for name in pages:
        page = copy / name
        page.write_text(page.read_text().replace("</body>", MEASURE + "</body>", 1))
    frames = "".join(f'<iframe src="{name}" style="width:{width}px;height:1200px;border:0"></iframe>' for name in pages)
    (copy / "_measure.html").write_text(HARNESS.replace("FRAMES", frames))
    flags = [flag for flag in CHROMIUM_FLAGS if not flag.startswith("--virtual-time-budget")]
    dom = subprocess.run([chromium(), *flags, "--virtual-time-budget=60000", f"--window-size={width + 40},1200",
                          f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", (copy / "_measure.html").as_uri()],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    reports = json.loads(html.unescape(re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)[1]))
    assert sorted(report["page"] for report in reports) == pages, "a page did not report its measurements"
    return {report["page"]: report for report in reports}


def cut_off(pages, what, kinds=None):
    "[(page, start of the block), ...] of the measured blocks, tables or equations that are cut off or clipped."
    return [(name, item["start"]) for name, page in pages.items() for item in page[what]
            if item.get("cut", item.get("clipped")) and (kinds is None or item["kind"] in kinds)]


def test_code_and_tables_are_not_cut_off_at_1280_px(site, tmp_path):
    """The code is written to 120 characters and the text column holds about 75: at 1280 px a reader sees every
    signature, every printed output and every column of every table, and all but a few blocks of code whole."""
    pages = measured_pages(site, 1280, tmp_path)
    assert sum(len(page["blocks"]) for page in pages.values()) > 400, "the code blocks were not found"
    code = cut_off(pages, "blocks", {"source", "code"})
    assert len(code) <= 10, f"{len(code)} code blocks cut off: {code[:20]}"
    assert not cut_off(pages, "blocks", {"signature"}), cut_off(pages, "blocks", {"signature"})
    assert not cut_off(pages, "blocks", {"output"}), cut_off(pages, "blocks", {"output"})
    assert not cut_off(pages, "tables"), f"tables hiding a column: {cut_off(pages, 'tables')}"


def test_display_equations_scroll_at_500_px(site, tmp_path):
    """On a phone a display equation wider than the screen scrolls in its box, never clipped (by its own box or by one
    around it) and with no vertical scrollbar; a table that scrolls keeps its first column in view."""
    pages = measured_pages(site, 500, tmp_path)
    equations = [equation for page in pages.values() for equation in page["equations"]]
    assert len(equations) > 20, "the display equations were not found"
    assert not cut_off(pages, "equations"), f"clipped display equations: {cut_off(pages, 'equations')}"
    assert not [equation["start"] for equation in equations if equation["scrollbarDown"]]
    scrolling = [(name, table) for name, page in pages.items() for table in page["tables"] if table["cut"]]
    assert scrolling, "no table scrolls at 500 px: nothing to check the first column on"
    assert all(table["stickyFirstColumn"] for _, table in scrolling), [name for name, t in scrolling if not t["stickyFirstColumn"]]
