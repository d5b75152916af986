"""Deduplication on a Dask cluster, by connected or representative linkage.

Representative linkage decides in rounds over the pairs' Parquet files
(:mod:`._representatives`). Connected linkage needs no pair written: each
task of the distributed join (:mod:`._join`) reduces the pairs of its two
blocks, as they stream from the engine, to a forest: each string met
and the smallest row connected to it. Copies of a string count once: a
block's copies are tied to their first row by the block's own task, and the
engine compares distinct strings only, so ten thousand copies make ten
thousand edges, not fifty million. A forest also counts the neighbours of
the strings it met (copies included), so the root can name each group's
representative as the single process does: its row with the most
neighbours. Forests merge in a tree of tasks (union of their edges,
components again, counts added); the root holds one ``(row, group,
represents)`` entry per string that has a pair, and each partition of the
input receives its slice of it and is written out beside its groups. A
string with no pair is a group of its own. A group is named by its
smallest row, whatever the partitioning.
"""

import uuid
from pathlib import Path

import dask
import dask.dataframe as dd
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ..distances import get_metric
from ..join import distinct_within, join_prepared, reachable_limit
from ._join import JoinJob, written_files, written_pairs
from ._representatives import representative_groups, summed_counts

# Edges gathered in a task before they are reduced to its forest: bounds a
# task's memory whatever the pairs.
EDGE_BUDGET = 1 << 20
# Forests merged by one task of the tree.
MERGE_FAN_IN = 8
DISTRIBUTED_LINKAGES = ("representative", "connected")


def group_duplicates(
    strings,
    *,
    path,
    threshold=None,
    min_similarity=None,
    metric="levenshtein",
    processor=None,
    linkage="representative",
    method="auto",
    block_size="auto",
    client=None,
):
    """Groups of near-duplicate strings, found on a Dask cluster.

    The groups of :class:`sklearn_ed.StringDeduplicator` with the same
    ``linkage``, each named by its smallest row, written beside the strings
    to Parquet files under ``path``, one per partition of the input.

    Parameters
    ----------
    strings : dask Series, dask Bag or array-like of str
        The strings.
    path : str or path-like
        A folder for the Parquet files: missing or empty.
    threshold, min_similarity, metric, processor
        As in :func:`similarity_join`.
    linkage : {"representative", "connected"}, default="representative"
        ``"representative"``: the string with the most neighbours opens a
        group and takes its neighbours not yet taken, and so on (no chains);
        the pairs are written under ``path/pairs`` and read in rounds.
        ``"connected"``: two strings share a group when a chain of pairs
        links them; no pair is written (each task reduces its pairs to a
        forest), the cheaper of the two. ``"complete"`` is not distributed.
    method, block_size, client
        As in :func:`similarity_join`.

    Returns
    -------
    groups : dask.dataframe.DataFrame
        Columns ``row`` (global row number), ``string`` (as given, before
        the processor), ``group`` (the smallest row of its group) and
        ``representative`` (whether the row represents its group: the one
        that opened it, or with connected linkage its row with the most
        neighbours, as in :class:`~sklearn_ed.StringDeduplicator`), in the
        order of the input.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> from sklearn_ed.dask import group_duplicates
    >>> import tempfile
    >>> names = ["Jon Smith", "Ann Lee", "John Smith", "Ann Lee", "Jonh Smith"]
    >>> with LocalCluster(n_workers=1, processes=False) as cluster, Client(cluster):
    ...     folder = tempfile.mkdtemp()
    ...     groups = group_duplicates(names, threshold=1, path=folder + "/groups")
    ...     groups["group"].compute().tolist()
    [0, 1, 0, 1, 0]
    """
    if linkage not in DISTRIBUTED_LINKAGES:
        raise ValueError(
            f"linkage must be one of {DISTRIBUTED_LINKAGES} on a cluster, got {linkage!r} "
            "(complete linkage needs every group's pairs at once: StringDeduplicator)."
        )
    job = JoinJob.of(
        {"strings": strings},
        path=path,
        options=(threshold, min_similarity, metric, processor, method, block_size),
        client=client,
    )
    if linkage == "connected":
        root = _merged(job.tasks(_block_forest, job.method))
    else:
        pairs = job.folder / "pairs"
        pairs.mkdir()
        written = written_files(job.client, job.tasks(written_pairs, job.method, pairs), pairs)
        files = [file for file, count in written if count]
        root = representative_groups(files, job.tables[0].n_rows, job.client)
    in_rows = dask.delayed(_within_rows, pure=True)
    write = dask.delayed(_written_groups, pure=True)
    table = job.tables[0]
    bounds = zip(table.offsets[:-1], table.offsets[1:])
    written = [
        write(raw, first, last, in_rows(root, first, last), job.folder, number)
        for number, (raw, (first, last)) in enumerate(zip(table.sources, bounds))
    ]
    return dd.read_parquet(written_files(job.client, written, job.folder))


def _block_forest(left_block, right_block, metric, limit, self_join, method, name):
    """The forest of the pairs of two blocks and the neighbours they give its
    strings: ``(rows, groups, degree_rows, degrees)``."""
    spec = get_metric(metric)
    left_rows, left_strings = left_block
    right_rows, right_strings = left_block if right_block is None else right_block
    forest = _empty_forest()
    if not len(left_rows) or not len(right_rows):
        return forest
    left = distinct_within(left_strings, spec, limit)
    right = left if right_block is None else distinct_within(right_strings, spec, limit)
    left_first = left_rows[left.rows[left.starts[:-1]]]
    right_first = right_rows[right.rows[right.starts[:-1]]]
    edges, degrees = [], []
    if right_block is None:
        edges.append(_copies_edges(left, left_rows))
        degrees.append((left_first, left.counts - 1))
    other = None if right_block is None else right.strings
    limit = reachable_limit(limit, left.strings, other)
    for i, j, _ in join_prepared(left.strings, other, spec, limit, method, 1):
        edges.append((left_first[i], right_first[j]))
        degrees += [(left_first[i], right.counts[j]), (right_first[j], left.counts[i])]
        if sum(len(u) for u, _ in edges) > EDGE_BUDGET:
            forest = _forest([forest, _edge_forest(edges, degrees)])
            edges, degrees = [], []
    return _forest([forest, _edge_forest(edges, degrees)])


def _copies_edges(distinct, rows):
    """Each copy of a string tied to the string's first row."""
    counts = distinct.counts
    firsts = rows[distinct.rows[np.repeat(distinct.starts[:-1], counts)]]
    return firsts, rows[distinct.rows]


def _empty_forest():
    return (np.empty(0, np.int64),) * 4


def _edge_forest(edges, degrees):
    """A forest of its own edges: ``(u, v, degree_rows, degrees)``.

    A row's degree (its neighbours, copies included) is counted on the
    first row of its string in each block; every copy of a string has the
    same degree, so the string's first row overall gets its whole degree.
    """
    if not edges:
        return _empty_forest()
    u, v = (np.concatenate(side).astype(np.int64) for side in zip(*edges))
    return u, v, *summed_counts(degrees)


def _forest(forests):
    """One forest from several: the components of their edges (a forest's
    ``(rows, groups)`` are edges too) and their degrees summed."""
    rows, groups = _components([(forest[0], forest[1]) for forest in forests])
    return rows, groups, *summed_counts([(forest[2], forest[3]) for forest in forests])


def _components(edge_lists):
    """``(rows, groups)``: every row of the edges and the smallest row of its
    connected component, sorted by row."""
    left = np.concatenate([np.asarray(u, dtype=np.int64) for u, _ in edge_lists])
    right = np.concatenate([np.asarray(v, dtype=np.int64) for _, v in edge_lists])
    rows, numbers = np.unique(np.concatenate([left, right]), return_inverse=True)
    if not len(rows):
        return rows, rows
    n_edges = len(left)
    graph = coo_matrix(
        (np.ones(n_edges, np.int8), (numbers[:n_edges], numbers[n_edges:])),
        shape=(len(rows), len(rows)),
    )
    n_groups, component = connected_components(graph, directed=False)
    smallest = np.full(n_groups, np.iinfo(np.int64).max)
    np.minimum.at(smallest, component, rows)
    return rows, smallest[component]


def _merged(forests):
    """One forest from many, by a tree of tasks of ``MERGE_FAN_IN`` each;
    ``(rows, groups, represents)`` at the root."""
    merge = dask.delayed(_forest, pure=True)
    while len(forests) > 1:
        forests = [
            merge(forests[start : start + MERGE_FAN_IN])
            for start in range(0, len(forests), MERGE_FAN_IN)
        ]
    root = forests[0] if forests else dask.delayed(_empty_forest)()
    return dask.delayed(_represented, pure=True)(root)


def _represented(forest):
    """``(rows, groups, represents)``: each group represented by its row with
    the most neighbours (then the lowest), as the single process does."""
    rows, groups, degree_rows, degree = forest
    degrees = np.zeros(len(rows), np.int64)
    degrees[np.searchsorted(rows, degree_rows)] = degree
    order = np.lexsort((rows, -degrees, groups))
    represents = np.zeros(len(rows), bool)
    represents[order[np.unique(groups[order], return_index=True)[1]]] = True
    return rows, groups, represents


def _within_rows(forest, first, last):
    """The part of a forest (sorted by row) from row ``first`` to ``last``."""
    within = slice(*np.searchsorted(forest[0], [first, last]))
    return tuple(values[within] for values in forest)


def _written_groups(raw, first, last, forest, folder, number):
    """Write a partition's strings beside their groups; return the file.

    ``forest`` is ``(rows, groups)``, a row missing from it a group of its
    own represented by itself; or ``(rows, groups, represents)`` where the
    representative is not the group's smallest row.
    """
    rows, groups, *represents = forest
    row = np.arange(first, last, dtype=np.int64)
    group = row.copy()
    group[rows - first] = groups
    representative = group == row
    if represents:
        representative[rows - first] = represents[0]
    strings = raw.to_numpy(dtype=object) if hasattr(raw, "to_numpy") else list(raw)
    table = pa.table(
        {
            "row": row,
            "string": pa.array(strings, type=pa.string()),
            "group": group,
            "representative": representative,
        }
    )
    final = Path(folder) / f"groups-{number:05d}.parquet"
    partial = final.with_name(f".{final.name}.{uuid.uuid4().hex}.partial")
    pq.write_table(table, partial)
    partial.replace(final)
    return str(final)
