"""Nearest records and record joins on DataFrames: the record metric with index labels."""

import numpy as np

from ..join import similarity_join
from ..neighbors import FilterRefineNeighbors
from ..utils import require_pandas
from ._record_metric import DEFAULT_MISSING_DISTANCE, make_record_metric, to_records


def nearest_records(
    X,
    Y=None,
    *,
    columns,
    n_neighbors=1,
    weights=None,
    missing_distance=DEFAULT_MISSING_DISTANCE,
    exact=True,
    n_jobs=None,
):
    """The nearest records of ``X`` to each record of ``Y`` under the record metric.

    :func:`make_record_metric` and :func:`to_records` under
    :class:`~sklearn_ed.FilterRefineNeighbors`, with the tables' index labels
    in and out.

    Parameters
    ----------
    X : pandas.DataFrame
        The records searched.
    Y : pandas.DataFrame, default=None
        The records whose neighbours are wanted (``None``: those of ``X``,
        each without itself).
    columns : list of Column or str
        The columns compared (:func:`make_record_metric`).
    n_neighbors : int, default=1
        Neighbours per record.
    weights, missing_distance
        As in :func:`make_record_metric`.
    exact : bool, default=True
        Exact answers (the record metric's lower bound prunes), or the
        filter's.
    n_jobs : int, default=None
        Threads.

    Returns
    -------
    neighbors : pandas.DataFrame
        One row per (record, neighbour): ``right`` (the label in ``Y``, or in
        ``X`` when ``Y`` is None), ``left`` (the neighbour's label in ``X``),
        ``rank`` (0 the nearest) and ``distance``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ed.records import Column, nearest_records
    >>> people = pd.DataFrame({"name": ["Ann Lee", "Bob Stone", "Anne Lee"],
    ...                        "city": ["Leeds", "York", "Leeds"]}, index=["a", "b", "c"])
    >>> columns = [Column("name", "normalized_indel"), Column("city", "normalized_indel")]
    >>> nearest_records(people, columns=columns)[["right", "left"]].values.tolist()
    [['a', 'c'], ['b', 'a'], ['c', 'a']]
    """
    pd = require_pandas("nearest_records")
    metric = make_record_metric(columns, weights=weights, missing_distance=missing_distance)
    search = FilterRefineNeighbors(
        n_neighbors=n_neighbors, metric=metric, exact=exact, n_jobs=n_jobs
    ).fit(to_records(X, columns))
    queries = None if Y is None else to_records(Y, columns)
    distances, rows = search.kneighbors(queries)
    query_labels = (X if Y is None else Y).index.to_numpy()
    return pd.DataFrame(
        {
            "right": np.repeat(query_labels, rows.shape[1]),
            "left": X.index.to_numpy()[rows.ravel()],
            "rank": np.tile(np.arange(rows.shape[1]), len(rows)),
            "distance": distances.ravel(),
        }
    )


def record_join(
    X,
    Y=None,
    *,
    columns,
    threshold,
    weights=None,
    missing_distance=DEFAULT_MISSING_DISTANCE,
    n_jobs=None,
):
    """Every pair of records within ``threshold`` under the record metric, by label.

    :func:`~sklearn_ed.similarity_join` under :func:`make_record_metric`, with
    the tables' index labels: every pair within the threshold is found.

    Parameters
    ----------
    X : pandas.DataFrame
        The records.
    Y : pandas.DataFrame, default=None
        A second table (``None``: the pairs within ``X``, each once).
    columns : list of Column or str
        The columns compared.
    threshold : float
        The largest record distance kept.
    weights, missing_distance
        As in :func:`make_record_metric`.
    n_jobs : int, default=None
        Threads.

    Returns
    -------
    pairs : pandas.DataFrame
        ``left`` (label in ``X``), ``right`` (label in ``Y``, or in ``X``) and
        ``distance``, sorted by left then right position.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ed.records import Column, record_join
    >>> people = pd.DataFrame({"name": ["Ann Lee", "Bob Stone", "Anne Lee"],
    ...                        "city": ["Leeds", "York", "Leeds"]}, index=["a", "b", "c"])
    >>> columns = [Column("name", "normalized_indel"), Column("city", "normalized_indel")]
    >>> record_join(people, columns=columns, threshold=0.1)[["left", "right"]].values.tolist()
    [['a', 'c']]
    """
    pd = require_pandas("record_join")
    metric = make_record_metric(columns, weights=weights, missing_distance=missing_distance)
    right_table = X if Y is None else Y
    rows, partners, distances = similarity_join(
        to_records(X, columns),
        None if Y is None else to_records(Y, columns),
        threshold=threshold,
        metric=metric,
        n_jobs=n_jobs,
    )
    order = np.lexsort((partners, rows))
    return pd.DataFrame(
        {
            "left": X.index.to_numpy()[rows[order]],
            "right": right_table.index.to_numpy()[partners[order]],
            "distance": distances[order],
        }
    )
