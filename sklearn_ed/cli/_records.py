"""``sklearn-ed records``: a table's duplicates compared column by column, or two tables linked."""

import argparse
import time

from ..io import tsv_field, uncompressed_name
from ._errors import input_error, usage_error
from ._inputs import TABLE_SUFFIXES
from ._options import positive, share, string_metrics
from ._output import table_output
from ._progress import log, seconds

NAME = "records"
HELP = "duplicate records of a table on several columns (name, group)"
OPERANDS = "--columns NAMES TABLE [OTHER]"
DESCRIPTION = (
    "Groups of records of a CSV/TSV table that stand for one entity, each column "
    "compared with its own metric and match weights learned without labels "
    "(Fellegi-Sunter); with OTHER, the two tables linked (the model learned on the "
    "pairs between them): the matching pairs of a TABLE record and an OTHER record, "
    "as TSV."
)
EXAMPLES = """\
examples:
  sklearn-ed records people.csv --columns first_name,last_name,city,dob:levenshtein \\
      --name-column id -o groups.tsv                       name, group
  sklearn-ed records people.csv other.csv --columns first_name,last_name,dob:levenshtein \\
      --name-column id --one-to-one                        left, right, weight, probability"""
# A metric's levels by its unit: similarity shares for a normalized one, edits otherwise.
SHARE_THRESHOLDS = (0.08, 0.2)
EDIT_THRESHOLDS = (1, 2)


def add_arguments(parser):
    parser.add_argument("table", metavar="TABLE", help=argparse.SUPPRESS)
    parser.add_argument("other", metavar="OTHER", nargs="?", help=argparse.SUPPRESS)
    common = parser.add_argument_group("common options")
    common.add_argument(
        "--columns",
        required=True,
        metavar="NAMES",
        help="the columns compared, comma-separated, each NAME or NAME:METRIC "
        "(metrics: " + ", ".join(string_metrics()) + ") [jaro_winkler]",
    )
    common.add_argument(
        "--min-probability",
        type=share,
        metavar="FLOAT",
        help="match probability from which a pair matches [the model's estimate of best F1]",
    )
    common.add_argument(
        "--linkage",
        choices=("representative", "complete", "connected"),
        default="representative",
        metavar="NAME",
        help="groups of TABLE alone: representative, complete or connected (chains) "
        "[representative]",
    )
    common.add_argument(
        "--one-to-one",
        action="store_true",
        help="with OTHER: each record matches at most one of the other table",
    )
    common.add_argument("-o", "--output", metavar="FILE", help="output TSV [stdout]")
    common.add_argument(
        "-t", "--threads", type=positive, default=-1, metavar="INT", help="threads [all cores]"
    )


def run(options):
    """Each record's group, or the matching pairs of OTHER and TABLE, as TSV."""
    # Here, not at the top: --help loads no scikit-learn (see _commands.py).
    from ..records import RecordDeduplicator, RecordLinker

    columns = parsed_columns(options.columns)
    inputs = [options.table] + ([options.other] if options.other else [])
    threshold = "auto" if options.min_probability is None else options.min_probability
    with table_output(options.output, options.force, inputs) as out:
        tables = [read_table(path, columns, options.name_column) for path in inputs]
        started = time.perf_counter()
        if options.other is None:
            fitted = RecordDeduplicator(
                columns, threshold=threshold, linkage=options.linkage, n_jobs=options.threads
            ).fit(tables[0])
            out.write("name\tgroup\n")
            out.writelines(
                f"{tsv_field(name)}\t{label}\n"
                for name, label in zip(tables[0].index, fitted.labels_)
            )
            summary = f"{len(tables[0]):,} records in {fitted.n_groups_:,} groups"
        else:
            fitted = RecordLinker(
                columns, threshold=threshold, one_to_one=options.one_to_one, n_jobs=options.threads
            ).fit(*tables)
            pairs = fitted.pairs_frame()
            pairs = pairs[pairs["match"].to_numpy()]
            out.write("left\tright\tmatch_weight\tmatch_probability\n")
            out.writelines(
                f"{tsv_field(left)}\t{tsv_field(right)}\t{weight:.6g}\t{probability:.6g}\n"
                for left, right, weight, probability in zip(
                    pairs["left"], pairs["right"], pairs["match_weight"], pairs["match_probability"]
                )
            )
            sizes = f"{len(tables[0]):,} and {len(tables[1]):,}"
            summary = f"{len(pairs):,} matching pairs of {sizes} records"
    n_candidates = len(fitted.candidate_pairs_)
    log(options, f"{summary} ({n_candidates:,} candidate pairs) in {seconds(started)}")


def parsed_columns(text):
    """``NAME[:METRIC],...`` as columns with levels in the metric's unit."""
    from ..distances import get_metric
    from ..records import Column

    columns = []
    for item in (part.strip() for part in text.split(",")):
        name, _, metric = item.partition(":")
        metric = metric or "jaro_winkler"
        if not name or metric not in string_metrics():
            raise usage_error(
                f"--columns: {item!r} is not NAME or NAME:METRIC with METRIC one of "
                + ", ".join(string_metrics())
            )
        normalized = get_metric(metric).normalized
        thresholds = SHARE_THRESHOLDS if normalized else EDIT_THRESHOLDS
        columns.append(Column(name, metric=metric, thresholds=thresholds))
    return columns


def read_table(path, columns, name_column):
    """The CSV/TSV table with its names as index; blank cells are missing values."""
    from ..utils import require_pandas

    pd = require_pandas("sklearn-ed records")
    name = uncompressed_name(path)
    if not name.endswith(TABLE_SUFFIXES):
        raise usage_error(f"{path!r} is not a table: records reads .csv, .tsv or .tab files")
    try:
        table = pd.read_csv(
            path, sep="," if name.endswith(".csv") else "\t", dtype=str, keep_default_na=False
        )
    except (OSError, ValueError, pd.errors.ParserError) as error:
        raise input_error(f"cannot read {path!r} as a table: {error}") from error
    wanted = [column.name for column in columns] + ([name_column] if name_column else [])
    absent = [column for column in wanted if column not in table.columns]
    if absent:
        raise usage_error(
            f"{path!r} has no column {', '.join(map(repr, absent))}; its columns: "
            + ", ".join(table.columns)
        )
    if name_column:
        return table.set_index(name_column)
    table.index = (table.index + 1).astype(str)  # row numbers, as the other commands name rows
    return table
