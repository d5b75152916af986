"""The subcommands, each a thin layer over FilterRefineNeighbors and the io readers."""

import math
import sys
import time

from ..distances import available_metrics, get_metric
from ..io import COLUMNS, write_neighbors
from ..neighbors import FilterRefineNeighbors
from ._errors import usage_error
from ._inputs import check_inputs, check_k, read_base, read_queries
from ._output import index_output, table_output
from ._saved_index import is_saved_index, read_index, write_index

DEFAULT_METRIC = "levenshtein"


def run_knn(options):
    """Each query's k nearest base records as TSV; all-vs-all without QUERIES."""
    all_vs_all = options.queries is None
    inputs = [options.base] if all_vs_all else [options.base, options.queries]
    from_index = is_saved_index(options.base)
    _check_search_options(options, from_index)
    check_inputs(inputs[from_index:], options)
    with table_output(options.output, options.force, options.stdout, inputs) as out:
        search, names, queries = _search_and_queries(options, from_index, all_vs_all)
        started = time.perf_counter()
        n_rows = 0
        out.write("\t".join(COLUMNS) + "\n")
        if all_vs_all:
            distances, indices = search.kneighbors(None, options.k)
            write_neighbors(out, distances, indices, names, names)
            n_rows = distances.size
        else:
            for chunk in queries():
                distances, indices = search.kneighbors(chunk.sequences, options.k)
                write_neighbors(out, distances, indices, chunk.names, names)
                n_rows += distances.size
    where = "stdout" if options.output in (None, "-") else repr(options.output)
    log(options, f"wrote {n_rows:,} neighbors to {where} in {seconds(started)}")


def run_index(options):
    """Fit on BASE and write the index folder that knn takes in place of BASE."""
    _check_search_options(options, from_index=False)
    check_inputs([options.base], options)
    with index_output(options.output, options.force, [options.base]) as folder:
        records, alphabet = _base_records(options, excludes_self=False)
        write_index(folder, _fitted(records, options), records.names, alphabet)
    log(options, f"wrote the index of {len(records):,} records to {options.output!r}")


def _check_search_options(options, from_index):
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


def _search_and_queries(options, from_index, all_vs_all):
    """The search, the base's names and the queries; every input is read before the fit."""
    if from_index:
        search, names, alphabet = _loaded_index(options, all_vs_all)
    else:
        records, alphabet = _base_records(options, all_vs_all)
        names = records.names
    queries = None if all_vs_all else read_queries(options.queries, options, alphabet)
    if not from_index:
        search = _fitted(records, options)
    return search, names, queries


def _loaded_index(options, excludes_self):
    search, names, alphabet = read_index(options.base)
    if options.alphabet is not None:
        alphabet = None if options.alphabet == "any" else options.alphabet
    check_k(options.k, search.n_samples_fit_, options.base, excludes_self)
    search.set_params(n_jobs=options.threads, verbose=int(not options.quiet))
    log(options, f"loaded the index of {search.n_samples_fit_:,} records from {options.base!r}")
    return search, names, alphabet


def _index_options(options):
    return {
        "--metric": options.metric,
        "--exact": options.exact or None,
        "--n-candidates": options.n_candidates,
        "--target-recall": options.target_recall,
    }


def _base_records(options, excludes_self):
    records, alphabet = read_base(options.base, options)
    log(
        options,
        f"read {len(records):,} records from {options.base!r}"
        + (f" (alphabet {alphabet})" if alphabet else ""),
    )
    check_k(options.k, len(records), options.base, excludes_self)
    return records, alphabet


def _fitted(records, options):
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
    summary = f"{type(search.embedder_).__name__}, {search.n_candidates_} candidates per query"
    if not math.isnan(search.estimated_recall_):
        summary += f", estimated recall {search.estimated_recall_:.3f}"
    return summary + (", exact" if search.exact else "")


def seconds(started):
    return f"{time.perf_counter() - started:.1f} s"


def log(options, message):
    if not options.quiet:
        print(f"[sklearn-ed] {message}", file=sys.stderr, flush=True)
