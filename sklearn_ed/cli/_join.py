"""``sklearn-ed join``: every pair within a threshold as TSV, streamed."""

import argparse
import time

from ..io import write_pairs
from ..join import iter_similarity_join
from ._inputs import check_inputs, iter_records, read_base
from ._output import table_output
from ._progress import log, seconds
from ._threshold import checked_metric, threshold_options

NAME = "join"
HELP = "every pair within a threshold (left, right, distance)"
OPERANDS = "--threshold T LEFT [RIGHT]"
DESCRIPTION = (
    "Every pair of LEFT and RIGHT (or of LEFT with itself, each pair once) "
    "within a threshold, exactly, as TSV."
)
EXAMPLES = """\
examples:
  sklearn-ed join names.txt --threshold 2 -o pairs.tsv          pairs within 2 edits
  sklearn-ed join a.csv b.csv --column name --min-similarity 0.85 \\
      --metric normalized_indel --processor default_sort_tokens"""


def add_arguments(parser):
    parser.add_argument("left", metavar="LEFT", help=argparse.SUPPRESS)
    parser.add_argument("right", metavar="RIGHT", nargs="?", help=argparse.SUPPRESS)
    threshold_options(parser)


def run(options):
    """Every pair within the threshold as TSV (left, right, distance), streamed."""
    metric = checked_metric(options)
    inputs = [options.left] if options.right is None else [options.left, options.right]
    check_inputs(inputs, options)
    with table_output(options.output, options.force, inputs) as out:
        left, alphabet = read_base(options.left, options)
        right = None
        if options.right is not None:
            right = next(iter_records(options.right, options, chunk_size=None, alphabet=alphabet))
        started = time.perf_counter()
        blocks = iter_similarity_join(
            left.sequences,
            None if right is None else right.sequences,
            threshold=options.threshold,
            min_similarity=options.min_similarity,
            metric=metric,
            processor=options.processor,
            method=options.method,
            n_jobs=options.threads,
        )
        n_pairs = 0
        right_names = left.names if right is None else right.names
        out.write("left\tright\tdistance\n")
        for rows, columns, distances in blocks:
            write_pairs(out, rows, columns, distances, left.names, right_names)
            n_pairs += len(rows)
    log(options, f"wrote {n_pairs:,} pairs in {seconds(started)}")
