"""Make the built site's links work for a reader of this copy: relative links between pages, no links to hosts that
serve nothing yet; and let a reader click a figure to see it at full size.

Usage: python scripts/tidy_site.py _site

nbdev writes two kinds of absolute links from settings.ini: doc links (`doc_host` + `doc_baseurl`) for names in
backticks, which inside a signature's comments stay raw Markdown text, and "source" links into `git_url`. The doc
links become relative HTML links (rendered, also inside signatures); the source links are dropped, since the code is
in the reader's checkout (`ikd/<module>.py`, generated from the notebook the page shows).

A heading with maths in it (`## Scores against $M$`) is listed in the page's table of contents as plain text, its
maths stripped of the delimiters that would have rendered it; the entry gets the heading's own HTML back, which the
page's KaTeX renders there as in the heading.

A multi-panel figure shrunk to the text column has small labels; a click on any figure of a cell's output shows it at
its own size over the page (the `ikd-zoomed` class of nbs/styles.css), a second click puts it back.
"""
import configparser
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tidy(html, site_url, git_url):
    "The page with doc links made relative and source links removed."
    name = r"\[`([^`\]]+)`\]\(" + re.escape(site_url) + r"/([\w.-]+\.html(?:#[\w.-]*)?)\)"
    html = re.sub(name, r'<a href="\2"><code>\1</code></a>', html)  # raw Markdown left in signatures
    html = re.sub(r'href="' + re.escape(site_url) + r'/([^"]*)"', r'href="\1"', html)
    return re.sub(r'<p><a href="' + re.escape(git_url) + r'[^"]*"[^>]*>source</a></p>\n?', "", html)


HEADING = re.compile(r'<h[1-6][^>]*data-anchor-id="([^"]+)"[^>]*>(.*?)</h[1-6]>', re.S)


def with_heading_maths(html):
    "The page with each table-of-contents entry of a heading that holds maths showing the heading's maths."
    for anchor, heading in HEADING.findall(html):
        if 'class="math inline"' not in heading or "<a " in heading: continue  # a link inside a link is not HTML
        entry = r'(<a href="#' + re.escape(anchor) + r'"[^>]*class="nav-link"[^>]*>)[^<]*(</a>)'
        html = re.sub(entry, lambda link: link[1] + heading + link[2], html)
    return html


ZOOM = """<script>
document.querySelectorAll(".cell-output img").forEach((img) => {
  img.classList.add("ikd-zoomable");
  img.title = "click to enlarge";
  img.addEventListener("click", () => img.classList.toggle("ikd-zoomed"));
});
</script>
"""


def with_zoom(html):
    "The page with figures that enlarge on a click (once, however often the site is tidied)."
    return html if "ikd-zoomable" in html else html.replace("</body>", ZOOM + "</body>", 1)


def main():
    site = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "_site")
    settings = configparser.ConfigParser()
    settings.read(ROOT / "settings.ini")
    config = settings["DEFAULT"]
    site_url = config["doc_host"].rstrip("/") + config["doc_baseurl"].rstrip("/")
    for page in site.glob("*.html"):
        html = tidy(page.read_text(), site_url, config["git_url"].rstrip("/"))
        page.write_text(with_zoom(with_heading_maths(html)))


if __name__ == "__main__":
    main()
