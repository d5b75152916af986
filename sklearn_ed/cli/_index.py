"""``sklearn-ed index``: fit on a base once and save the index folder knn reuses."""

import argparse

from ._fitting import base_records, check_search_options, fitted, search_options
from ._inputs import check_inputs
from ._output import index_output
from ._progress import log
from ._saved_index import write_index

NAME = "index"
HELP = "fit on a base once and save it for knn"
OPERANDS = "-o INDEX BASE"
DESCRIPTION = "Fit on BASE once and save the index folder 'sklearn-ed knn' reuses."
EXAMPLES = ""


def add_arguments(parser):
    parser.add_argument("base", metavar="BASE", help=argparse.SUPPRESS)
    search_options(parser, "index folder to write (required)", output_required=True)


def run(options):
    """Fit on BASE and write the index folder that knn takes in place of BASE."""
    check_search_options(options, from_index=False)
    check_inputs([options.base], options)
    with index_output(options.output, options.force, [options.base]) as folder:
        records, alphabet = base_records(options, excludes_self=False)
        write_index(folder, fitted(records, options), records.names, alphabet)
    log(options, f"wrote the index of {len(records):,} records to {options.output!r}")
