"""Render the docs' CSV tables from the benchmarks' JSON result files.

Each ``benchmarks/results/NAME.json`` written by a benchmark's ``--json``
becomes one or more ``benchmarks/results/NAME_*.csv`` that the docs include
with ``csv-table``: the numbers in the docs are the numbers of the run.

The README's results table is rendered from the same ``headline.csv``.

Run: ``python -m benchmarks.render_tables`` (instant; skips missing results).
``python -m benchmarks run NAME`` runs it after every benchmark.
"""

import csv
import json
import os

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def _write(name, header, rows):
    with open(os.path.join(RESULTS, name), "w", newline="") as file:
        csv.writer(file).writerows([header] + rows)


def _load(name):
    path = os.path.join(RESULTS, name)
    if not os.path.exists(path):
        print(f"{name}: not found, skipped")
        return None
    with open(path) as file:
        return json.load(file)


def defaults():
    results = _load("defaults.json")
    if results is None:
        return
    summary, radius = [], []
    words, reads = results["words"], results.get("reads")
    for method in words["methods"]:
        total = method["fit_s"] + method["query_s"]
        summary.append(
            [
                "words",
                f"n_neighbors={method.get('k', 1)}",
                method["n_candidates"],
                f"{method['recall']:.3f} (top-{method['k']}), {method['top1_recall']:.3f} (top-1)"
                if method.get("k", 1) > 1
                else f"{method['top1_recall']:.3f} (top-1)",
                f"{method['estimated_recall']:.3f} +/- {method.get('estimated_recall_se', 0):.3f}",
                f"{method['check_share_of_fit']:.0%}",
                f"{words['brute_s'] / total:.1f}x",
            ]
        )
    for entry in words["radius"]:
        radius.append(
            [
                "words",
                f"{entry['radius']:g}",
                f"{entry['recall']:.3f}",
                f"{entry['seconds'] * 1e3 / 1000:.2f}",
            ]
        )
    if reads is not None:
        peers = [
            [
                "rapidfuzz.process.cdist (brute force)",
                "none",  # csv-table would read "-" as a list item
                f"{reads['brute_s']:.0f}",
                "1.000",
                "1.0x",
            ]
        ]
        for method in reads["methods"]:
            total = method["fit_s"] + method["query_s"]
            label = method["name"]
            if "n_candidates" in method:
                label += f" (C={method['n_candidates']})"
                summary.append(
                    [
                        "reads",
                        "n_neighbors=10",
                        method["n_candidates"],
                        f"{method['recall']:.3f} (top-10)",
                        f"{method['estimated_recall']:.3f} +/- {method['estimated_recall_se']:.3f}",
                        f"{method['check_share_of_fit']:.0%}",
                        f"{reads['brute_s'] / total:.0f}x",
                    ]
                )
            peers.append(
                [
                    label,
                    f"{method['fit_s']:.1f}",
                    f"{total:.1f}",
                    f"{method['recall']:.3f}",
                    f"{reads['brute_s'] / total:.0f}x",
                ]
            )
        _write(
            "defaults_reads.csv",
            ["method", "fit s", "fit + queries s", "top-10 recall", "speed-up incl. fit"],
            peers,
        )
        for entry in reads["radius"]:
            radius.append(
                [
                    "genome reads",
                    f"{entry['radius']:g}",
                    f"{entry['recall']:.3f}",
                    f"{entry['seconds'] * 1e3 / reads['n_query']:.1f}",
                ]
            )
        classifier = reads["classifier"]
        _write(
            "defaults_classifier.csv",
            ["classifier (read origin)", "accuracy"],
            [
                ["exact 5-NN", f"{classifier['exact_accuracy']:.3f}"],
                ["FilterRefineClassifier() defaults", f"{classifier['accuracy']:.3f}"],
            ],
        )
    _write(
        "defaults_summary.csv",
        [
            "data",
            "FilterRefineNeighbors",
            "C chosen",
            "recall on the queries",
            "fit's estimate",
            "check share of fit",
            "speed-up incl. fit",
        ],
        summary,
    )
    _write("defaults_radius.csv", ["data", "radius", "recall", "ms / query"], radius)


def embedder_choice():
    results = _load("embedder_choice.json")
    if results is None:
        return
    rows = [
        [
            entry["data"],
            entry["embedder"],
            f"{entry['fit_s']:.1f}",
            f"{entry['recall_50']:.3f}",
            f"{entry['recall_200']:.3f}",
            f"{entry['query_s_200'] * 1e3 / entry['n_query']:.2f}",
            f"{entry['brute_s'] * 1e3 / entry['n_query']:.2f}",
        ]
        for entry in results
    ]
    _write(
        "embedder_choice.csv",
        [
            "data",
            "embedder",
            "fit s",
            "recall C=50",
            "recall C=200",
            "ms / query C=200",
            "brute force ms / query",
        ],
        rows,
    )


def graph_clustering():
    results = _load("graph_clustering.json")
    if results is None:
        return
    rows = [["full exact distance matrix", f"{results['full_s']:.2f}", "1.000"]]
    rows += [
        [graph["name"], f"{graph['seconds']:.2f}", f"{graph['ari']:.3f}"]
        for graph in results["graphs"]
    ]
    _write("graph_clustering.csv", ["graph", "build s", "ARI vs exact DBSCAN"], rows)


def headline():
    """The landing page's table: the defaults and the peers, words and reads."""
    defaults_run, words_run = _load("defaults.json"), _load("words.json")
    if defaults_run is None or words_run is None:
        return
    rows = []
    reads = defaults_run["reads"]
    for method in reads["methods"]:
        total = method["fit_s"] + method["query_s"]
        name = (
            "sklearn-ed, defaults"
            if "n_candidates" in method
            else f"{method['name']} (minimap2 seeds) + exact refine"
        )
        rows.append(
            [
                "50,000 genome reads, top-10",
                name,
                f"{method['recall']:.3f}",
                f"{total:.1f} s",
                f"{reads['brute_s'] / total:.0f}x",
            ]
        )
    rows.sort(key=lambda row: not row[1].startswith("sklearn-ed"))
    rows.append(
        [
            "50,000 genome reads, top-10",
            "rapidfuzz brute force",
            "1.000",
            f"{reads['brute_s']:,.0f} s",
            "1x",
        ]
    )
    words = defaults_run["words"]
    top1 = next(method for method in words["methods"] if method.get("k", 1) == 1)
    n_queries = words_run["n_queries"]
    rows.append(
        [
            "100,000 words, nearest word",
            "sklearn-ed, defaults",
            f"{top1['top1_recall']:.3f}",
            f"{top1['fit_s']:.1f} s + {1000 * top1['query_s'] / n_queries:.3f} ms/query",
            f"{words['brute_s'] / top1['query_s']:.1f}x per query",
        ]
    )
    for method in words_run["methods"]:
        if method["name"].startswith(("tf-idf", "symspellpy")):
            rows.append(
                [
                    "100,000 words, nearest word",
                    method["name"],
                    f"{method['top1_recall']:.3f}",
                    f"{method['fit_s']:.1f} s + "
                    f"{1000 * method['query_s'] / n_queries:.3f} ms/query",
                    f"{words_run['brute_s'] / method['query_s']:.1f}x per query",
                ]
            )
    rows.append(
        [
            "100,000 words, nearest word",
            "rapidfuzz brute force",
            "1.000",
            f"{1000 * words_run['brute_s'] / n_queries:.3f} ms/query",
            "1x",
        ]
    )
    rows += _headline_scale_rows(_load("words_scale.json"), n_base=1_000_000)
    rows += _headline_reads_rows(_load("reads_1m.json"))
    _write(
        "headline.csv",
        ["data (1,000 queries, 2 cores)", "method", "recall", "time", "speed-up over brute force"],
        rows,
    )


def knn_ties():
    """The supervised page: ties at the k-th distance, against KNeighborsClassifier."""
    results = _load("knn_ties.json")
    if results is None:
        return
    entries = results["ks"]
    labels = {
        "defaults (ties='include')": "``FilterRefineClassifier()`` (defaults)",
        "ties='index'": '``ties="index"``',
        "ties='index', exact=True": '``ties="index", exact=True``',
        "exact=True (ties='include')": "``exact=True``",
    }
    rows = [["tied at the k-th distance"] + [f"{entry['tie_share']:.1%}" for entry in entries]]
    for i, setting in enumerate(entries[0]["settings"]):
        rows.append(
            [f"same prediction, {labels[setting['name']]}"]
            + [f"{entry['settings'][i]['agree_knn']:.1%}" for entry in entries]
        )
    rows.append(
        ["same prediction, ``KNeighborsClassifier`` fitted on the training words shuffled"]
        + [f"{entry['knn']['unchanged_when_shuffled']:.1%}" for entry in entries]
    )
    _write(
        "knn_ties_agreement.csv",
        [f"share of the {results['n_test']:,} test words"]
        + [f"n_neighbors={entry['k']}" for entry in entries],
        rows,
    )
    entry = next((entry for entry in entries if entry["k"] == 5), entries[0])
    rows = [
        [
            '``KNeighborsClassifier(metric="precomputed")``',
            f"{entry['knn']['accuracy']:.3f}",
            f"{entry['knn']['unchanged_when_shuffled']:.1%}",
        ]
    ]
    rows += [
        [
            labels[setting["name"]],
            f"{setting['accuracy']:.3f}",
            f"{setting['unchanged_when_shuffled']:.1%}",
        ]
        for setting in entry["settings"]
    ]
    _write(
        "knn_ties_accuracy.csv",
        [
            f"classifier, n_neighbors={entry['k']}",
            "accuracy",
            "predictions unchanged when the training words are shuffled",
        ],
        rows,
    )


def recipes():
    """The recipes page: brute force against each recipe at growing size."""
    results = _load("recipes.json")
    if results is None:
        return
    rows = []
    for row in results["rows"]:
        total = row["fit_s"] + row["query_s"]
        rows.append(
            [
                row["task"],
                f"{row['n']:,}",
                f"{row['brute_s']:.2f} s",
                f"{total:.2f} s",
                f"{row['brute_s'] / total:.1f}x",
                f"{row['quality']:.3f}",
            ]
        )
    _write(
        "recipes.csv",
        ["task", "size", "brute force", "sklearn-ed, fit included", "speed-up", "recall"],
        rows,
    )


def _headline_scale_rows(results, n_base):
    """The landing page's rows of one dictionary size of ``words_scale.json``."""
    if results is None:
        return []
    names = {
        "sklearn-ed defaults": "sklearn-ed, defaults",
        "tf-idf": "tf-idf 3-grams + sparse_dot_topn top-50 + refine",
        "symspellpy": "symspellpy, max distance 2",
        "brute force": "rapidfuzz brute force",
    }
    return [
        [
            f"{n_base:,} words, nearest word",
            names[row["method"]],
            f"{row['top1']:.3f}",
            f"{row['fit_s']:.1f} s + {row['query_ms']:.3f} ms/query"
            if row["fit_s"]
            else f"{row['query_ms']:.3f} ms/query",
            f"{row['speedup']:.1f}x per query" if row["method"] != "brute force" else "1x",
        ]
        for method in names  # sklearn-ed first, brute force last, as in the rows above
        for row in results["rows"]
        if row["n_base"] == n_base and row["method"] == method
    ]


def _headline_reads_rows(results):
    """The landing page's rows of ``reads_1m.json``: the defaults, mappy, brute force."""
    if results is None:
        return []
    names = {
        "sklearn-ed defaults": "sklearn-ed, defaults",
        "mappy": "mappy (minimap2 seeds) + exact refine",
        "brute force": "rapidfuzz brute force",
    }
    return [
        [
            f"{results['n_reads']:,} genome reads, top-10",
            names[row["method"]],
            f"{row['recall']:.3f}",
            f"{row['fit_s']:.1f} s + {row['query_ms']:.1f} ms/query"
            if row["fit_s"]
            else f"{row['query_ms'] / 1000:.1f} s/query",
            f"{row['speedup']:,.0f}x per query" if row["method"] != "brute force" else "1x",
        ]
        for method in names
        for row in results["rows"]
        if row["method"] == method
    ]


def words_scale():
    """The nearest word from 100,000 to 3,000,000 words, every method."""
    results = _load("words_scale.json")
    if results is None:
        return
    rows = [
        [
            f"{row['n_base']:,}",
            row["method"],
            f"{row['fit_s']:.1f}",
            f"{row['query_ms']:.3f}",
            f"{row['speedup']:.1f}x",
            f"{row['top1']:.3f}",
            f"{row['peak_gib']:.2f}",
        ]
        for row in results["rows"]
    ]
    _write(
        "words_scale.csv",
        ["words", "method", "fit s", "ms per query", "vs brute force", "top-1", "peak GiB"],
        rows,
    )


def records():
    """FEBRL quality and time per method; the generated records at each size."""
    results = _load("records.json")
    if results is None:
        return
    for name, rows in results["febrl"].items():
        _write(
            f"records_{name}.csv",
            ["method", "precision", "recall", "F1", "seconds"],
            [
                [row["method"], *(f"{row[key]:.3f}" for key in ("precision", "recall", "f1"))]
                + [f"{row['seconds']:.2f}"]
                for row in rows
            ],
        )
    scale = []
    for row in results["scale"]:
        one_string = row.get("one_string_f1")
        scale.append(
            [
                f"{row['n']:,}",
                f"{row['candidates']:,}",
                f"{row['candidate_recall']:.4f}",
                f"{row['equality_pairs']:,}",
                f"{row['equality_recall']:.4f}",
                f"{row['seconds']:.1f}",
                f"{row['peak_gib']:.2f}",
                f"{row['f1']:.3f}",
                "not run" if one_string is None else f"{one_string:.3f}",
            ]
        )
    _write(
        "records_scale.csv",
        [
            "records",
            "candidate pairs",
            "true pairs held",
            "equality rules: pairs",
            "equality rules: true pairs held",
            "fit (s)",
            "peak memory (GiB)",
            "pair F1",
            "one string: pair F1",
        ],
        scale,
    )


def records_link():
    """Each method's links between the two generated tables (the largest size run)."""
    results = _load("records_link.json")
    if results is None:
        return
    _write(
        "records_link.csv",
        ["method", "precision", "recall", "F1", "seconds"],
        [
            [row["method"], *(f"{row[key]:.3f}" for key in ("precision", "recall", "f1"))]
            + [f"{row['seconds']:.2f}"]
            for row in results[-1]["rows"]
        ],
    )


def records_blocking():
    """Candidate pairs and the true pairs they hold, per blocking, at each size."""
    results = _load("records_blocking.json")
    if results is None:
        return
    labels = {
        "ours": "sklearn-ed: 5 exact fuzzy and equality rules",
        "splink": "splink's 10 recommended rules (postcode as city)",
        "splink_street": "splink's 10 recommended rules (postcode as street)",
        "greedy": "equality rules chosen greedily for recall",
    }
    rows = []
    for size in results["sizes"]:
        for key, label in labels.items():
            result = size[key]
            held = result["recall"] * size["true_pairs"]
            rows.append(
                [
                    f"{size['n']:,}",
                    label,
                    f"{len(result['steps'])}",
                    f"{result['pairs']:,}",
                    f"{result['recall']:.4f}",
                    f"{result['pairs'] / held:,.1f}" if held else "-",
                ]
            )
    _write(
        "records_blocking.csv",
        [
            "records",
            "blocking",
            "rules",
            "candidate pairs",
            "true pairs held",
            "pairs per true pair",
        ],
        rows,
    )


def headline_markdown():
    """The landing page's table as Markdown, for the README's results section."""
    with open(os.path.join(RESULTS, "headline.csv"), newline="") as file:
        header, *rows = list(csv.reader(file))
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


README = os.path.join(os.path.dirname(RESULTS), os.pardir, "README.md")
README_BEGIN = "<!-- results: rendered from benchmarks/results/headline.csv -->\n"
README_END = "<!-- end of results -->\n"


def readme_with_results(text):
    """``text`` (the README) with its results block rendered from headline.csv."""
    before, _, rest = text.partition(README_BEGIN)
    _, _, after = rest.partition(README_END)
    if not rest:
        raise ValueError(f"README.md lacks the line {README_BEGIN.strip()!r}")
    return before + README_BEGIN + headline_markdown() + README_END + after


def readme():
    with open(README) as file:
        text = file.read()
    with open(README, "w") as file:
        file.write(readme_with_results(text))


def main():
    """Every table, from whichever JSON results exist, and the README's results."""
    defaults()
    embedder_choice()
    graph_clustering()
    headline()
    knn_ties()
    recipes()
    records()
    records_link()
    records_blocking()
    words_scale()
    readme()


if __name__ == "__main__":
    main()
