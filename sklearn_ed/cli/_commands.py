"""The subcommands, each a thin layer over FilterRefineNeighbors and the io readers."""

import math
import os
import sys
import time

from ..io import COLUMNS, write_neighbors
from ..neighbors import FilterRefineNeighbors
from ._errors import usage_error
from ._inputs import check_k, input_kind, iter_records, read_base
from ._output import check_output_path, output_folder, output_text
from ._saved_index import is_saved_index, read_index, write_index

DEFAULT_METRIC = "levenshtein"


def run_knn(options):
    """Each query's k nearest base records as TSV; all-vs-all without QUERIES."""
    check_output_path(options.output, options.force)
    all_vs_all = options.queries is None
    if not all_vs_all:
        input_kind(options.queries, options)  # a missing query file fails before the fit
    search, names, alphabet = _base_search(options, excludes_self=all_vs_all)
    started = time.perf_counter()
    n_rows = 0
    with output_text(options.output, options.stdout) as out:
        out.write("\t".join(COLUMNS) + "\n")
        if all_vs_all:
            distances, indices = search.kneighbors(None, options.k)
            write_neighbors(out, distances, indices, names, names)
            n_rows = distances.size
        else:
            for chunk in iter_records(options.queries, options, alphabet=alphabet):
                distances, indices = search.kneighbors(chunk.sequences, options.k)
                write_neighbors(out, distances, indices, chunk.names, names)
                n_rows += distances.size
    where = "stdout" if options.output in (None, "-") else repr(options.output)
    log(options, f"wrote {n_rows:,} neighbors to {where} in {seconds(started)}")


def run_index(options):
    """Fit on BASE and write the index folder that knn takes in place of BASE."""
    _check_index_output(options.output, options.force)
    records, alphabet, search = _fitted(options, excludes_self=False)
    with output_folder(options.output) as folder:
        write_index(folder, search, records.names, alphabet)
    log(options, f"wrote the index of {len(records):,} records to {options.output!r}")


def _check_index_output(path, force):
    check_output_path(path, force)
    if force and os.path.isdir(path) and not is_saved_index(path):
        raise usage_error(f"{path!r} is a folder but not an index; --force replaces only indexes")


def _base_search(options, excludes_self):
    """The fitted search, the base's names, and the alphabet queries must keep to."""
    if not is_saved_index(options.base):
        records, alphabet, search = _fitted(options, excludes_self)
        return search, records.names, alphabet
    fixed = [flag for flag, value in _index_options(options).items() if value is not None]
    if fixed:
        raise usage_error(
            f"{', '.join(fixed)}: fixed when the index was built; run 'sklearn-ed index' "
            "again to change"
        )
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


def _fitted(options, excludes_self):
    started = time.perf_counter()
    records, alphabet = read_base(options.base, options)
    log(
        options,
        f"read {len(records):,} records from {options.base!r}"
        + (f" (alphabet {alphabet})" if alphabet else ""),
    )
    check_k(options.k, len(records), options.base, excludes_self)
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
    return records, alphabet, search


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
