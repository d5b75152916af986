"""The command line's options, laid out as minimap2 lays out its help."""

import argparse

from ..distances import available_metrics
from ..io import ALPHABETS
from ..utils import PROCESSORS
from ._errors import EXIT_CODES_HELP

DESCRIPTION = """\
Nearest neighbors, similarity joins and deduplication under edit distance
(and other string metrics) for sequence files and lists of strings. Input:
FASTA/FASTQ (plain or gzip), text (one string per line) or a CSV/TSV column.
Output: TSV with a header line, records named as in the input."""

COMMANDS_HELP = """\
commands:
  knn    the k nearest records of each query (query, target, distance, rank)
  index  fit on a base once and save it for knn
  join   every pair within a threshold (left, right, distance)
  dedup  groups of near duplicates (name, group, representative)

Run 'sklearn-ed <command> -h' for a command's options."""

KNN_EXAMPLES = """\
examples:
  sklearn-ed knn reads.fq.gz -k 10 -o ava.tsv          all-vs-all, self excluded
  sklearn-ed knn genes.fa queries.fq -k 5 -o hits.tsv  queries against a base
  sklearn-ed knn words.txt typos.txt -k 1              one string per line
  sklearn-ed knn base.sked queries.fa -k 10            a saved index as the base"""

JOIN_EXAMPLES = """\
examples:
  sklearn-ed join names.txt --threshold 2 -o pairs.tsv          pairs within 2 edits
  sklearn-ed join a.csv b.csv --column name --min-similarity 0.85 \\
      --metric normalized_indel --processor default_sort_tokens"""

DEDUP_EXAMPLES = """\
examples:
  sklearn-ed dedup people.csv --column name --name-column id --min-similarity 0.85 \\
      --metric normalized_indel --processor default_sort_tokens -o groups.tsv"""


def string_metrics():
    return available_metrics("strings")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="sklearn-ed",
        usage="sklearn-ed <command> [options] ...",
        description=DESCRIPTION,
        epilog=COMMANDS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(
        dest="command", metavar="<command>", required=True, help=argparse.SUPPRESS
    )
    knn = _command(
        commands,
        "knn",
        "BASE|INDEX [QUERIES]",
        KNN_EXAMPLES,
        "The k nearest BASE records of each query, exact distances, as TSV.",
    )
    knn.add_argument("base", metavar="BASE|INDEX", help=argparse.SUPPRESS)
    knn.add_argument("queries", metavar="QUERIES", nargs="?", help=argparse.SUPPRESS)
    _search_options(knn, "output TSV [stdout]", output_required=False)
    index = _command(
        commands,
        "index",
        "-o INDEX BASE",
        "",
        "Fit on BASE once and save the index folder 'sklearn-ed knn' reuses.",
    )
    index.add_argument("base", metavar="BASE", help=argparse.SUPPRESS)
    _search_options(index, "index folder to write (required)", output_required=True)
    join = _command(
        commands,
        "join",
        "--threshold T LEFT [RIGHT]",
        JOIN_EXAMPLES,
        "Every pair of LEFT and RIGHT (or of LEFT with itself, each pair once) "
        "within a threshold, exactly, as TSV.",
    )
    join.add_argument("left", metavar="LEFT", help=argparse.SUPPRESS)
    join.add_argument("right", metavar="RIGHT", nargs="?", help=argparse.SUPPRESS)
    _threshold_options(join)
    dedup = _command(
        commands,
        "dedup",
        "--threshold T INPUT",
        DEDUP_EXAMPLES,
        "Groups of near-duplicate records: each record's group and the name "
        "of its group's representative, as TSV.",
    )
    dedup.add_argument("input", metavar="INPUT", help=argparse.SUPPRESS)
    _threshold_options(dedup, linkage=True)
    for command in (knn, index, join, dedup):
        _input_options(command)
        _other_options(command)
    return parser


def _command(commands, name, operands, examples, description):
    return commands.add_parser(
        name,
        usage=f"sklearn-ed {name} [options] {operands}",
        description=description,
        epilog=f"{examples}\n\n{EXIT_CODES_HELP}".lstrip(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )


def _search_options(parser, output_help, output_required):
    common = parser.add_argument_group("common options")
    common.add_argument(
        "-k", type=_positive, default=10, metavar="INT", help="neighbors per query [10]"
    )
    common.add_argument(
        "-o", "--output", metavar="FILE", required=output_required, help=output_help
    )
    _threads_and_metric(common)
    common.add_argument(
        "--exact", action="store_true", help="answers equal brute force's (lossless bounds) [off]"
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


def _threshold_options(parser, linkage=False):
    common = parser.add_argument_group("common options")
    common.add_argument(
        "--threshold",
        type=_distance,
        metavar="FLOAT",
        help="largest distance kept, in the metric's unit",
    )
    common.add_argument(
        "--min-similarity",
        type=_share,
        metavar="FLOAT",
        help="instead of --threshold for a normalized metric: smallest "
        "1 - distance kept (rapidfuzz score 85 is 0.85)",
    )
    common.add_argument("-o", "--output", metavar="FILE", help="output TSV [stdout]")
    _threads_and_metric(common)
    common.add_argument(
        "--processor",
        choices=sorted(PROCESSORS),
        metavar="NAME",
        help="applied to every string first: " + ", ".join(sorted(PROCESSORS)),
    )
    if linkage:
        common.add_argument(
            "--linkage",
            choices=("representative", "complete", "connected"),
            default="representative",
            metavar="NAME",
            help="representative (every member near its group's "
            "representative), complete (every pair near), connected "
            "(chains) [representative]",
        )
    common.add_argument(
        "--method",
        choices=("auto", "partition", "brute"),
        default="auto",
        help="how pairs are found [auto]",
    )


def _threads_and_metric(group):
    group.add_argument(
        "-t", "--threads", type=_positive, default=-1, metavar="INT", help="threads [all cores]"
    )
    group.add_argument(
        "--metric",
        choices=string_metrics(),
        default=None,
        metavar="NAME",
        help="distance: " + ", ".join(string_metrics()) + " [levenshtein]",
    )


def _input_options(parser):
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


def _other_options(parser):
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


def _positive(text):
    return _number(text, int, lambda value: value >= 1, "a positive integer")


def _share(text):
    return _number(text, float, lambda value: 0 < value <= 1, "a number in (0, 1]")


def _distance(text):
    return _number(text, float, lambda value: value >= 0, "a distance >= 0")


def _version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"sklearn-ed {version('sklearn-ed')}"
    except PackageNotFoundError:
        return "sklearn-ed (not installed)"
