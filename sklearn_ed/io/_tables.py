"""Neighbor tables: the answer of ``kneighbors`` with the records' names.

The tables are TSV in the dialect of Python's csv module and pandas: a name
holding a tab, a line break or a double quote is written in double quotes,
its quotes doubled, so that it stays one field of one row.
"""

import re

import numpy as np

COLUMNS = ("query", "target", "distance", "rank")
# csv.writer would leave a lone \r bare with "\n" rows, and pandas ends a row there.
NEEDS_QUOTES = re.compile('[\t\n\r"]')


def neighbors_frame(distances, indices, query_names, target_names):
    """The neighbors of each query as a long table, one row per (query, neighbor).

    Parameters
    ----------
    distances, indices : ndarray of shape (n_queries, n_neighbors)
        What ``kneighbors`` returned.
    query_names : array-like of shape (n_queries,)
        Names of the queries (``Records.names``).
    target_names : array-like of shape (n_samples_fit,)
        Names of the fitted items, which ``indices`` point into.

    Returns
    -------
    frame : pandas.DataFrame
        Columns ``query``, ``target``, ``distance`` and ``rank`` (1 for the
        nearest), queries in input order.

    Examples
    --------
    >>> from sklearn_ed import FilterRefineNeighbors
    >>> from sklearn_ed.io import neighbors_frame
    >>> search = FilterRefineNeighbors(n_neighbors=1, random_state=0).fit(["ACGT", "TTTT"])
    >>> distances, indices = search.kneighbors(["ACGA"])
    >>> neighbors_frame(distances, indices, ["q1"], ["base1", "base2"])
      query target  distance  rank
    0    q1  base1       1.0     1
    """
    import pandas as pd

    return pd.DataFrame(dict(zip(COLUMNS, _columns(distances, indices, query_names, target_names))))


def write_neighbors(file, distances, indices, query_names, target_names):
    """Append the rows of :func:`neighbors_frame` to an open text file, tab-separated.

    Integral distances are written without a decimal point.
    """
    queries, targets, values, ranks = _columns(distances, indices, query_names, target_names)
    _write_rows(file, map(tsv_field, queries), map(tsv_field, targets), _formatted(values), ranks)


def write_pairs(file, left_rows, right_rows, distances, left_names, right_names):
    """Append pairs of a join as ``left, right, distance`` rows (names, tab-separated)."""
    left_names = np.asarray(left_names, dtype=object)[left_rows]
    right_names = np.asarray(right_names, dtype=object)[right_rows]
    values = np.asarray(distances, dtype=np.float64)
    _write_rows(file, map(tsv_field, left_names), map(tsv_field, right_names), _formatted(values))


def write_groups(file, names, labels, representative_names):
    """Append ``name, group, representative`` rows (one per record, tab-separated)."""
    _write_rows(file, map(tsv_field, names), labels, map(tsv_field, representative_names))


def tsv_field(value):
    """``value`` as one TSV field, quoted only when it must be.

    Examples
    --------
    >>> from sklearn_ed.io import tsv_field
    >>> tsv_field("read1"), tsv_field("a\\tb"), tsv_field('5" disk')
    ('read1', '"a\\tb"', '"5"" disk"')
    """
    text = str(value)
    if NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def _write_rows(file, *columns):
    file.writelines("\t".join(map(str, row)) + "\n" for row in zip(*columns))


def _formatted(values):
    """Integral distances without a decimal point, others with 6 significant digits."""
    if np.all(values == np.round(values)):
        return values.astype(np.int64).astype(str)
    return np.char.mod("%.6g", values)


def _columns(distances, indices, query_names, target_names):
    distances, indices = np.asarray(distances), np.asarray(indices)
    n_queries, n_neighbors = indices.shape
    query_names = np.asarray(query_names, dtype=object)
    target_names = np.asarray(target_names, dtype=object)
    if len(query_names) != n_queries:
        raise ValueError(f"Got {len(query_names)} query names for {n_queries} queries.")
    return (
        np.repeat(query_names, n_neighbors),
        target_names[indices.ravel()],
        distances.ravel().astype(np.float64),
        np.tile(np.arange(1, n_neighbors + 1), n_queries),
    )
