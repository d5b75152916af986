"""The benchmark suite: every run that produces a file of ``benchmarks/results``.

A run is one benchmark script with fixed arguments. ``python -m benchmarks run
NAME`` executes it from the repository root, keeps what it prints as
``results/NAME.txt`` (headed by the command, git commit, library versions and
machine: ``_common.print_header``), renders the docs' CSV tables from the JSON
results (``render_tables.py``) and records in ``results/provenance.json`` the
SHA-256 of the script it ran. ``tests/test_benchmarks.py`` fails when a
recorded script has changed since (the result is older than its script).
"""

import hashlib
import json
import shlex
from dataclasses import dataclass
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
REPOSITORY = BENCHMARKS.parent
RESULTS = BENCHMARKS / "results"
PROVENANCE = RESULTS / "provenance.json"
# Cached exact distance matrices and datasets, reused across runs (gitignored).
CACHE = REPOSITORY / ".cache" / "benchmarks"


@dataclass(frozen=True)
class Run:
    """One benchmark run: a script, its arguments and the files it writes.

    ``arguments`` (one shell-quoted string) may name ``{results}``
    (``benchmarks/results``) and ``{cache}`` (``.cache/benchmarks``); ``minutes``
    is the time it took on this project's 2-core machines; ``docs`` the page
    that quotes it; ``needs`` the run whose ``--cache`` file it reads (run
    first when the file is missing).
    """

    name: str
    module: str
    arguments: str = ""
    minutes: int = 1
    docs: str = ""
    needs: str = ""

    @property
    def cache_file(self):
        """The ``--cache`` file of the run (a path from the repository root), if any."""
        arguments = self.command("python")[3:]
        if "--cache" not in arguments:
            return None
        return REPOSITORY / arguments[arguments.index("--cache") + 1]

    @property
    def outputs(self):
        """Files the run writes in ``results/``: its printed report, then its ``{results}/``
        arguments."""
        named = [
            a.split("/", 1)[1] for a in shlex.split(self.arguments) if a.startswith("{results}/")
        ]
        return [f"{self.name}.txt", *named]

    @property
    def script(self):
        return BENCHMARKS / f"{self.module}.py"

    def command(self, python):
        """The command line, from the repository root."""
        values = {
            "{results}": str(RESULTS.relative_to(REPOSITORY)),
            "{cache}": str(CACHE.relative_to(REPOSITORY)),
        }
        arguments = shlex.split(self.arguments)
        for placeholder, value in values.items():
            arguments = [argument.replace(placeholder, value) for argument in arguments]
        return [python, "-m", f"benchmarks.{self.module}", *arguments]


RUNS = [
    Run(
        "cgk_speed",
        "bench_cgk_speed",
        "",
        minutes=1,
        docs="benchmarks/cgk",
    ),
    Run(
        "cluster_metric_kmeans",
        "bench_cluster_metric_kmeans",
        "",
        minutes=1,
        docs="benchmarks/cluster_metric",
    ),
    Run(
        "cluster_metric_retrieval",
        "bench_cluster_metric_retrieval",
        "",
        minutes=2,
        docs="benchmarks/cluster_metric",
    ),
    Run(
        "cluster_metric_speed",
        "bench_cluster_metric_speed",
        "",
        minutes=1,
        docs="benchmarks/cluster_metric",
    ),
    Run(
        "cnned_ablation",
        "bench_cnned_ablation",
        "--max-epochs 20 --variants default50,default,channels_relu,max,layers6,layers10 --epochs-override default50:50",
        minutes=14,
        docs="benchmarks/cnned",
    ),
    Run(
        "cnned_coverage",
        "bench_cnned_coverage",
        "--n-query 30 --n-jobs 1",
        minutes=3,
        docs="benchmarks/cnned",
    ),
    Run(
        "cnned_genome_reads",
        "bench_cnned_genome",
        "",
        minutes=12,
        docs="benchmarks/cnned_data",
    ),
    Run(
        "cnned_genome_reads_50k",
        "bench_cnned_recall",
        "--dataset genome --n-base 50000 --n-query 100 --filter-refine --n-jobs 1 --cache '{cache}/cnned_50k' --curves '{cache}/curves_genome50k.npz'",
        minutes=28,
        docs="benchmarks/cnned_data",
    ),
    Run(
        "cnned_proteins",
        "bench_cnned_recall",
        "--dataset proteins --n-query 200 --n-jobs 1 --curves '{cache}/curves_proteins.npz'",
        minutes=6,
        docs="benchmarks/cnned_data",
    ),
    Run(
        "cnned_proteins_homologues",
        "bench_cnned_proteins_homologues",
        "",
        minutes=1,
        docs="benchmarks/cnned_data",
    ),
    Run(
        "cnned_sampling_validation",
        "bench_cnned_sampling",
        '--cache \'{cache}/cnned_sampling\' --variants \'{"train_sampling": "uniform"}\' \'{"train_sampling": "uniform", "seed": 1}\' \'{"neighborhood_size": 10}\' \'{"neighborhood_size": 20}\' \'{"neighborhood_size": 20, "seed": 1}\' \'{"neighborhood_size": 50}\'',
        minutes=6,
        docs="benchmarks/cnned",
    ),
    Run(
        "cnned_speed",
        "bench_cnned_speed",
        "",
        minutes=1,
        docs="benchmarks/cnned_speed",
    ),
    Run(
        "cnned_encode",
        "bench_cnned_encode",
        "",
        minutes=3,
        docs="benchmarks/cnned_speed",
    ),
    Run(
        "cnned_fit_time",
        "bench_cnned_fit_time",
        "",
        minutes=12,
        docs="benchmarks/cnned_speed",
    ),
    Run(
        "cnned_train_time",
        "bench_cnned_train_time",
        "",
        minutes=1,
        docs="benchmarks/cnned_speed",
    ),
    Run(
        "cnned_words",
        "bench_cnned_recall",
        "--dataset words --n-query 1000 --n-jobs 1 --curves '{cache}/curves_words.npz'",
        minutes=19,
        docs="benchmarks/cnned_data",
    ),
    Run(
        "dask",
        "bench_dask",
        "--json '{results}/dask.json'",
        minutes=10,
        docs="user_guide/scaling",
    ),
    Run(
        "dask_join",
        "bench_dask_join",
        "--json '{results}/dask_join.json'",
        minutes=55,
        docs="user_guide/scaling",
    ),
    Run(
        "defaults",
        "bench_defaults",
        "--json '{results}/defaults.json'",
        minutes=25,
        docs="benchmarks/defaults",
    ),
    Run(
        "dtw_exact",
        "bench_dtw_exact",
        "",
        minutes=3,
        docs="benchmarks/index",
    ),
    Run(
        "dtw_kernel",
        "bench_dtw_kernel",
        "--repeats 3",
        minutes=1,
        docs="benchmarks/triplet",
    ),
    Run(
        "embedder_choice",
        "bench_embedder_choice",
        "--json '{results}/embedder_choice.json'",
        minutes=6,
        docs="benchmarks/defaults",
    ),
    Run(
        "genome_reads",
        "bench_genome_reads",
        "--n-query 100",
        minutes=9,
        docs="benchmarks/cgk",
    ),
    Run(
        "gpu",
        "bench_gpu",
        # The sizes of the committed run on an H100 host (16 cores ran the CPU
        # side), which fit one 5-minute call there; without a GPU it exits at once.
        "--n-reads 400000 --n-series 400 --gru-reads 300",
        minutes=1,
        docs="user_guide/gpu",
    ),
    Run(
        "graph_clustering",
        "bench_graph_clustering",
        "--json '{results}/graph_clustering.json'",
        minutes=1,
        docs="benchmarks/defaults",
    ),
    Run(
        "gru_genome",
        "bench_gru_recall",
        "--dataset genome",
        minutes=3,
        docs="benchmarks/gru",
    ),
    Run(
        "gru_hard_cases",
        "bench_gru_hard_cases",
        "",
        minutes=1,
        docs="benchmarks/gru",
    ),
    Run(
        "gru_hard_cases_validation",
        "bench_gru_hard_cases",
        "--test-seed 2",
        minutes=2,
        docs="benchmarks/gru",
    ),
    Run(
        "gru_proteins",
        "bench_gru_recall",
        "--dataset proteins",
        minutes=2,
        docs="benchmarks/gru",
    ),
    Run(
        "gru_speed",
        "bench_gru_recall",
        "--dataset speed",
        minutes=7,
        docs="benchmarks/gru",
    ),
    Run(
        "gru_tuning",
        "bench_gru_tuning",
        "",
        minutes=7,
        docs="benchmarks/gru",
    ),
    Run(
        "index_reads",
        "bench_index_reads",
        "--n-exact 20 --json '{results}/index_reads.json'",
        minutes=25,
        docs="benchmarks/index",
    ),
    Run(
        "index_reads_100k",
        "bench_index",
        "--dataset reads --n-base 100000 --skip-kneighbors --json '{results}/index_reads_100k.json'",
        minutes=10,
        docs="benchmarks/index",
    ),
    Run(
        "index_words",
        "bench_index",
        "--dataset words --json '{results}/index_words.json'",
        minutes=5,
        docs="benchmarks/index",
    ),
    Run(
        "knn_ties",
        "bench_knn_ties",
        "--json '{results}/knn_ties.json'",
        minutes=2,
        docs="user_guide/supervised",
    ),
    Run("metrics", "bench_metrics", "", minutes=10, docs="user_guide/metrics"),
    Run("spell", "bench_spell", "", minutes=11, docs="benchmarks/cgk"),
    Run(
        "triplet_digits",
        "bench_triplet_retrieval",
        "--dataset digits --cache '{cache}/digits.npz'",
        minutes=5,
        docs="benchmarks/triplet_retrieval",
    ),
    Run(
        "triplet_digits_pixels",
        "bench_triplet_retrieval",
        "--dataset digits --cache '{cache}/digits.npz' --digits-input pixels --config 200:0.01:30",
        minutes=7,
        docs="benchmarks/triplet_retrieval",
    ),
    Run(
        "triplet_digits_pixels_thesis",
        "bench_triplet_retrieval",
        "--dataset digits --cache '{cache}/digits.npz' --config 40:default:10 --digits-input pixels",
        minutes=1,
        docs="benchmarks/triplet_retrieval",
    ),
    Run(
        "triplet_digits_thesis",
        "bench_triplet_retrieval",
        "--dataset digits --cache '{cache}/digits.npz' --config 40:default:10",
        minutes=1,
        docs="benchmarks/triplet_retrieval",
    ),
    Run(
        "triplet_gunpoint",
        "bench_triplet_retrieval",
        "--dataset gunpoint --cache '{cache}/gunpoint.npz'",
        minutes=1,
        docs="benchmarks/triplet_dtw",
    ),
    Run(
        "triplet_gunpoint_conv1d",
        "bench_triplet_retrieval",
        "--dataset gunpoint --cache '{cache}/gunpoint.npz' --config 40:default:10 --network conv1d --dims 16 --methods R,FM,GR,GG,GC,RR,RG,RC",
        minutes=1,
        docs="benchmarks/triplet_dtw",
    ),
    Run(
        "triplet_gunpoint_thesis",
        "bench_triplet_retrieval",
        "--dataset gunpoint --cache '{cache}/gunpoint.npz' --config 40:default:10",
        minutes=1,
        docs="benchmarks/triplet_dtw",
    ),
    Run(
        "triplet_italy",
        "bench_triplet_retrieval",
        "--dataset italy --cache '{cache}/italy.npz'",
        minutes=2,
        docs="benchmarks/triplet_dtw",
    ),
    Run(
        "triplet_italy_thesis",
        "bench_triplet_retrieval",
        "--dataset italy --cache '{cache}/italy.npz' --config 40:default:10",
        minutes=1,
        docs="benchmarks/triplet_dtw",
    ),
    Run(
        "triplet_knn_gunpoint",
        "bench_triplet_knn",
        "--dataset gunpoint",
        minutes=2,
        docs="benchmarks/triplet_dtw",
    ),
    Run(
        "triplet_pig",
        "bench_triplet_retrieval",
        "--dataset pig --cache '{cache}/pig.npz'",
        minutes=5,
        docs="benchmarks/triplet_dtw",
    ),
    Run(
        "triplet_pig_thesis",
        "bench_triplet_retrieval",
        "--dataset pig --cache '{cache}/pig.npz' --config 40:default:10",
        minutes=6,
        docs="benchmarks/triplet_dtw",
    ),
    Run(
        "triplet_tuning_digits",
        "bench_triplet_tuning",
        "--cache '{cache}/digits.npz' --digits-input pixels",
        minutes=8,
        docs="benchmarks/triplet",
        needs="triplet_digits",
    ),
    Run(
        "triplet_tuning_digits_edges",
        "bench_triplet_tuning",
        "--dataset digits --cache '{cache}/digits.npz' --methods R,GR,GG,GC,RR,RG,RC --configs 200:0.01:10,200:0.01:30,200:0.01:30:adaptive --n-jobs 2",
        minutes=4,
        docs="benchmarks/triplet",
        needs="triplet_digits",
    ),
    Run(
        "triplet_tuning_digits_seed2",
        "bench_triplet_tuning",
        "--cache '{cache}/digits.npz' --digits-input pixels --val-seeds 2 --configs 200:0.01:10,200:0.01:30 --methods R,GR,RR",
        minutes=3,
        docs="benchmarks/triplet_retrieval",
        needs="triplet_digits",
    ),
    Run(
        "triplet_tuning_gunpoint",
        "bench_triplet_tuning",
        "--dataset gunpoint --cache '{cache}/gunpoint.npz' --methods R,GR,GG,GC,RR,RG,RC --configs 40:default:10,200:default:10,200:0.01:10,200:0.01:30,40:default:10:adaptive,200:default:10:adaptive,200:0.01:10:adaptive,200:0.01:30:adaptive --val-seeds 1,2,3 --n-jobs 2",
        minutes=2,
        docs="benchmarks/triplet",
        needs="triplet_gunpoint",
    ),
    Run(
        "triplet_tuning_italy",
        "bench_triplet_tuning",
        "--dataset italy --cache '{cache}/italy.npz' --methods R,GR,GG,GC,RR,RG,RC --configs 40:default:10,200:default:10,200:0.01:10,200:0.01:30,40:default:10:adaptive,200:default:10:adaptive,200:0.01:10:adaptive,200:0.01:30:adaptive --n-jobs 2",
        minutes=5,
        docs="benchmarks/triplet",
        needs="triplet_italy",
    ),
    Run("triplet_seeds", "bench_triplet_seeds", "", minutes=15, docs="benchmarks/triplet"),
    Run(
        "triplet_tuning_pig",
        "bench_triplet_tuning",
        "--dataset pig --cache '{cache}/pig.npz' --no-fastmap --methods R,GR,GG,GC,RR,RG,RC --configs 40:default:10,200:default:10,200:0.01:10,200:0.01:30,40:default:10:adaptive,200:default:10:adaptive,200:0.01:10:adaptive,200:0.01:30:adaptive --val-seeds 1,2,3 --n-jobs 2",
        minutes=9,
        docs="benchmarks/triplet",
        needs="triplet_pig",
    ),
    Run("command_line", "bench_command_line", "", minutes=20, docs="user_guide/command_line"),
    Run(
        "dedup",
        "bench_dedup",
        "--json '{results}/dedup.json'",
        minutes=40,
        docs="user_guide/dedup",
    ),
    Run(
        "records",
        "bench_records",
        "--json '{results}/records.json'",
        minutes=20,
        docs="user_guide/records",
    ),
    Run(
        "records_link",
        "bench_records_link",
        "--json '{results}/records_link.json'",
        minutes=5,
        docs="user_guide/records",
    ),
    Run(
        "records_blocking",
        "bench_records_blocking",
        "--json '{results}/records_blocking.json'",
        minutes=12,
        docs="user_guide/records",
    ),
    Run(
        "matrix_joins",
        "bench_matrix",
        "--part join --bases records:10000 names:10000 words:10000 "
        "--metrics levenshtein,normalized_levenshtein,normalized_indel,jaro,jaro_winkler "
        "--processors none,sort_tokens --n-judged 200 --cell-timeout 300 "
        "--json '{results}/matrix_joins.json'",
        minutes=14,
        docs="benchmarks/matrix",
    ),
    Run(
        "matrix_joins_100k",
        "bench_matrix",
        "--part join --bases records:100000 names:100000 words:100000 "
        "--metrics levenshtein,normalized_levenshtein,normalized_indel,jaro,jaro_winkler "
        "--processors none,sort_tokens --thresholds levenshtein=2 "
        "normalized_levenshtein=0.15 normalized_indel=0.15 jaro=0.1 jaro_winkler=0.1 "
        "--n-judged 200 --cell-timeout 300 --json '{results}/matrix_joins_100k.json'",
        minutes=30,
        docs="benchmarks/matrix",
    ),
    Run(
        "matrix_joins_100k_records",
        "bench_matrix",
        "--part join --bases records:100000 "
        "--metrics normalized_levenshtein,normalized_indel --processors none,sort_tokens "
        "--thresholds normalized_levenshtein=0.15 normalized_indel=0.15 "
        "--n-judged 200 --cell-timeout 300 "
        "--json '{results}/matrix_joins_100k_records.json'",
        minutes=10,
        docs="benchmarks/matrix",
    ),
    Run(
        "join_auto",
        "bench_join_auto",
        "--json '{results}/join_auto.json'",
        minutes=5,
        docs="benchmarks/matrix",
    ),
    Run("shared_characters", "bench_shared_characters", minutes=3, docs="user_guide/dedup"),
    Run("oriented_cdist", "bench_oriented_cdist", minutes=3, docs="user_guide/choosing"),
    Run(
        "matrix_knn_records",
        "bench_matrix",
        "--part knn --bases records:5000,50000 "
        "--metrics normalized_levenshtein,normalized_indel,jaro,jaro_winkler,token_set "
        "--processors default,sort_tokens --queries edits1,edits2,keyboard,ocr,sampled "
        "--k 1,10 --n-queries 1000 --n-judged 200 --cell-timeout 600 "
        "--json '{results}/matrix_knn_records.json'",
        minutes=19,
        docs="benchmarks/matrix_knn",
    ),
    Run(
        "matrix_knn_records_100k",
        "bench_matrix",
        "--part knn --bases records:100000 "
        "--metrics normalized_levenshtein,normalized_indel,jaro,jaro_winkler "
        "--processors default --queries edits1,keyboard,sampled "
        "--k 1,10 --n-queries 1000 --n-judged 200 --cell-timeout 900 "
        "--json '{results}/matrix_knn_records_100k.json'",
        minutes=12,
        docs="benchmarks/matrix_knn",
    ),
    Run(
        "matrix_knn_words",
        "bench_matrix",
        "--part knn --bases multilingual:1000000 words:300000,1000000 "
        "--metrics levenshtein --processors none "
        "--queries codespell,edits1,edits2,edits3,keyboard,ocr,transpose,sampled "
        "--k 1 --n-queries 1000 --n-judged 200 --cell-timeout 900 "
        "--json '{results}/matrix_knn_words.json'",
        minutes=15,
        docs="benchmarks/matrix_words",
    ),
    Run("partial_fit", "bench_partial_fit", "", minutes=4, docs="user_guide/index"),
    Run(
        "words_scale",
        "bench_words_scale",
        "--json '{results}/words_scale.json'",
        minutes=20,
        docs="benchmarks/index",
    ),
    Run(
        "strings_10m",
        "bench_strings_10m",
        "--json '{results}/strings_10m.json'",
        minutes=4,
        docs="user_guide/scaling",
    ),
    Run(
        "reads_1m",
        "bench_reads_1m",
        "--json '{results}/reads_1m.json'",
        minutes=25,
        docs="user_guide/scaling",
    ),
    Run(
        "reads_all_vs_all",
        "bench_reads_all_vs_all",
        "--json '{results}/reads_all_vs_all.json'",
        minutes=30,
        docs="user_guide/scaling",
    ),
    Run(
        "recipes",
        "bench_recipes",
        "--json '{results}/recipes.json'",
        minutes=5,
        docs="recipes",
    ),
    Run(
        "words",
        "bench_words",
        "--json '{results}/words.json' --csv '{results}/words.csv'",
        minutes=3,
        docs="benchmarks/index",
    ),
]
RUNS_BY_NAME = {run.name: run for run in RUNS}
# Tables the docs include, rendered from the JSON results after every run.
RENDERED = [
    "defaults_reads.csv",
    "defaults_classifier.csv",
    "defaults_summary.csv",
    "defaults_radius.csv",
    "embedder_choice.csv",
    "graph_clustering.csv",
    "headline.csv",
    "knn_ties_accuracy.csv",
    "knn_ties_agreement.csv",
    "recipes.csv",
    "records_febrl1.csv",
    "records_febrl2.csv",
    "records_scale.csv",
    "records_link.csv",
    "records_blocking.csv",
    "words_scale.csv",
]


def script_digest(run):
    """SHA-256 of the run's script as it is now."""
    return hashlib.sha256(run.script.read_bytes()).hexdigest()


def library_digest():
    """SHA-256 of the library's source (every ``sklearn_ed/**/*.py``, by path)."""
    digest = hashlib.sha256()
    for path in sorted((REPOSITORY / "sklearn_ed").rglob("*.py")):
        digest.update(str(path.relative_to(REPOSITORY)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def provenance():
    """``{run name: record}`` of the runs made by the runner."""
    return json.loads(PROVENANCE.read_text()) if PROVENANCE.exists() else {}


def status(run, records=None, library=None):
    """``"fresh"``, ``"stale"`` (script changed since the run), ``"library
    changed"`` (the script did not, the library's source did, or the run
    predates the library's hash) or ``"not rerun"`` (predates the runner)."""
    record = (provenance() if records is None else records).get(run.name)
    if record is None:
        return "not rerun"
    if record["script_sha256"] != script_digest(run):
        return "stale"
    library = library_digest() if library is None else library
    return "fresh" if record.get("library_sha256") == library else "library changed"
