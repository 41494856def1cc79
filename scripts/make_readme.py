"""Write README.md from nbs/index.ipynb (what `nbdev_readme` does, without Quarto).

Usage: python scripts/make_readme.py [--check]
Markdown cells are copied; code cells become ```python blocks followed by their saved text output; cells marked `#| hide`
and directive lines are left out. With --check, exit 1 if README.md is not what the notebook gives.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def render(notebook):
    parts = []
    for cell in json.loads(notebook.read_text())["cells"]:
        source = "".join(cell["source"])
        lines = source.splitlines()
        directives = {line.replace(" ", "") for line in lines if line.startswith("#|")}
        if "#|hide" in directives: continue
        body = "\n".join(line for line in lines if not line.startswith("#|")).strip()
        if cell["cell_type"] == "markdown":
            parts.append(body)
            continue
        parts.append(f"```python\n{body}\n```")
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain")
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
