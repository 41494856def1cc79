"""Write README.md from nbs/index.ipynb (what `nbdev_readme` does, without Quarto).

Usage: python scripts/make_readme.py [--check]
Markdown cells are copied; code cells become ```python blocks followed by their saved text output (a Markdown output is
copied as Markdown, a figure the cell saved with `savefig("images/...")` becomes a link to that file); cells marked
`#| hide` and directive lines are left out, and so is the code of cells marked `#| echo: false`. Links to other
notebooks become links into nbs/. With --check, exit 1 if README.md is not what the notebook gives.
"""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def relink(markdown):
    "Links to notebooks and images next to index.ipynb, made relative to the repository root."
    return re.sub(r"\]\((?!https?:|#|nbs/)([\w./-]+\.(?:ipynb|png))\)", r"](nbs/\1)", markdown)


def render(notebook):
    parts = []
    for cell in json.loads(notebook.read_text())["cells"]:
        source = "".join(cell["source"])
        lines = source.splitlines()
        directives = {line.replace(" ", "") for line in lines if line.startswith("#|")}
        if "#|hide" in directives: continue
        body = "\n".join(line for line in lines if not line.startswith("#|")).strip()
        if cell["cell_type"] == "markdown":
            parts.append(relink(body))
            continue
        if "#|echo:false" not in directives: parts.append(f"```python\n{body}\n```")
        saved = re.search(r'savefig\("(images/[^"]+)"', source)
        alt = next((line.split(":", 1)[1].strip() for line in lines if line.replace(" ", "").startswith("#|fig-alt:")), "figure")
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/markdown" in data: parts.append(relink("".join(data["text/markdown"]).strip()))
            elif "image/png" in data:
                if saved: parts.append(f"![{alt}](nbs/{saved[1]})")
            else:
                text = output.get("text") or data.get("text/plain")
                if text: parts.append("    " + "".join(text).rstrip().replace("\n", "\n    "))
    return "\n\n".join(parts) + "\n"


def main():
    readme = ROOT / "README.md"
    text = render(ROOT / "nbs" / "index.ipynb")
    if "--check" in sys.argv:
        if readme.read_text() != text:
            sys.exit("README.md is out of step with nbs/index.ipynb: run python scripts/make_readme.py")
        print("README.md matches nbs/index.ipynb")
        return
    readme.write_text(text)


if __name__ == "__main__":
    main()
