"""What knn and index share: the search options, their check, the base read and fitted."""

import math
import time

from ..distances import available_metrics, get_metric
from ._errors import usage_error
from ._inputs import check_k, read_base
from ._options import DEFAULT_METRIC, positive, share, threads_and_metric
from ._progress import log, seconds


def search_options(parser, output_help, output_required):
    common = parser.add_argument_group("common options")
    common.add_argument(
        "-k", type=positive, default=10, metavar="INT", help="neighbors per query [10]"
    )
    common.add_argument(
        "-o", "--output", metavar="FILE", required=output_required, help=output_help
    )
    threads_and_metric(common)
    common.add_argument(
        "--exact", action="store_true", help="answers equal brute force's (lossless bounds) [off]"
    )
    search = parser.add_argument_group("search")
    search.add_argument(
        "--n-candidates",
        type=positive,
        metavar="INT",
        help="candidates refined per query [auto, for --target-recall]",
    )
    search.add_argument(
        "--target-recall",
        type=share,
        metavar="FLOAT",
        help="recall the automatic candidate count aims for [0.95]",
    )
    search.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="INT",
        help="random seed of the filter and the recall check [0]",
    )


def check_search_options(options, from_index):
    """Refuse, before any file is read, search options the run cannot honour."""
    if from_index:
        fixed = [flag for flag, value in _index_options(options).items() if value is not None]
        if fixed:
            raise usage_error(
                f"{', '.join(fixed)}: fixed when the index was built; run 'sklearn-ed index' "
                "again to change"
            )
        return
    metric = options.metric or DEFAULT_METRIC
    if options.exact and get_metric(metric).lower_bound is None:
        bounded = [
            name
            for name in available_metrics("strings")
            if get_metric(name).lower_bound is not None
        ]
        raise usage_error(
            f"--exact needs a metric with a lower bound to prune by ({', '.join(bounded)}); "
            f"--metric {metric} has none: drop --exact, or raise --n-candidates for recall"
        )


def _index_options(options):
    return {
        "--metric": options.metric,
        "--exact": options.exact or None,
        "--n-candidates": options.n_candidates,
        "--target-recall": options.target_recall,
    }


def base_records(options, excludes_self):
    """The base's records and alphabet, read and logged; ``-k`` checked against them."""
    records, alphabet = read_base(options.base, options)
    log(
        options,
        f"read {len(records):,} records from {options.base!r}"
        + (f" (alphabet {alphabet})" if alphabet else ""),
    )
    check_k(options.k, len(records), options.base, excludes_self)
    return records, alphabet


def fitted(records, options):
    """FilterRefineNeighbors fitted on the records as the options say."""
    # Here, not at the top: --help loads no scikit-learn (see _commands.py).
    from ..neighbors import FilterRefineNeighbors

    started = time.perf_counter()
    search = FilterRefineNeighbors(
        metric=options.metric or DEFAULT_METRIC,
        n_neighbors=options.k,
        n_candidates=options.n_candidates or "auto",
        target_recall=options.target_recall or 0.95,
        exact=options.exact,
        n_jobs=options.threads,
        random_state=options.seed,
        verbose=int(not options.quiet),
    ).fit(records.sequences)
    log(options, f"fitted in {seconds(started)}: {_fit_summary(search)}")
    return search


def _fit_summary(search):
    if search.embedder_ is None:
        return "brute force: every item compared, exact"
    summary = f"{type(search.embedder_).__name__}, {search.n_candidates_} candidates per query"
    if not math.isnan(search.estimated_recall_):
        summary += f", estimated recall {search.estimated_recall_:.3f}"
    return summary + (", exact" if search.exact else "")
