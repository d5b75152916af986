"""GRUEmbedder vs CNN-ED vs CGK: recall-item curves, training and inference cost.

``--dataset genome`` and ``--dataset proteins`` print top-1/10/50 recall at C
candidates (C as a share of the base), the fit time, the embedding
throughput of ``transform`` on the base, and the embedding memory per
string, for CGK (``CGKEmbedder``, x1), CNN-ED (``CNNEDEmbedder`` defaults,
50 epochs) and the GRU (``GRUEmbedder`` defaults, all three phases,
``--epochs`` per phase). The neural embedders use one torch thread each;
their fit time includes their exact training matrix, and "training s" is
the sum of their epoch durations.

The GRU reads a string one character after the other (two GRU layers of
64 units, one step per character), so on two CPU cores its training costs
about 20 s per epoch at length 200 and minutes at length 1,000. These
recall runs therefore use strings of length about 200:

- ``genome``: ``make_genome_reads`` with read lengths 180-220 from the first
  20,000 bp (5,000 base reads: 50x coverage, the density of
  genome-reads-50k), 100 queries and 1,000 training reads (seed 0);
- ``proteins``: ``load_protein_benchmark()`` (1,700 base, 200 queries, 200
  training proteins) with every protein cut to its first 200 residues (the
  exact distances are those of the cut strings).

``--dataset speed`` measures the Dai et al. (2020), Table 3 comparison at length
~1,000 (genome reads of 900-1,100 bases, 1,000 training reads): the duration
of one training epoch (1,000 triplets, batch 64) and the inference
throughput on 1,000 reads, CNN-ED vs GRU (Phase 1 epoch and Phase 3 epoch).

Run::

    python -m benchmarks.bench_gru_recall --dataset genome
    python -m benchmarks.bench_gru_recall --dataset proteins
    python -m benchmarks.bench_gru_recall --dataset speed
"""

import argparse
import time

from benchmarks._common import format_table, print_footer, print_header, progress

SHARES = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1)


def load(name):
    from sklearn_ed.datasets import (
        load_protein_benchmark,
        make_genome_reads,
        train_query_base_split,
    )

    if name == "genome":
        reads = make_genome_reads(
            6100, read_length=(180, 220), genome_length=20_000, random_state=0
        ).data
        train, query, base = train_query_base_split(
            reads, n_train=1000, n_query=100, random_state=0
        )
        call = (
            "make_genome_reads(6100, read_length=(180, 220), genome_length=20000, "
            "random_state=0), train_query_base_split(n_train=1000, n_query=100, "
            "random_state=0)"
        )
        return list(train), list(query), list(base), call
    bench = load_protein_benchmark()
    cut = [[s[:200] for s in part] for part in (bench.train, bench.query, bench.base)]
    return (*cut, "load_protein_benchmark() (random_state=0), proteins cut to 200 residues")


def timed_fit(embedder, strings):
    start, cpu = time.perf_counter(), time.process_time()
    embedder.fit(strings)
    return time.perf_counter() - start, time.process_time() - cpu


def timed_transform(embedder, strings):
    start = time.perf_counter()
    out = embedder.transform(strings)
    return out, time.perf_counter() - start


def recall_run(args):
    from scipy.spatial.distance import cdist

    from sklearn_ed import CGKEmbedder, CNNEDEmbedder, GRUEmbedder
    from sklearn_ed.distances import pairwise_distances
    from sklearn_ed.metrics import recall_curve

    train, query, base, call = load(args.dataset)
    max_length = max(len(s) for s in train + query + base)
    print_header(
        f"{args.dataset}: GRU vs CNN-ED vs CGK",
        notes=[
            call,
            f"max_length={max_length} (longest string) for both networks; n_jobs={args.n_jobs}",
            f"CNNEDEmbedder(max_epochs=50, random_state=0); GRUEmbedder(epochs_per_phase="
            f"{args.epochs}, random_state=0), phases (1, 2, 3); other parameters default; "
            "CGKEmbedder(random_state=0) fitted on the base",
            "wall times on a shared 2-core machine",
        ],
    )
    progress("exact distances")
    exact = pairwise_distances(query, base, n_jobs=2)
    embedders = {
        "CGK": (CGKEmbedder(random_state=0), base),
        "CNN-ED": (CNNEDEmbedder(max_length=max_length, n_jobs=args.n_jobs, random_state=0), train),
        "GRU (1+2+3)": (
            GRUEmbedder(
                epochs_per_phase=args.epochs,
                max_length=max_length,
                n_jobs=args.n_jobs,
                random_state=0,
            ),
            train,
        ),
    }
    counts = [max(1, int(round(share * len(base)))) for share in SHARES]
    recall_rows, cost_rows = [], []
    for name, (embedder, fit_on) in embedders.items():
        progress(f"fit {name}")
        fit_s, fit_cpu = timed_fit(embedder, fit_on)
        embedded_base, transform_s = timed_transform(embedder, base)
        embedded_query = embedder.transform(query)
        metric = "hamming" if name == "CGK" else "euclidean"
        distances = cdist(embedded_query, embedded_base, metric)
        for k in (1, 10, 50):
            recall = recall_curve(exact, distances, k=k, n_candidates=counts)[1]
            recall_rows.append([name, k] + [f"{value:.3f}" for value in recall])
        bytes_per_string = embedded_base.nbytes / len(base)
        training_s = sum(entry["dur"] for entry in getattr(embedder, "history_", []))
        cost_rows.append(
            [
                name,
                f"{fit_s:.1f}",
                f"{training_s:.1f}",
                f"{fit_cpu:.1f}",
                f"{len(base) / transform_s:,.0f}",
                embedded_base.shape[1],
                f"{bytes_per_string:,.0f}",
            ]
        )
    print(
        f"data: {len(base)} base, {len(query)} queries, {len(train)} training strings; "
        f"lengths {min(map(len, base))}-{max(map(len, base))}"
    )
    print()
    print(
        format_table(
            ["embedding", "k"] + [f"C={c} ({100 * s:g}%)" for c, s in zip(counts, SHARES)],
            recall_rows,
            title="Recall-item: top-k recall at C candidates",
        )
    )
    print()
    print(
        format_table(
            [
                "embedding",
                "fit wall s",
                "training s",
                "fit CPU s",
                "transform strings/s",
                "dimension",
                "bytes per string",
            ],
            cost_rows,
            title="Cost",
        )
    )
    by_name = {row[0]: row for row in cost_rows}
    gru, cnn = by_name["GRU (1+2+3)"], by_name["CNN-ED"]
    print()
    print(
        f"GRU / CNN-ED: fit time x{float(gru[1]) / float(cnn[1]):.1f}, training time "
        f"x{float(gru[2]) / float(cnn[2]):.1f}, time per embedded string "
        f"x{_number(cnn[4]) / _number(gru[4]):.0f}, memory per string "
        f"x{_number(gru[6]) / _number(cnn[6]):.0f}"
    )


def _number(text):
    return float(text.replace(",", ""))


def speed_run(args):
    from sklearn_ed import CNNEDEmbedder, GRUEmbedder
    from sklearn_ed.datasets import make_genome_reads

    reads = make_genome_reads(2000, random_state=0).data
    train, test = reads[:1000], reads[1000:]
    print_header(
        "Training epoch and inference at length ~1,000: GRU vs CNN-ED",
        notes=[
            "make_genome_reads(2000, random_state=0): first 1,000 reads train, last 1,000 "
            "embedded; read lengths 900-1,100",
            f"one epoch = 1,000 triplets in batches of 64; one torch thread per model "
            f"(n_jobs={args.n_jobs}); defaults otherwise (CNN-ED d=128; GRU 64 units, 8 values "
            "per step)",
            "wall times on a shared 2-core machine",
        ],
    )
    rows = []
    models = {
        "CNN-ED": CNNEDEmbedder(max_epochs=1, n_jobs=args.n_jobs, random_state=0),
        "GRU Phase 1": GRUEmbedder(
            phases=(1,), epochs_per_phase=1, n_jobs=args.n_jobs, random_state=0
        ),
        "GRU Phase 3": GRUEmbedder(
            phases=(3,), epochs_per_phase=1, n_jobs=args.n_jobs, random_state=0
        ),
    }
    for name, embedder in models.items():
        progress(f"fit {name}")
        embedder.fit(train)
        epoch_s = embedder.history_[-1]["dur"]
        embedded, transform_s = timed_transform(embedder, test)
        rows.append(
            [
                name,
                f"{epoch_s:.2f}",
                f"{len(test) / transform_s:,.0f}",
                f"{1e3 * transform_s / len(test):.3f}",
                embedded.shape[1],
                f"{embedded.nbytes / len(test):,.0f}",
            ]
        )
    print(
        format_table(
            ["model", "epoch s", "strings/s", "ms per string", "dimension", "bytes per string"],
            rows,
        )
    )
    cnn = rows[0]
    print()
    for row in rows[1:]:
        print(
            f"{row[0]} / CNN-ED: epoch x{float(row[1]) / float(cnn[1]):.0f}, "
            f"time per string x{float(row[3]) / float(cnn[3]):.0f}, memory per string "
            f"x{_number(row[5]) / _number(cnn[5]):.0f}"
        )
    print(
        "Dai et al. (2020), Table 3 (GPU): CNN-ED 2.6x-30x faster to train, "
        "14x-200x faster to embed"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", choices=["genome", "proteins", "speed"], default="genome")
    parser.add_argument("--epochs", type=int, default=5, help="GRU epochs per phase")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args()
    start_time = time.perf_counter()
    if args.dataset == "speed":
        speed_run(args)
    else:
        recall_run(args)
    print_footer(start_time)


if __name__ == "__main__":
    main()
