"""Validation runs that chose GRUEmbedder's Phase 3 settings (never the test set).

Top-1 recall with one candidate on the validation hard cases
``make_hard_cases(300, length=100, random_state=2)``; the networks learn from
``make_hard_cases(200, length=100, random_state=1)`` (queries and base
pooled). ``bench_gru_hard_cases.py`` tests the chosen settings on seed 0.

Each row is one ``GRUEmbedder(**params)`` fit (phases 1, 2, 3); the
parameters vary Algorithm 4's steps (``threshold_lr`` = epsilon, ``hash_lr``
= eta; 0 freezes the random CGK' walk), the epochs and the seed.

Run: python -m benchmarks.bench_gru_tuning
"""

import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress

CONFIGS = [
    dict(threshold_lr=1e-3, hash_lr=1e-2),
    dict(threshold_lr=1e-4, hash_lr=1e-3),
    dict(threshold_lr=1e-2, hash_lr=1e-1),
    dict(threshold_lr=0.0, hash_lr=0.0),
    dict(threshold_lr=1e-3, hash_lr=1e-2, epochs_per_phase=(5, 5, 15)),
    dict(threshold_lr=1e-4, hash_lr=1e-3, random_state=1),
    dict(threshold_lr=0.0, hash_lr=0.0, random_state=1),
]


def main():
    start_time = time.perf_counter()
    from scipy.spatial.distance import cdist

    from sklearn_ed import CGKEmbedder, GRUEmbedder
    from sklearn_ed.datasets import make_hard_cases
    from sklearn_ed.distances import pairwise_distances
    from sklearn_ed.metrics import top_k_recall

    print_header(
        "GRUEmbedder Phase 3 settings on validation hard cases",
        notes=[
            "validation: make_hard_cases(300, length=100, random_state=2); training: "
            "make_hard_cases(200, length=100, random_state=1), queries and base pooled",
            "GRUEmbedder(epochs_per_phase=5, random_state=0) unless the row says otherwise",
        ],
    )
    validation = make_hard_cases(300, length=100, random_state=2)
    train_set = make_hard_cases(200, length=100, random_state=1)
    train = train_set.query + train_set.base
    exact = pairwise_distances(validation.query, validation.base)

    def recall(query_vectors, base_vectors, metric):
        return top_k_recall(exact, cdist(query_vectors, base_vectors, metric), k=1, n_candidates=1)

    rows = []
    for config in CONFIGS:
        params = {"epochs_per_phase": 5, "random_state": 0, **config}
        progress(f"fit {params}")
        started = time.perf_counter()
        gru = GRUEmbedder(**params).fit(train)
        value = recall(gru.transform(validation.query), gru.transform(validation.base), "euclidean")
        rows.append(
            [
                params["threshold_lr"],
                params["hash_lr"],
                str(params["epochs_per_phase"]),
                params["random_state"],
                f"{100 * value:.1f}",
                f"{gru.threshold_:.3f}",
                f"{time.perf_counter() - started:.0f}",
            ]
        )
    cgk = [
        recall(e.transform(validation.query), e.transform(validation.base), "hamming")
        for e in (CGKEmbedder(random_state=s).fit(validation.base) for s in range(5))
    ]
    print(
        format_table(
            [
                "threshold_lr",
                "hash_lr",
                "epochs per phase",
                "random_state",
                "top-1 recall (%)",
                "learned threshold",
                "fit s",
            ],
            rows,
            title="Phase 1+2+3, top-1 recall with one candidate (validation)",
        )
    )
    print()
    print(f"CGK on the same validation set: {100 * np.mean(cgk):.1f} % (mean of 5 seeds)")
    print_footer(start_time)


if __name__ == "__main__":
    main()
