"""Read the built docs in Chromium at 1366 px, as a reader would, and fail on:

- more than 1 in 20 code blocks and tables needing horizontal scrolling;
- a narrative or example page taller than 12,000 px (API pages are exempt:
  they are looked up, not read through);
- any page requesting anything from the network (the docs must work offline);
- words of the project's own history on a page a user reads (a test data
  set's nickname, "seed paper", the issue that asked for something), a
  machine's path, or a result recorded from a tree with uncommitted changes
  (the verbatim tables of benchmark logs are the scripts' output and are not
  read for words; their provenance is);
- a README whose results table differs from the docs' (both come from
  ``benchmarks/results/headline.csv``).

Usage: python .ci/check_docs.py docs/_build/html [--chromium /usr/bin/chromium]
"""

import argparse
import re
import shutil
import sys
from pathlib import Path

WIDTH = 1366
MAX_HEIGHT = 12_000
MAX_OVERFLOW_SHARE = 1 / 20

REPOSITORY = Path(__file__).resolve().parents[1]
# What a user should never have to decode: our nicknames and history, and
# traces of the machine or the working tree that produced a result.
IN_HOUSE = re.compile(
    r"spell-100k|genome-reads-50k|seed papers?|pseudo-quer|defaults issue"
    r"|issue (?:asked|was filed)|0\.1\.0 scan|with uncommitted changes"
    r"|\.venv/bin/python|(?<![\w.])/(?:work|root|home)/",
    re.IGNORECASE,
)

# The article's text, without the verbatim tables of benchmark logs.
_READ_TEXT = """() => {
  const article = document.querySelector('article');
  if (!article) return '';
  const copy = article.cloneNode(true);
  copy.querySelectorAll('.benchmark-log table.benchmark-table').forEach(t => t.remove());
  return copy.innerText;
}"""

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


def in_house_words(text):
    """Each in-house word of ``text`` with a little context."""
    return [
        text[max(0, m.start() - 30) : m.end() + 30].replace("\n", " ")
        for m in IN_HOUSE.finditer(text)
    ]


def readme_mismatch():
    """An error message when the README's results differ from the docs' table."""
    sys.path.insert(0, str(REPOSITORY))
    from benchmarks.render_tables import readme_with_results

    readme = (REPOSITORY / "README.md").read_text()
    if readme != readme_with_results(readme):
        return "README.md's results differ from benchmarks/results/headline.csv"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    # Imported here: the tests read this module's checks without a browser.
    from playwright.sync_api import sync_playwright

    n_boxes, wide, tall, remote, words = 0, [], [], [], []
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
            words += [(current, found) for found in in_house_words(page.evaluate(_READ_TEXT))]
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
    for where, context in words:
        print(f"  in-house: {where}: ...{context}...")
    readme = readme_mismatch()
    if readme:
        print(f"  readme: {readme}")
    failed = len(wide) > MAX_OVERFLOW_SHARE * n_boxes or tall or remote or words or readme
    print("FAILED" if failed else "passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
