"""Read the built docs in Chromium at 1366 px, as a reader would, and fail on:

- more than 1 in 20 code blocks and tables needing horizontal scrolling;
- a narrative or example page taller than 12,000 px (API pages are exempt:
  they are looked up, not read through);
- any page requesting anything from the network (the docs must work offline).

Usage: python .ci/check_docs.py docs/_build/html [--chromium /usr/bin/chromium]
"""

import argparse
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

WIDTH = 1366
MAX_HEIGHT = 12_000
MAX_OVERFLOW_SHARE = 1 / 20

# Code blocks and tables whose content is wider than their box.
_OVERFLOWING = """() => {
  const boxes = [...document.querySelectorAll('article div.highlight pre, article table')];
  const wide = (el) => {
    const box = el.tagName === 'TABLE' ? (el.parentElement || el) : el;
    return Math.max(el.scrollWidth, box.scrollWidth) > box.clientWidth + 1;
  };
  return {n: boxes.length,
          wide: boxes.filter(wide).map(el => el.innerText.split('\\n')[0].slice(0, 60))};
}"""


def pages(root):
    skipped = {"genindex.html", "search.html", "py-modindex.html"}
    for path in sorted(root.rglob("*.html")):
        relative = path.relative_to(root)
        if relative.parts[0] in {"_static", "_sources", "_images", "_downloads"}:
            continue
        if path.name in skipped or path.name.startswith("_"):
            continue
        yield relative


def is_reference(relative):
    return relative.parts[0] == "generated" or relative.name in {"api.html"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    n_boxes, wide, tall, remote = 0, [], [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})

        def refuse_remote(route):
            url = route.request.url
            if url.startswith(("file:", "data:", "blob:", "about:")):
                return route.continue_()
            remote.append((current, url))
            return route.abort()

        page.route("**/*", refuse_remote)
        for relative in pages(args.root):
            current = str(relative)
            page.goto((args.root / relative).resolve().as_uri(), wait_until="load")
            found = page.evaluate(_OVERFLOWING)
            n_boxes += found["n"]
            wide += [(current, first_line) for first_line in found["wide"]]
            height = page.evaluate("document.documentElement.scrollHeight")
            if height > MAX_HEIGHT and not is_reference(relative):
                tall.append((current, height))
        browser.close()

    print(
        f"{len(wide)} of {n_boxes} code blocks and tables overflow at {WIDTH} px "
        f"(at most {MAX_OVERFLOW_SHARE:.0%} allowed)"
    )
    for where, first_line in wide:
        print(f"  wide: {where}: {first_line!r}")
    for where, height in tall:
        print(f"  tall: {where}: {height} px (at most {MAX_HEIGHT})")
    for where, url in remote:
        print(f"  network: {where} requested {url}")
    failed = len(wide) > MAX_OVERFLOW_SHARE * n_boxes or tall or remote
    print("FAILED" if failed else "passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
