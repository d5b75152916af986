"""Draw the docs' benchmark figures from the JSON result files.

The docs build calls :func:`render` (``docs/conf.py``), so every figure is
redrawn from ``benchmarks/results/*.json`` on each build: a figure can never
disagree with its result file. Run by hand: ``python
benchmarks/render_figures.py OUT_DIR``.
"""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import matplotlib.transforms  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
# The docs' log parser (docs/_ext/benchlogs.py) reads the printed tables.
_DOCS_EXTENSIONS = RESULTS.parents[1] / "docs" / "_ext"
# Legible at 100 % zoom in a 900 px column: 10 pt and up.
STYLE = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.fontsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "figure.dpi": 110,
}
COLOURS = {"sklearn-ed": "#1f77b4", "peer": "#ff7f0e", "brute": "#555555"}


# Label offsets tried in turn (points; beside the marker, then further away,
# where a leader line says which marker the label names).
_LABEL_OFFSETS = [(7, 3), (7, -11), (-7, 3), (-7, -11)] + [
    (dx, dy) for step in (1, 2) for dx in (12, -12) for dy in (14 * step, -14 * step - 8)
]
_LEADER = {"arrowstyle": "-", "color": "0.55", "lw": 0.7, "shrinkA": 0, "shrinkB": 4}


def _label_points(ax, points, labels, fontsize=9):
    """Name each point beside it, at the first offset whose text covers no
    marker and no label placed before it (judged on the drawn extents). Call
    it once the axes' limits are final."""
    fig = ax.figure
    ax.autoscale_view()
    fig.tight_layout()  # where the axes will be drawn: the extents below are final
    renderer = fig.canvas.get_renderer()
    # The markers are taken too: a label never covers another point.
    taken = [
        matplotlib.transforms.Bbox.from_bounds(px - 5, py - 5, 10, 10)
        for px, py in ax.transData.transform(points)
    ]
    for (x, y), label in sorted(zip(points, labels), key=lambda item: -item[0][1]):
        for dx, dy in _LABEL_OFFSETS:
            text = ax.annotate(
                label,
                (x, y),
                xytext=(dx, dy),
                textcoords="offset points",
                ha="left" if dx > 0 else "right",
                va="center",
                fontsize=fontsize,
                arrowprops=_LEADER if abs(dy) > 11 else None,
            )
            box = text.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in taken):
                taken.append(box)
                break
            text.remove()
        else:
            taken.append(
                ax.annotate(
                    label, (x, y), xytext=(6, 3), textcoords="offset points", fontsize=fontsize
                ).get_window_extent(renderer)
            )


def _load(name):
    path = RESULTS / name
    return json.loads(path.read_text()) if path.exists() else None


def _kind(name):
    if name.startswith("sklearn-ed") or name.startswith("FilterRefine"):
        return "sklearn-ed"
    return "brute" if "brute" in name else "peer"


def words_time_recall(out):
    """100,000 words: milliseconds per query against top-1 recall, every method."""
    results = _load("words.json")
    if results is None:
        return None
    fig, ax = plt.subplots(figsize=(10, 6.4))
    brute_ms = 1000 * results["brute_s"] / results["n_queries"]
    ax.axvline(brute_ms, color=COLOURS["brute"], linestyle="--")
    ax.annotate(
        "rapidfuzz brute force",
        (brute_ms, 0.83),
        rotation=90,
        ha="right",
        va="bottom",
        color=COLOURS["brute"],
    )
    points, labels = [], []
    for method in results["methods"]:
        ms = 1000 * method["query_s"] / results["n_queries"]
        ax.scatter(ms, method["top1_recall"], color=COLOURS[_kind(method["name"])], s=40, zorder=3)
        points.append((ms, method["top1_recall"]))
        labels.append(
            method["name"]
            .replace("sklearn-ed ", "")
            .replace("Embedder()", "")
            .replace('Embedder(weighting="tfidf")', " tf-idf")
            .replace(" + sparse_dot_topn top-50 + refine", " + sparse_dot_topn")
        )
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xticks([0.03, 0.05, 0.1, 0.2, 0.5, 1])
    ax.set_xlim(0.025, 1.2)
    ax.set_xlabel("milliseconds per query (log scale; fit not included)")
    ax.set_ylabel("top-1 recall")
    ax.set_title("100,000 words, 1,000 misspellings: sklearn-ed (blue) and peers (orange)")
    ax.grid(alpha=0.3)
    _label_points(ax, points, labels, fontsize=9)
    return _save(fig, out / "words_time_recall.png")


def embedder_choice_recall(out):
    """Top-10 recall at C=50 and C=200 by embedder and data set."""
    results = _load("embedder_choice.json")
    if results is None:
        return None
    datasets = list(dict.fromkeys(row["data"] for row in results))
    embedders = list(dict.fromkeys(row["embedder"].split("(")[0] for row in results))
    fig, axes = plt.subplots(1, len(datasets), figsize=(9, 3.6), sharey=True)
    width = 0.38
    for ax, dataset in zip(axes, datasets):
        rows = {row["embedder"].split("(")[0]: row for row in results if row["data"] == dataset}
        for offset, count, shade in ((-width / 2, 50, 0.55), (width / 2, 200, 1.0)):
            values = [rows[name][f"recall_{count}"] if name in rows else 0 for name in embedders]
            ax.bar(
                [i + offset for i in range(len(embedders))],
                values,
                width,
                alpha=shade,
                color="#1f77b4",
                label=f"C = {count}",
            )
        ax.set_xticks(range(len(embedders)), [name.replace("Embedder", "") for name in embedders])
        ax.set_title(dataset)
        ax.set_ylim(0, 1)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("top-10 recall")
    axes[0].legend(loc="upper right")
    fig.suptitle("Which embedder for which strings (bench_embedder_choice.py)")
    return _save(fig, out / "embedder_choice_recall.png")


def index_words_speed_recall(out):
    """Filter speed-up over a plain scan of the CGK symbols against recall of its candidates."""
    results = _load("index_words.json")
    if results is None:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.2))
    points = [(index["speedup_vs_scan"], index["recall_vs_scan"]) for index in results["indexes"]]
    for x, y in points:
        ax.scatter(x, y, s=40, color="#1f77b4", zorder=3)
    ax.axhline(0.98, color="#555555", linestyle=":")
    ax.axvline(10, color="#555555", linestyle=":")
    ax.set_xscale("log")
    ax.set_xlabel("filter speed-up over a plain scan of the CGK symbols (log scale)")
    ax.set_ylabel("recall of the scan's candidates")
    ax.set_title("Filter indexes on CGK codes of 100,000 words (target: right of 10x, above 0.98)")
    ax.grid(alpha=0.3)
    _label_points(ax, points, [index["name"] for index in results["indexes"]])
    return _save(fig, out / "index_words_speed_recall.png")


def defaults_reads_time(out):
    """Genome reads: fit + 1,000 queries, defaults against mappy and brute force."""
    results = _load("defaults.json")
    if results is None or "reads" not in results:
        return None
    reads = results["reads"]
    names = ["rapidfuzz brute force"] + [method["name"] for method in reads["methods"]]
    seconds = [reads["brute_s"]] + [
        method["fit_s"] + method["query_s"] for method in reads["methods"]
    ]
    fig, ax = plt.subplots(figsize=(8, 2.8))
    colours = [COLOURS[_kind(name)] for name in names]
    ax.barh(range(len(names)), seconds, color=colours)
    ax.set_yticks(range(len(names)), names)
    ax.set_xscale("log")
    ax.invert_yaxis()
    for row, value in enumerate(seconds):
        ax.annotate(
            f"{value:,.1f} s", (value, row), xytext=(4, 0), textcoords="offset points", va="center"
        )
    ax.set_xlabel("seconds for fit + 1,000 top-10 queries (log scale)")
    ax.set_title("50,000 genome reads of 1 kbp")
    ax.set_xlim(right=max(seconds) * 8)
    return _save(fig, out / "defaults_reads_time.png")


def dedup_time_growth(out):
    """Self-join of generated person records: seconds against size, log-log."""
    results = _load("dedup.json")
    if results is None:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for (label, runs), marker in zip(results["methods"].items(), "osD^"):
        measured = [(size, run) for size, run in zip(results["sizes"], runs) if "seconds" in run]
        sizes, seconds = [size for size, _ in measured], [run["seconds"] for _, run in measured]
        colour = COLOURS["peer" if label.startswith("string_grouper") else "sklearn-ed"]
        ours = label.startswith("sklearn-ed")
        style = ":" if "recommended" in label else "--" if ours and "0.85" in label else "-"
        ax.plot(sizes, seconds, style, marker=marker, color=colour, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("records (log scale)")
    ax.set_ylabel("seconds (log scale)")
    ax.set_title("Self-join of generated person records, 2 threads")
    ax.legend(loc="upper left")
    ax.grid(True, which="major", alpha=0.3)
    return _save(fig, out / "dedup_time_growth.png")


def records_growth(out):
    """Generated person records: fit seconds and candidate pairs against size, log-log."""
    results = _load("records.json")
    if results is None or not results.get("scale"):
        return None
    rows = results["scale"]
    sizes = [row["n"] for row in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
    left.plot(
        sizes,
        [row["seconds"] for row in rows],
        "-o",
        color=COLOURS["sklearn-ed"],
        label="RecordDeduplicator, whole fit",
    )
    one_string = [
        (row["n"], row["one_string_seconds"]) for row in rows if "one_string_seconds" in row
    ]
    if one_string:
        left.plot(
            *zip(*one_string),
            "--s",
            color=COLOURS["brute"],
            label="StringDeduplicator, one string, 0.85",
        )
    left.set_ylabel("seconds (log scale)")
    left.set_title("Time, 2 threads")
    right.plot(
        sizes,
        [row["candidates"] for row in rows],
        "-o",
        color=COLOURS["sklearn-ed"],
        label="default blocking (fuzzy + equal)",
    )
    right.plot(
        sizes,
        [row["equality_pairs"] for row in rows],
        "--D",
        color=COLOURS["peer"],
        label="equality rules alone",
    )
    right.set_ylabel("candidate pairs (log scale)")
    right.set_title("Candidate pairs")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("records (log scale)")
        ax.legend(loc="lower right", fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
    return _save(fig, out / "records_growth.png")


def _log_table(name, index):
    """Table ``index`` of the printed log ``name`` (the docs' parser)."""
    if str(_DOCS_EXTENSIONS) not in sys.path:
        sys.path.insert(0, str(_DOCS_EXTENSIONS))
    from benchlogs import parse_log

    path = RESULTS / name
    return parse_log(path.read_text())[1][index] if path.exists() else None


def recall_item_from_log(out, name, index, k, title):
    """Top-k recall against candidates per query, one line per embedding."""
    table = _log_table(name, index)
    if table is None:
        return None
    counts = [int(column.split("=")[1].split()[0]) for column in table["header"][2:]]
    fig, ax = plt.subplots(figsize=(8, 4))
    for row in table["rows"]:
        if row[1] == str(k):
            ax.plot(counts, [float(value) for value in row[2:]], marker="o", label=row[0])
    ax.set_xscale("log")
    ax.set_xlabel("candidates refined per query, C (log scale)")
    ax.set_ylabel(f"top-{k} recall")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    return _save(fig, out / f"{Path(name).stem}_recall_item.png")


def distances_needed_from_log(out, name, column, title):
    """Exact distances a method needs (one bar per method) at one cell."""
    table = _log_table(name, 0)
    if table is None:
        return None
    position = table["header"].index(column)
    rows = [row for row in table["rows"] if row[1] == "# distances"]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ax.bar([row[0] for row in rows], [float(row[position]) for row in rows], color="#1f77b4")
    ax.set_ylabel(f"exact distances needed ({column})")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, out / f"{Path(name).stem}_distances.png")


def kmeans_accuracy_from_log(out, name="cluster_metric_kmeans.txt"):
    """K-means accuracy in the original dimensions, per data set and metric."""
    tables = [_log_table(name, index) for index in range(4)]
    if tables[0] is None:
        return None
    methods = ["Euclid", "Euclid+std", "Metric", "NCA"]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    width = 0.2
    for offset, method in enumerate(methods):
        values = [
            float(
                next(row for row in table["rows"] if row[0] == "orig")[
                    table["header"].index(method)
                ]
            )
            for table in tables
        ]
        ax.bar(
            [i + (offset - 1.5) * width for i in range(len(tables))], values, width, label=method
        )
    ax.set_xticks(range(len(tables)), [table["title"].split(":")[0] for table in tables])
    ax.set_ylabel("K-means accuracy")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right", ncols=2)
    ax.set_title("Original dimensions, mean over 5 splits")
    return _save(fig, out / "cluster_metric_kmeans_accuracy.png")


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def words_scale_growth(out):
    """Milliseconds per query against dictionary size, log-log, every method."""
    results = _load("words_scale.json")
    if results is None:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.6))
    methods = dict.fromkeys(row["method"] for row in results["rows"])
    for method, marker in zip(methods, "osD^v"):
        rows = [row for row in results["rows"] if row["method"] == method]
        kind = "brute" if method == "brute force" else _kind(method)
        ax.plot(
            [row["n_base"] for row in rows],
            [row["query_ms"] for row in rows],
            "--" if "exact" in method else "-",
            marker=marker,
            color=COLOURS[kind],
            label=method,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("words in the dictionary (log scale)")
    ax.set_ylabel("milliseconds per query (log scale)")
    ax.set_title("Nearest word of 1,000 misspellings, 2 workers")
    ax.legend(loc="upper left", fontsize=9)
    ax.grid(True, which="major", alpha=0.3)
    return _save(fig, out / "words_scale_growth.png")


def dask_join_growth(out):
    """The distributed join: measured seconds against records, and the cost
    model's hours to 10^9 records on 2, 100 and 1,000 workers."""
    results = _load("dask_join.json")
    if results is None:
        return None
    fig, (measured, model) = plt.subplots(1, 2, figsize=(10, 6.5))
    styles = {"recommended": "-", "headline": "--"}
    runners = dict.fromkeys(row["runner"] for row in results["rows"])
    for setting, style in styles.items():
        for runner, marker in zip(runners, "osD^v<>"):
            rows = [r for r in results["rows"] if r["setting"] == setting and r["runner"] == runner]
            if rows:
                kind = "peer" if runner == "string_grouper" else "sklearn-ed"
                colour = COLOURS["brute"] if runner.startswith("one process") else COLOURS[kind]
                measured.plot(
                    [r["n"] for r in rows],
                    [r["seconds"] for r in rows],
                    style,
                    marker=marker,
                    color=colour,
                    alpha=1.0 if "2 workers" in runner or kind == "peer" else 0.6,
                    label=f"{setting}: {runner}",
                )
        for workers, marker in zip((2, 100, 1000), "os^"):
            rows = [
                m for m in results["model"] if m["setting"] == setting and m["workers"] == workers
            ]
            if rows:
                model.plot(
                    [m["n"] for m in rows],
                    [m["hours"] for m in rows],
                    style,
                    marker=marker,
                    color=COLOURS["sklearn-ed"],
                    alpha={2: 0.45, 100: 0.7, 1000: 1.0}[workers],
                    label=f"{setting}, {workers:,} workers",
                )
    for ax, title, ylabel in (
        (measured, "Measured on 2 cores", "seconds (log scale)"),
        (model, "Cost model", "hours (log scale)"),
    ):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("records (log scale)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, which="major", alpha=0.3)
    # Fourteen runs: their legend goes under the axes, where no line is.
    measured.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, fontsize=7)
    model.legend(loc="upper left", fontsize=8)
    return _save(fig, out / "dask_join_growth.png")


def render(out):
    """Write every figure whose result file exists into ``out``; return their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with plt.rc_context(STYLE):
        drawn = [
            draw(out)
            for draw in (
                words_time_recall,
                embedder_choice_recall,
                index_words_speed_recall,
                defaults_reads_time,
                dedup_time_growth,
                records_growth,
                words_scale_growth,
                dask_join_growth,
            )
        ]
        drawn += [
            recall_item_from_log(
                out, "genome_reads.txt", 1, 10, "CGK on 50,000 genome reads, top-10"
            ),
            recall_item_from_log(
                out,
                "cnned_genome_reads_50k.txt",
                1,
                10,
                "CNN-ED and CGK on 50,000 genome reads, top-10",
            ),
            recall_item_from_log(
                out, "cnned_proteins.txt", 1, 10, "CNN-ED and CGK on proteins, top-10"
            ),
            recall_item_from_log(
                out, "gru_proteins.txt", 0, 10, "GRU, CNN-ED and CGK on proteins, top-10"
            ),
            distances_needed_from_log(
                out, "triplet_digits.txt", "90% k=10", "Digits under the chamfer distance"
            ),
            distances_needed_from_log(
                out, "triplet_gunpoint.txt", "90% k=10", "GunPoint under DTW"
            ),
            kmeans_accuracy_from_log(out),
        ]
    drawn += matrix_heat_maps(out)
    return [path for path in drawn if path is not None]


# The suite's runs of the matrix (``bench_matrix``), drawn together.
MATRIX_RUNS = (
    "matrix_joins.json",
    "matrix_joins_100k.json",
    "matrix_knn_records.json",
    "matrix_knn_records_100k.json",
)


def matrix_heat_maps(out):
    """The heat-maps of the suite's matrix runs, those that were run."""
    from benchmarks.render_matrix import render as render_matrix

    results = {"knn": [], "join": []}
    for name in MATRIX_RUNS:
        path = RESULTS / name
        if path.exists():
            run = json.loads(path.read_text())
            for part, rows in results.items():
                rows += run.get(part) or []
    return [Path(p) for p in render_matrix(results, out) if p.endswith(".png")]


if __name__ == "__main__":
    for path in render(sys.argv[1] if len(sys.argv) > 1 else RESULTS / "figures"):
        print(path)
