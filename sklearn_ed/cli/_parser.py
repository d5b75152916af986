"""The command line's options, laid out as minimap2 lays out its help."""

import argparse

from ..distances import available_metrics, get_metric
from ..io import ALPHABETS
from ._errors import EXIT_CODES_HELP

DESCRIPTION = """\
Nearest neighbors under edit distance (and other string metrics) for
sequence files and lists of strings: candidates by a cheap filter, answers
by the exact distance. Input: FASTA/FASTQ (plain or gzip), text (one string
per line) or a CSV/TSV column. Output: TSV with a header line
(query, target, distance, rank)."""

KNN_EXAMPLES = """\
examples:
  sklearn-ed knn reads.fq.gz -k 10 -o ava.tsv          all-vs-all, self excluded
  sklearn-ed knn genes.fa queries.fq -k 5 -o hits.tsv  queries against a base
  sklearn-ed knn words.txt typos.txt -k 1              one string per line
  sklearn-ed knn base.sked queries.fa -k 10            a saved index as the base"""


def string_metrics():
    return [name for name in available_metrics() if get_metric(name).input_type == "strings"]


def build_parser():
    parser = argparse.ArgumentParser(
        prog="sklearn-ed",
        usage="sklearn-ed <command> [options] ...",
        description=DESCRIPTION,
        epilog="commands:\n  knn    k nearest neighbors (TSV)\n  index  save an index for knn"
        "\n\nRun 'sklearn-ed <command> -h' for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(
        dest="command", metavar="<command>", required=True, help=argparse.SUPPRESS
    )
    knn = commands.add_parser(
        "knn",
        usage="sklearn-ed knn [options] BASE|INDEX [QUERIES]",
        description="The k nearest BASE records of each query, exact distances, as TSV.",
        epilog=f"{KNN_EXAMPLES}\n\n{EXIT_CODES_HELP}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    knn.add_argument("base", metavar="BASE|INDEX", help=argparse.SUPPRESS)
    knn.add_argument("queries", metavar="QUERIES", nargs="?", help=argparse.SUPPRESS)
    _add_options(knn, output_help="output TSV [stdout]", output_required=False)
    index = commands.add_parser(
        "index",
        usage="sklearn-ed index [options] -o INDEX BASE",
        description="Fit on BASE once and save the index folder 'sklearn-ed knn' reuses.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    index.add_argument("base", metavar="BASE", help=argparse.SUPPRESS)
    _add_options(index, output_help="index folder to write (required)", output_required=True)
    return parser


def _add_options(parser, output_help, output_required):
    common = parser.add_argument_group("common options")
    common.add_argument(
        "-k", type=_positive, default=10, metavar="INT", help="neighbors per query [10]"
    )
    common.add_argument(
        "-o", "--output", metavar="FILE", required=output_required, help=output_help
    )
    common.add_argument(
        "-t", "--threads", type=_positive, default=None, metavar="INT", help="threads [all cores]"
    )
    common.add_argument(
        "--exact", action="store_true", help="answers equal brute force's (lossless bounds) [off]"
    )
    common.add_argument(
        "--metric",
        choices=string_metrics(),
        default=None,
        metavar="NAME",
        help="distance: " + ", ".join(string_metrics()) + " [levenshtein]",
    )
    inputs = parser.add_argument_group("input")
    inputs.add_argument(
        "--format",
        choices=("auto", "fasta", "fastq", "text", "table"),
        default="auto",
        help="input format [auto: .csv/.tsv is a table, "
        "'>' or '@' first is FASTA/FASTQ, else text: one string per line]",
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
        "[FASTA/FASTQ: inferred from BASE, queries must fit it]",
    )
    inputs.add_argument(
        "--uppercase", action="store_true", help="upper-case sequences first (soft-masked FASTA)"
    )
    search = parser.add_argument_group("search")
    search.add_argument(
        "--n-candidates",
        type=_positive,
        metavar="INT",
        help="candidates refined per query [auto, for --target-recall]",
    )
    search.add_argument(
        "--target-recall",
        type=_share,
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
    other = parser.add_argument_group("other")
    other.add_argument("-f", "--force", action="store_true", help="replace an existing output")
    other.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    other.add_argument("--debug", action="store_true", help="a traceback on internal errors")
    other.add_argument("-h", "--help", action="help", help="show this help and exit")


def _positive(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _share(text):
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}")
    return value


def _version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"sklearn-ed {version('sklearn-ed')}"
    except PackageNotFoundError:
        return "sklearn-ed (not installed)"
