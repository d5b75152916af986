"""``sklearn-ed dedup``: each record's group of near duplicates as TSV."""

import argparse
import time

from ..io import write_groups
from ._inputs import check_inputs, read_base
from ._output import table_output
from ._progress import log, seconds
from ._threshold import checked_metric, threshold_options

NAME = "dedup"
HELP = "groups of near duplicates (name, group, representative)"
OPERANDS = "--threshold T INPUT"
DESCRIPTION = (
    "Groups of near-duplicate records: each record's group and the name "
    "of its group's representative, as TSV."
)
EXAMPLES = """\
examples:
  sklearn-ed dedup people.csv --column name --name-column id --min-similarity 0.85 \\
      --metric normalized_indel --processor default_sort_tokens -o groups.tsv"""


def add_arguments(parser):
    parser.add_argument("input", metavar="INPUT", help=argparse.SUPPRESS)
    threshold_options(parser, linkage=True)


def run(options):
    """Each record's group and its group's representative as TSV."""
    # Here, not at the top: --help loads no scikit-learn (see _commands.py).
    from ..dedup import StringDeduplicator

    metric = checked_metric(options)
    check_inputs([options.input], options)
    with table_output(options.output, options.force, [options.input]) as out:
        records, _ = read_base(options.input, options)
        started = time.perf_counter()
        dedup = StringDeduplicator(
            options.threshold,
            min_similarity=options.min_similarity,
            metric=metric,
            processor=options.processor,
            linkage=options.linkage,
            method=options.method,
            n_jobs=options.threads,
        ).fit(records.sequences)
        representatives = records.names[dedup.representatives_[dedup.labels_]]
        out.write("name\tgroup\trepresentative\n")
        write_groups(out, records.names, dedup.labels_, representatives)
    log(
        options,
        f"{len(records):,} records in {dedup.n_groups_:,} groups (largest "
        f"{dedup.group_sizes_.max():,}) from {dedup.n_pairs_:,} pairs in {seconds(started)}",
    )
