"""Heat-maps of the benchmark matrix: speed-up over rapidfuzz brute force, cell by cell.

One figure per method of ours (kNN: ``defaults``, ``exact``; joins:
``auto``, ``partition``, ``brute``, ``dedup``), PNG and SVG. kNN rows are
base (size) x query set, columns metric x processor x k; join rows are data
(size) x threshold rank, columns metric x processor. The colour is the
speed-up with the fit included, on a log scale centred at 1x (red: slower
than brute force, blue: faster); a cell below 1x is hatched and its number
framed, a cell without a result (unsupported, failed, timed out) is grey.

Run: ``python -m benchmarks.render_matrix RESULTS.json [MORE.json ...] --out DIR`` (the
rows of several runs, e.g. a grid run in chunks, are drawn together).
"""

import argparse
import json
import os

import numpy as np

# part: (methods of ours, measure, row fields, column fields)
PARTS = {
    "knn": (
        ("defaults", "exact"),
        "speedup_total",
        ("base", "n", "k", "queries"),
        ("metric", "processor"),
    ),
    "join": (
        ("auto", "partition", "brute", "dedup"),
        "speedup",
        ("base", "n", "rank"),
        ("metric", "processor"),
    ),
}
PROCESSOR_LABELS = {"none": "-", "default": "def", "sort_tokens": "sort"}


def _label(values, names):
    parts = []
    for name, value in zip(names, values):
        if name == "n":
            if value >= 1_000_000:
                parts.append(f"{value / 1e6:g}M")
            else:
                parts.append(f"{value:,}" if value < 10_000 else f"{value / 1000:,.0f}k")
        elif name == "processor":
            parts.append(PROCESSOR_LABELS.get(value, value))
        elif name == "k":
            parts.append(f"k={value}")
        elif name == "rank":
            parts.append(f"t{value + 1}")
        else:
            parts.append(str(value))
    return " ".join(parts)


def _with_rank(rows):
    """Join rows: the threshold's rank among those its data, metric and
    processor were run at, whatever the size (three per metric at 10,000; a
    larger size run at one of them shows it in that one's row)."""
    by_group = {}
    for row in rows:
        key = (row["base"], row["metric"], row["processor"])
        by_group.setdefault(key, set()).add(row["threshold"])
    for row in rows:
        key = (row["base"], row["metric"], row["processor"])
        row = dict(row, rank=sorted(by_group[key]).index(row["threshold"]))
        yield row


def grid(rows, method, measure, row_names, column_names):
    """Row labels, column labels and the matrix of speed-ups (NaN: no result)."""
    mine = [r for r in rows if r["method"] == method]
    keys_r = list(dict.fromkeys(tuple(r[n] for n in row_names) for r in mine))
    keys_c = list(dict.fromkeys(tuple(r[n] for n in column_names) for r in mine))
    values = np.full((len(keys_r), len(keys_c)), np.nan)
    for r in mine:
        if r["status"] == "ok":
            i = keys_r.index(tuple(r[n] for n in row_names))
            j = keys_c.index(tuple(r[n] for n in column_names))
            values[i, j] = r[measure]
    return keys_r, keys_c, values


def draw(values, row_labels, column_labels, title, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    logs = np.log10(values)
    reach = max(1.0, float(np.nanmax(np.abs(logs))) if np.isfinite(logs).any() else 1.0)
    height, width = values.shape
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * width + 3), max(3, 0.32 * height + 2)))
    cmap = plt.get_cmap("RdBu").copy()
    cmap.set_bad("#d0d0d0")
    image = ax.imshow(
        np.ma.masked_invalid(logs),
        cmap=cmap,
        norm=TwoSlopeNorm(vcenter=0.0, vmin=-reach, vmax=reach),
        aspect="auto",
    )
    for i in range(height):
        for j in range(width):
            value = values[i, j]
            if not np.isfinite(value):
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=6, color="#606060")
                continue
            text = (
                f"{value:.2f}" if value < 0.1 else f"{value:.1f}" if value < 10 else f"{value:.0f}"
            )
            slow = value < 1
            if slow:  # hatched, the number on a white label
                ax.add_patch(
                    plt.Rectangle(
                        (j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", ec=(0, 0, 0, 0.3), lw=0
                    )
                )
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=6,
                color="white" if not slow and abs(logs[i, j]) > 0.6 * reach else "black",
                fontweight="bold" if slow else "normal",
                bbox={"boxstyle": "square,pad=0.15", "fc": "white", "ec": "none"} if slow else None,
            )
    ax.set_xticks(range(width), column_labels, rotation=90, fontsize=7)
    ax.set_yticks(range(height), row_labels, fontsize=7)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    ticks = [t for t in (-3, -2, -1, 0, 1, 2, 3) if -reach <= t <= reach]
    bar.set_ticks(ticks, labels=[f"{10.0**t:g}x" for t in ticks])
    bar.set_label("speed-up (log scale)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    written = []
    for extension in ("png", "svg"):
        fig.savefig(f"{path}.{extension}", dpi=150)
        written.append(f"{path}.{extension}")
    plt.close(fig)
    return written


def render(results, folder):
    """Every heat-map of ``results`` (the JSON of ``benchmarks.bench_matrix``) into ``folder``."""
    os.makedirs(folder, exist_ok=True)
    written = []
    for part, (methods, measure, row_names, column_names) in PARTS.items():
        rows = results.get(part) or []
        if part == "join":
            rows = list(_with_rank(rows))
        for method in methods:
            keys_r, keys_c, values = grid(rows, method, measure, row_names, column_names)
            if not keys_r:
                continue
            what = (
                "fit + queries" if part == "knn" else "whole join; t1-t3: the metric's thresholds"
            )
            title = (
                f"{part}: sklearn-ed {method}, speed-up over rapidfuzz brute force\n"
                f"({what})\nred, hatched: slower than brute force; grey: no result"
            )
            written += draw(
                values,
                [_label(key, row_names) for key in keys_r],
                [_label(key, column_names) for key in keys_c],
                title,
                os.path.join(folder, f"matrix_{part}_{method}"),
            )
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="+", help="results of one or several (chunked) runs")
    parser.add_argument("--out", default=".")
    args = parser.parse_args(argv)
    results = {"knn": [], "join": []}
    for path in args.json:
        with open(path) as file:
            run = json.load(file)
        for part in results:
            results[part] += run.get(part) or []
    for path in render(results, args.out):
        print(path)


if __name__ == "__main__":
    main()
