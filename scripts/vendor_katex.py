"""Make a built site show maths offline: copy KaTeX into it and point its pages there instead of the CDN.

Usage: python scripts/vendor_katex.py SITE_DIR
KaTeX comes from the npm package `katex` (version matching smalldocs' CDN link), fetched once with `npm pack` into
.cache/katex-VERSION/ and reused after that.
"""
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CDN = re.compile(r"https://cdn\.jsdelivr\.net/npm/katex@([0-9.]+)/dist")


def katex_dist(version):
    "The `dist` folder of KaTeX `version`, downloaded from the npm registry on first use."
    cache = ROOT / ".cache" / f"katex-{version}"
    dist = cache / "package" / "dist"
    if not dist.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "pack", f"katex@{version}", "--silent"], cwd=cache, check=True, stdout=subprocess.DEVNULL)
        with tarfile.open(cache / f"katex-{version}.tgz") as archive:
            archive.extractall(cache, filter="data")
    return dist


def main():
    site = Path(sys.argv[1])
    pages = list(site.rglob("*.html"))
    versions = {m.group(1) for page in pages for m in CDN.finditer(page.read_text())}
    if not versions: return print("no KaTeX links found")
    (version,) = versions
    target = site / "site_libs" / "katex"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(katex_dist(version), target)
    for page in pages:
        depth = len(page.relative_to(site).parts) - 1
        page.write_text(CDN.sub("../" * depth + "site_libs/katex", page.read_text()))
    print(f"KaTeX {version} vendored into {target}, {len(pages)} pages rewritten")


if __name__ == "__main__":
    main()
