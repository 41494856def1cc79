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

The code is written to 120 characters, the text column holds about 75. Each line of a code block or printed output is
wrapped in a `ikd-line` span that knows its indentation, so that a line too long for its box wraps with a hanging
indent under its own start instead of being cut off (nbs/styles.css); the spans keep the line's text and newline, so
that copying the block gives the code as written. A block whose lines are wider than the text column also takes the
page's right margin (`ikd-wide`), which the table of contents gives up while such a block passes beside it.
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


CODE_BLOCK = re.compile(r"(<pre[^>]*><code[^>]*>)(.*?)(</code></pre>)", re.S)
TAG = re.compile(r"(<[^>]+>)")


def closing(tag):
    "The closing tag of an opening one: `</span>` for `<span class=...>`."
    return "</" + re.match(r"<(\w+)", tag)[1] + ">"


def code_lines(code):
    "The lines of a code block's HTML, each closing the tags still open at its end and reopening them on the next line."
    lines, line, still_open = [], "", []
    for piece in TAG.split(code):
        if piece.startswith("</"):
            still_open.pop()
            line += piece
        elif piece.startswith("<"):
            still_open.append(piece)
            line += piece
        else:
            *ended, piece = piece.split("\n")
            for text in ended:
                lines.append(line + text + "".join(closing(tag) for tag in reversed(still_open)))
                line = "".join(still_open)
            line += piece
    return [*lines, line]


def line_span(line):
    "One line of a code block in a span that wraps under the line's own indentation."
    indent = len(re.sub(r"<[^>]+>", "", line)) - len(re.sub(r"<[^>]+>", "", line).lstrip(" "))
    style = f' style="--ikd-indent:{indent}ch"' if indent else ""
    return f'<span class="ikd-line"{style}>{line}</span>'


def with_wrapped_lines(html):
    "The page with every line of its code blocks and printed outputs in a `line_span` (once, however often tidied)."
    def wrapped(block):
        start, code, end = block.groups()
        if 'class="ikd-line"' in code: return block[0]
        *lines, last = code_lines(code)
        return start + "\n".join(map(line_span, lines + ([last] if last else []))) + ("\n" if not last else "") + end
    return CODE_BLOCK.sub(wrapped, html)


WIDE = """<script>
(() => {
  const contents = document.getElementById("quarto-margin-sidebar");
  let widened = [];
  // a block whose lines are wider than the text column takes the right margin too (nbs/styles.css: ikd-wide); measured
  // once the maths is typeset, and again when the window's width changes
  const widen = () => {
    widened.forEach((block) => block.classList.remove("ikd-wide"));
    document.documentElement.classList.add("ikd-unwrapped");
    const wide = [...document.querySelectorAll("main pre")].filter((pre) => pre.scrollWidth > pre.clientWidth + 1)
      .map((pre) => pre.closest(".code-copy-outer-scaffold") || pre);
    document.documentElement.classList.remove("ikd-unwrapped");
    const tables = [...document.querySelectorAll("main table")].map((table) => table.parentElement)
      .filter((box) => box.scrollWidth > box.clientWidth + 1);
    widened = [...wide, ...tables].filter((block) => !block.closest("[class*='column-page'], [class*='column-screen']"));
    widened.forEach((block) => block.classList.add("ikd-wide"));
  };
  // the table of contents steps aside while a wide block passes beside it, as Quarto's does for page-wide content
  const place = () => {
    if (!contents) return;
    const toc = contents.getBoundingClientRect();
    contents.classList.toggle("ikd-stepped-aside", widened.some((block) => { const box = block.getBoundingClientRect();
      return box.right > toc.left && box.bottom > toc.top && box.top < toc.bottom; }));
  };
  let queued = false, remeasure = false;
  const queue = (measure) => {
    remeasure = remeasure || measure;
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { if (remeasure) widen(); queued = remeasure = false; place(); });
  };
  addEventListener("load", () => { widen(); place(); });
  addEventListener("resize", () => queue(true));
  addEventListener("scroll", () => queue(false), {passive: true});
})();
</script>
"""


def with_wide_blocks(html):
    "The page with code blocks and tables wider than the text column reaching into the right margin (once)."
    return html if "ikd-unwrapped" in html else html.replace("</body>", WIDE + "</body>", 1)


def main():
    site = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "_site")
    settings = configparser.ConfigParser()
    settings.read(ROOT / "settings.ini")
    config = settings["DEFAULT"]
    site_url = config["doc_host"].rstrip("/") + config["doc_baseurl"].rstrip("/")
    for page in site.glob("*.html"):
        html = tidy(page.read_text(), site_url, config["git_url"].rstrip("/"))
        page.write_text(with_wide_blocks(with_zoom(with_heading_maths(with_wrapped_lines(html)))))


if __name__ == "__main__":
    main()
