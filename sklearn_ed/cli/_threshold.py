"""What join and dedup share: the threshold options and their check."""

from ..distances import get_metric
from ..join import distance_threshold, join_method_names
from ..utils import PROCESSORS
from ._errors import usage_error
from ._options import DEFAULT_METRIC, distance, share, threads_and_metric


def threshold_options(parser, linkage=False):
    common = parser.add_argument_group("common options")
    common.add_argument(
        "--threshold",
        type=distance,
        metavar="FLOAT",
        help="largest distance kept, in the metric's unit",
    )
    common.add_argument(
        "--min-similarity",
        type=share,
        metavar="FLOAT",
        help="instead of --threshold for a normalized metric: smallest "
        "1 - distance kept (rapidfuzz score 85 is 0.85)",
    )
    common.add_argument("-o", "--output", metavar="FILE", help="output TSV [stdout]")
    threads_and_metric(common)
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
        choices=join_method_names(exact_only=True),
        default="auto",
        help="how pairs are found [auto]",
    )


def checked_metric(options):
    """The metric, once exactly one of --threshold and --min-similarity fits it."""
    metric = options.metric or DEFAULT_METRIC
    if (options.threshold is None) == (options.min_similarity is None):
        raise usage_error("give one of --threshold (a distance) or --min-similarity")
    try:
        distance_threshold(get_metric(metric), options.threshold, options.min_similarity)
    except ValueError as error:
        raise usage_error(str(error).replace("min_similarity", "--min-similarity")) from error
    return metric
