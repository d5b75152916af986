"""A column of strings on the cluster: validated and processed where each
partition lives, numbered by global row, and regrouped into length blocks.

The input is a Dask Series, Bag or Dask DataFrame column (its partitions
stay where they are), or strings in memory (cut into partitions of
``PARTITION_SIZE`` strings). Each partition is validated and processed once
and kept on the workers (``persist``: a worker lost later recomputes it
from its lineage); only the partitions' sizes and their count of strings
per length come back to the client, which makes the length blocks
(:mod:`._blocks`) from them.
Moving rows from partitions to blocks is a shuffle of ``n_partitions x
n_blocks`` small tasks.
"""

import operator
from collections import Counter
from dataclasses import dataclass

import dask
import numpy as np
from distributed import default_client

from ..utils import apply_processor, check_items
from ._blocks import length_blocks

# Strings of a partition, for strings given in memory.
PARTITION_SIZE = 20_000


@dataclass
class StringTable:
    """A column's partitions on the cluster and what the client knows of them.

    Attributes
    ----------
    sources : list
        Each partition as given (a Delayed, or strings in memory).
    partitions : list of Delayed
        Each partition's processed strings (object arrays), persisted.
    offsets : ndarray of int64
        The global row of each partition's first string (and the total).
    length_counts : dict of int to int
        How many strings have each length.
    """

    sources: list
    partitions: list
    offsets: np.ndarray
    length_counts: dict

    @property
    def n_rows(self):
        return int(self.offsets[-1])

    def blocks(self, block_size):
        """``(plan, blocks)``: the :class:`~._blocks.LengthBlocks` of this table and
        each block as a Delayed ``(rows, strings)``."""
        plan = length_blocks(self.length_counts, block_size)
        split = [
            dask.delayed(_split_by_block, pure=True)(partition, offset, plan)
            for partition, offset in zip(self.partitions, self.offsets[:-1])
        ]
        getitem = dask.delayed(operator.getitem, pure=True)
        blocks = [
            dask.delayed(_concatenated, pure=True)([getitem(pieces, block) for pieces in split])
            for block in range(plan.n_blocks)
        ]
        return plan, blocks


def string_table(items, *, processor, name, client):
    """The :class:`StringTable` of ``items``, its partitions processed and
    persisted on ``client``'s workers."""
    sources = partitions(items, name)
    parts = [
        dask.delayed(_processed, pure=True)(part, processor, f"{name} (partition {number})")
        for number, part in enumerate(sources)
    ]
    parts = client.persist(parts)
    summaries = client.gather(client.compute([dask.delayed(_summary)(part) for part in parts]))
    sizes = [size for size, _ in summaries]
    if not sum(sizes):
        raise ValueError(f"{name} is empty: a join needs at least one string.")
    length_counts = sum((counts for _, counts in summaries), Counter())
    return StringTable(sources, parts, np.concatenate([[0], np.cumsum(sizes)]), dict(length_counts))


def cluster_client(client):
    """``client``, or the default one, or an error saying how to get one."""
    if client is not None:
        return client
    try:
        return default_client()
    except ValueError:
        raise ValueError(
            "No Dask client: pass client=, or open one first "
            "(distributed.Client(LocalCluster()) or the address of a scheduler)."
        ) from None


def partitions(items, name):
    """The input's partitions as Delayed objects (or plain lists in memory)."""
    if hasattr(items, "to_delayed"):
        if getattr(items, "ndim", 1) == 2:
            raise ValueError(
                f"{name} is a Dask DataFrame; pass the column of strings ({name}['name'])."
            )
        return items.to_delayed()
    strings = check_items(items, "strings", name=name)
    size = PARTITION_SIZE
    return [strings[start : start + size] for start in range(0, len(strings), size)]


def _processed(part, processor, name):
    return apply_processor(
        processor, check_items(part, "strings", name=name, allow_empty=True), name
    )


def _summary(strings):
    return len(strings), Counter(map(len, strings))


def _split_by_block(strings, offset, plan):
    """The partition's ``(rows, strings)`` in each block of ``plan``."""
    rows = offset + np.arange(len(strings), dtype=np.int64)
    blocks = plan.of(rows, [len(string) for string in strings])
    order = np.argsort(blocks, kind="stable")
    bounds = np.searchsorted(blocks[order], np.arange(plan.n_blocks + 1))
    return [
        (rows[order[start:stop]], strings[order[start:stop]])
        for start, stop in zip(bounds[:-1], bounds[1:])
    ]


def _concatenated(pieces):
    """One block from the pieces of every partition, in order of row."""
    rows = np.concatenate([rows for rows, _ in pieces])
    strings = np.concatenate([strings for _, strings in pieces])
    order = np.argsort(rows, kind="stable")
    return rows[order], strings[order]
