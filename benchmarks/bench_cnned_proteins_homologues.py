"""Why CNN-ED does not beat CGK at every C on proteins: queries without homologues.

On ``load_protein_benchmark()`` CNN-ED is above CGK at every C for top-1 and
from 0.5 % of the base for top-10 and top-50, but tied or 0.001-0.002 below
at C = 2-3 (0.1-0.2 %) for top-10/top-50. This script splits the 200
queries by whether they have a homologue in the base: the exact nearest
base protein within a normalised edit distance (distance / longer length)
of ``--threshold`` (0.6 by default; unrelated proteins are at about 0.85).
It fits the embedders exactly as ``bench_cnned_recall.py --dataset proteins
--n-jobs 1`` does (CNN-ED defaults fitted on the base, max_length = 99th
percentile of base lengths, random_state=0; CGK(random_state=0) on the
base) and prints top-k recall per group.

Run: python -m benchmarks.bench_cnned_proteins_homologues
"""

import argparse
import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress

COUNTS = (2, 3, 8, 17, 34, 85, 170)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threshold", type=float, default=0.6)
    args = parser.parse_args()
    start_time = time.perf_counter()
    from scipy.spatial.distance import cdist

    from sklearn_ed import CGKEmbedder, CNNEDEmbedder
    from sklearn_ed.datasets import load_protein_benchmark
    from sklearn_ed.distances import pairwise_distances
    from sklearn_ed.metrics import recall_curve

    bench = load_protein_benchmark()
    base, query = bench.base, bench.query
    max_length = int(np.ceil(np.percentile([len(s) for s in base], 99)))
    print_header(
        "CNN-ED vs CGK on proteins, queries with and without a homologue",
        notes=[
            "load_protein_benchmark() (random_state=0): 1,700 base, 200 queries",
            f"CNNEDEmbedder(max_length={max_length}, n_jobs=1, random_state=0) fitted on the base "
            "(as bench_cnned_recall.py --dataset proteins --n-jobs 1); CGKEmbedder(random_state=0) "
            "fitted on the base",
            f"homologue: nearest base protein at edit distance / longer length < {args.threshold}",
        ],
    )
    exact = pairwise_distances(query, base)
    longer = np.maximum.outer([len(s) for s in query], [len(s) for s in base])
    nearest = (exact / longer).min(axis=1)
    groups = {
        "with a homologue": nearest < args.threshold,
        "without": nearest >= args.threshold,
        "all": np.ones(len(query), bool),
    }
    progress("fit CNN-ED")
    cnned = CNNEDEmbedder(max_length=max_length, n_jobs=1, random_state=0).fit(base)
    cgk = CGKEmbedder(random_state=0).fit(base)
    embedded = {
        "CGK": cdist(cgk.transform(query), cgk.transform(base), "hamming"),
        "CNN-ED": cdist(cnned.transform(query), cnned.transform(base)),
    }
    rows = []
    for group, mask in groups.items():
        for k in (1, 10, 50):
            for name, distances in embedded.items():
                recall = recall_curve(exact[mask], distances[mask], k=k, n_candidates=COUNTS)[1]
                rows.append(
                    [group, int(mask.sum()), k, name] + [f"{value:.3f}" for value in recall]
                )
    print(
        f"normalised distance to the nearest base protein: median {np.median(nearest):.2f}; "
        f"{int(groups['with a homologue'].sum())} of {len(query)} queries below "
        f"{args.threshold}"
    )
    print()
    print(
        format_table(
            ["queries", "n", "k", "embedding"]
            + [f"C={c} ({100 * c / len(base):.2g}%)" for c in COUNTS],
            rows,
            title="Top-k recall at C candidates, per group of queries",
        )
    )
    print_footer(start_time)


if __name__ == "__main__":
    main()
