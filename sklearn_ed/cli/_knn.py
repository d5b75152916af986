"""``sklearn-ed knn``: each query's k nearest base records as TSV."""

import argparse
import time

from ..io import COLUMNS, write_neighbors
from ._fitting import base_records, check_search_options, fitted, search_options
from ._inputs import check_inputs, check_k, read_queries
from ._output import table_output
from ._progress import log, seconds
from ._saved_index import is_saved_index, read_index

NAME = "knn"
HELP = "the k nearest records of each query (query, target, distance, rank)"
OPERANDS = "BASE|INDEX [QUERIES]"
DESCRIPTION = "The k nearest BASE records of each query, exact distances, as TSV."
EXAMPLES = """\
examples:
  sklearn-ed knn reads.fq.gz -k 10 -o ava.tsv          all-vs-all, self excluded
  sklearn-ed knn genes.fa queries.fq -k 5 -o hits.tsv  queries against a base
  sklearn-ed knn words.txt typos.txt -k 1              one string per line
  sklearn-ed knn base.sked queries.fa -k 10            a saved index as the base"""


def add_arguments(parser):
    parser.add_argument("base", metavar="BASE|INDEX", help=argparse.SUPPRESS)
    parser.add_argument("queries", metavar="QUERIES", nargs="?", help=argparse.SUPPRESS)
    search_options(parser, "output TSV [stdout]", output_required=False)


def run(options):
    """Each query's k nearest base records as TSV; all-vs-all without QUERIES."""
    all_vs_all = options.queries is None
    inputs = [options.base] if all_vs_all else [options.base, options.queries]
    from_index = is_saved_index(options.base)
    check_search_options(options, from_index)
    check_inputs(inputs[from_index:], options)
    with table_output(options.output, options.force, inputs) as out:
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


def _search_and_queries(options, from_index, all_vs_all):
    """The search, the base's names and the queries; every input is read before the fit."""
    if from_index:
        search, names, alphabet = _loaded_index(options, all_vs_all)
    else:
        records, alphabet = base_records(options, all_vs_all)
        names = records.names
    queries = None if all_vs_all else read_queries(options.queries, options, alphabet)
    if not from_index:
        search = fitted(records, options)
    return search, names, queries


def _loaded_index(options, excludes_self):
    search, names, alphabet = read_index(options.base)
    if options.alphabet is not None:
        alphabet = None if options.alphabet == "any" else options.alphabet
    check_k(options.k, search.n_samples_fit_, options.base, excludes_self)
    search.set_params(n_jobs=options.threads, verbose=int(not options.quiet))
    log(options, f"loaded the index of {search.n_samples_fit_:,} records from {options.base!r}")
    return search, names, alphabet
