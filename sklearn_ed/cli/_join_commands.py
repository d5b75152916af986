"""join and dedup: pairs within a threshold, and groups built on them."""

import time

from ..dedup import StringDeduplicator
from ..distances import get_metric
from ..io import write_groups, write_pairs
from ..neighbors import distance_threshold, iter_similarity_join
from ._commands import DEFAULT_METRIC, log, seconds
from ._errors import usage_error
from ._inputs import check_inputs, iter_records, read_base
from ._output import table_output


def run_join(options):
    """Every pair within the threshold as TSV (left, right, distance), streamed."""
    metric = options.metric or DEFAULT_METRIC
    _checked_threshold(options, metric)
    inputs = [options.left] if options.right is None else [options.left, options.right]
    check_inputs(inputs, options)
    with table_output(options.output, options.force, options.stdout, inputs) as out:
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


def run_dedup(options):
    """Each record's group and its group's representative as TSV."""
    metric = options.metric or DEFAULT_METRIC
    _checked_threshold(options, metric)
    check_inputs([options.input], options)
    with table_output(options.output, options.force, options.stdout, [options.input]) as out:
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


def _checked_threshold(options, metric):
    if (options.threshold is None) == (options.min_similarity is None):
        raise usage_error("give one of --threshold (a distance) or --min-similarity")
    try:
        distance_threshold(get_metric(metric), options.threshold, options.min_similarity)
    except ValueError as error:
        raise usage_error(str(error).replace("min_similarity", "--min-similarity")) from error
