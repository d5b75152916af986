"""Options more than one subcommand takes, and the checks of their values.

Every subcommand gets the input and other groups (``build_parser`` adds
them); ``threads_and_metric`` goes into a subcommand's common options.
"""

import argparse

from ..distances import available_metrics
from ..io import ALPHABETS

DEFAULT_METRIC = "levenshtein"


def string_metrics():
    return available_metrics("strings")


def threads_and_metric(group):
    group.add_argument(
        "-t", "--threads", type=positive, default=-1, metavar="INT", help="threads [all cores]"
    )
    group.add_argument(
        "--metric",
        choices=string_metrics(),
        default=None,
        metavar="NAME",
        help="distance: " + ", ".join(string_metrics()) + f" [{DEFAULT_METRIC}]",
    )


def input_options(parser):
    inputs = parser.add_argument_group("input")
    inputs.add_argument(
        "--format",
        choices=("auto", "fasta", "fastq", "text", "table"),
        default="auto",
        help="input format [auto: .csv/.tsv/.tab is a table, .fa/.fq/.fasta/.fastq "
        "or '>' or '@' first is FASTA/FASTQ, else text: one string per line]",
    )
    inputs.add_argument(
        "--column",
        metavar="NAME",
        help="the column of strings of a table (CSV/TSV with a header row)",
    )
    inputs.add_argument(
        "--name-column", metavar="NAME", help="the table's column of record names [row number]"
    )
    inputs.add_argument(
        "--alphabet",
        choices=(*ALPHABETS, "any"),
        metavar="NAME",
        help=f"allowed letters: {', '.join(ALPHABETS)}, any "
        "[FASTA/FASTQ: inferred from the first file, the others must fit it]",
    )
    inputs.add_argument(
        "--uppercase", action="store_true", help="upper-case sequences first (soft-masked FASTA)"
    )


def other_options(parser):
    other = parser.add_argument_group("other")
    other.add_argument("-f", "--force", action="store_true", help="replace an existing output")
    other.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    other.add_argument("--debug", action="store_true", help="a traceback on internal errors")
    other.add_argument("-h", "--help", action="help", help="show this help and exit")


def _number(text, kind, check, expected):
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not check(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def positive(text):
    return _number(text, int, lambda value: value >= 1, "a positive integer")


def share(text):
    return _number(text, float, lambda value: 0 < value <= 1, "a number in (0, 1]")


def distance(text):
    return _number(text, float, lambda value: value >= 0, "a distance >= 0")
