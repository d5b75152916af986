"""The exact similarity join on a Dask cluster, its pairs written as Parquet.

Both sides are cut into blocks of neighbouring string lengths
(:mod:`._tables`); each pair of blocks that can hold a pair within the
threshold is one task, joined with the in-process engine (``method=`` as in
:func:`sklearn_ed.similarity_join`, ``"auto"`` choosing per task by
measured cost) and its pairs written by the task to a Parquet file of its
own, block by block. No task holds more than two blocks and one block of
pairs; nothing is gathered on the client but file names and counts. A task
writes under a temporary name and renames when done, so a task run again
(its worker lost) leaves one whole file.
"""

import math
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import dask
import dask.dataframe as dd
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..distances import get_metric
from ..join import distance_threshold, join_method_names, join_prepared, reachable_limit
from ._blocks import block_pairs
from ._tables import cluster_client, string_table

# Strings of a block at most: two blocks' join is a few seconds of one thread
# (20,000 records of 45 characters within similarity 0.85).
MAX_BLOCK_SIZE = 20_000


def similarity_join(
    left,
    right=None,
    *,
    path,
    threshold=None,
    min_similarity=None,
    metric="levenshtein",
    processor=None,
    method="auto",
    block_size="auto",
    client=None,
):
    """Every pair of strings within a threshold, found on a Dask cluster.

    The same pairs as :func:`sklearn_ed.similarity_join` on one machine, for
    every string metric and exact method, written to Parquet files under
    ``path`` by the workers and returned as a lazy Dask DataFrame: the
    pairs are never gathered on the client.

    Parameters
    ----------
    left : dask Series, dask Bag or array-like of str
        The strings. A Dask collection is read where its partitions live;
        strings in memory are cut into partitions of 20,000.
    right : same as left, default=None
        The second side; ``None`` joins ``left`` with itself (each pair once,
        ``left < right``, never a string with itself).
    path : str or path-like
        A folder for the pairs' Parquet files: missing or empty (nothing in
        it is ever removed or overwritten).
    threshold, min_similarity, metric, processor
        As in :func:`sklearn_ed.similarity_join`.
    method : {"auto", "partition", "brute"}, default="auto"
        The exact method each task runs; ``"auto"`` times them per task.
    block_size : int or "auto", default="auto"
        Strings per block: a task holds two blocks, and their strings'
        pairs of one engine block at a time. ``"auto"``: 20,000, or fewer
        where that leaves some of the cluster's threads without two tasks.
    client : distributed.Client, default=None
        The cluster (the default client if None).

    Returns
    -------
    pairs : dask.dataframe.DataFrame
        Columns ``left``, ``right`` (global row numbers, int64) and
        ``distance``, read from the Parquet files; in no set order.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> from sklearn_ed.dask import similarity_join
    >>> import tempfile
    >>> with LocalCluster(n_workers=1, processes=False) as cluster, Client(cluster):
    ...     folder = tempfile.mkdtemp()
    ...     pairs = similarity_join(["kitten", "sitting", "mitten"], threshold=1,
    ...                             path=folder + "/pairs").compute()
    >>> pairs.to_numpy().tolist()
    [[0, 2, 1]]
    """
    job = JoinJob.of(
        {"left": left, "right": right},
        path=path,
        options=(threshold, min_similarity, metric, processor, method, block_size),
        client=client,
    )
    written = written_files(
        job.client, job.tasks(written_pairs, job.method, job.folder), job.folder
    )
    return pairs_frame([file for file, count in written if count], job.spec)


@dataclass
class JoinJob:
    """What a distributed join needs, validated: the metric, the largest
    distance kept, the method, the output folder, the client, the sides'
    tables and the block size."""

    spec: object
    limit: float
    method: str
    folder: Path | None
    client: object
    tables: list
    block_size: int

    @classmethod
    def of(cls, sides, *, path, options, client):
        """The job of ``sides`` (name to strings, None for a missing side);
        ``options`` are ``(threshold, min_similarity, metric, processor,
        method, block_size)`` as the public functions take them. ``path``
        None: a job whose tasks write nothing (no folder)."""
        threshold, min_similarity, metric, processor, method, block_size = options
        spec, limit, method = checked_join(metric, threshold, min_similarity, method)
        checked_block_size(block_size)
        if path is not None:
            check_new_folder(path)
        client = cluster_client(client)
        tables = [
            None
            if side is None
            else string_table(side, processor=processor, name=name, client=client)
            for name, side in sides.items()
        ]
        tables += [None] * (2 - len(tables))
        block_size = resolved_block_size(block_size, tables, client)
        folder = None if path is None else new_folder(path)
        return cls(spec, limit, method, folder, client, tables, block_size)

    def tasks(self, task, *arguments):
        """:func:`block_tasks` of this job."""
        return block_tasks(self.tables, self.spec, self.limit, self.block_size, task, *arguments)


def checked_join(metric, threshold, min_similarity, method):
    """``(spec, limit, method)``, or the error naming what cannot serve."""
    spec = get_metric(metric)
    if spec.input_type != "strings":
        raise ValueError(
            f"The distributed join compares strings; metric={metric!r} compares {spec.input_type}."
        )
    exact = join_method_names(exact_only=True)
    if method not in exact:
        raise ValueError(f"method must be one of {exact} (exact), got {method!r}.")
    return spec, distance_threshold(spec, threshold, min_similarity), method


def checked_block_size(block_size):
    if block_size == "auto":
        return block_size
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
        raise ValueError(f"block_size must be a positive int or 'auto', got {block_size!r}.")
    return block_size


def resolved_block_size(block_size, tables, client):
    """``block_size``, or for ``"auto"`` the largest up to ``MAX_BLOCK_SIZE``
    whose pairs of blocks give every thread of the cluster two tasks."""
    if block_size != "auto":
        return block_size
    n_threads = sum(client.nthreads().values()) or 1
    n_rows = max(table.n_rows for table in tables if table is not None)
    n_blocks = math.ceil(2 * math.sqrt(n_threads))  # n (n + 1) / 2 >= 2 threads
    return max(1, min(MAX_BLOCK_SIZE, math.ceil(n_rows / n_blocks)))


def check_new_folder(path):
    """An error where ``path`` exists and is not an empty folder (nothing of it
    is ever removed or overwritten)."""
    folder = Path(path)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise FileExistsError(
            f"path={str(path)!r} exists and is not an empty folder; give a new one "
            "(nothing in it is removed or overwritten)."
        )


def new_folder(path):
    """``path`` as an empty folder for the output (checked again: made now)."""
    check_new_folder(path)
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def written_files(client, tasks, folder):
    """Run tasks that write files into ``folder``; return their results, once
    the files of tasks lost mid-write are removed."""
    results = client.gather(client.compute(tasks))
    removed_partials(folder)
    return results


def removed_partials(folder):
    """Remove the temporary files of tasks lost mid-write (run again under
    other names): the folder was empty when the job began, so they are its own."""
    for partial in Path(folder).glob(".*.partial"):
        partial.unlink(missing_ok=True)


def block_tasks(tables, spec, limit, block_size, task, *arguments):
    """``task(left_block, right_block_or_None, metric, limit, self_join,
    *arguments, name)`` as a Delayed, per pair of blocks that may hold pairs;
    ``right_block`` is None for a block of a self-join with itself. The
    metric goes by its registry name (rapidfuzz's functions do not pickle)."""
    left, right = tables
    longest = max(left.length_counts) + max((right or left).length_counts)
    limit = min(limit, float(longest))
    left_plan, left_blocks = left.blocks(block_size)
    right_plan, right_blocks = (None, left_blocks) if right is None else right.blocks(block_size)
    run = dask.delayed(task, pure=True)
    return [
        run(
            left_blocks[a],
            None if right is None and a == b else right_blocks[b],
            spec.name,
            limit,
            right is None,
            *arguments,
            f"{a:05d}-{b:05d}",
        )
        for a, b in block_pairs(left_plan, right_plan, spec, limit)
    ]


def block_pair_blocks(left_block, right_block, metric, limit, self_join, method):
    """The pairs of two blocks as global rows: blocks of ``(left, right,
    distance)`` arrays, ``left < right`` in a self-join."""
    spec = get_metric(metric)
    left_rows, left_strings = left_block
    right_rows, right_strings = left_block if right_block is None else right_block
    if not len(left_rows) or not len(right_rows):
        return
    other = None if right_block is None else right_strings
    limit = reachable_limit(limit, left_strings, other)
    for i, j, distance in join_prepared(left_strings, other, spec, limit, method, 1):
        left, right = left_rows[i], right_rows[j]
        if self_join:
            left, right = np.minimum(left, right), np.maximum(left, right)
        yield left, right, distance


def written_pairs(left_block, right_block, metric, limit, self_join, method, folder, name):
    """Write the pairs of two blocks to ``folder/pairs-<name>.parquet``; return
    the file and its number of pairs (no file for none)."""
    schema = _schema(get_metric(metric))
    final = Path(folder) / f"pairs-{name}.parquet"
    partial = final.with_name(f".{final.name}.{uuid.uuid4().hex}.partial")
    count, writer = 0, None
    try:
        pairs = block_pair_blocks(left_block, right_block, metric, limit, self_join, method)
        for left, right, distance in pairs:
            if not len(left):
                continue
            writer = writer or pq.ParquetWriter(partial, schema)
            columns = [left, right, np.asarray(distance)]
            writer.write_table(pa.Table.from_arrays(columns, schema=schema))
            count += len(left)
    finally:
        if writer is not None:
            writer.close()
    if writer is not None:
        os.replace(partial, final)
    return str(final), count


def _schema(spec):
    distance = pa.int64() if spec.integer_valued else pa.float64()
    return pa.schema([("left", pa.int64()), ("right", pa.int64()), ("distance", distance)])


def pairs_frame(files, spec):
    """The pairs of ``files`` as a lazy Dask DataFrame (an empty one for none)."""
    if files:
        return dd.read_parquet(sorted(files))
    empty = _schema(spec).empty_table().to_pandas()
    return dd.from_pandas(empty, npartitions=1)
