"""DaskStringDeduplicator: the deduplicator's groups found on a Dask cluster,
written beside the strings, and new strings put in them."""

import os
import shutil
import tempfile
import uuid
from numbers import Integral, Real
from pathlib import Path

import dask
import dask.bag
import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..distances import declare_metric_input
from ..utils import PROCESSORS
from ._components import DISTRIBUTED_LINKAGES, group_duplicates
from ._join import JoinJob
from ._nearest import nearest_groups
from ._tables import cluster_client

# The parameters passed on to the distributed join, in JoinJob's order of options.
JOIN_PARAMETERS = ("threshold", "min_similarity", "metric", "processor", "method", "block_size")


class DaskStringDeduplicator(BaseEstimator):
    """Group near-duplicate strings on a Dask cluster; new strings join a group
    or open one.

    :class:`sklearn_ed.StringDeduplicator` for tables that do not fit one
    machine: ``fit`` runs :func:`group_duplicates`, which writes each string
    beside its group to Parquet under ``path``; ``predict`` joins new
    strings with the groups' representatives on the cluster. The groups are
    those of :class:`~sklearn_ed.StringDeduplicator` with the same
    ``linkage``, named by their smallest row instead of numbered 0, 1, ...

    Parameters
    ----------
    threshold : float, default=None
        Largest distance between a member and its group's representative,
        in the metric's unit; a pair exactly at it is kept.
    min_similarity : float, default=None
        Instead of ``threshold``, for a normalized metric: the smallest
        ``1 - distance``.
    metric : str, default="levenshtein"
        A string metric (:func:`~sklearn_ed.distances.available_metrics`).
    processor : str, callable or None, default=None
        Applied to every string first, on the workers
        (``"default_sort_tokens"``: case, punctuation and word order free).
    linkage : {"representative", "connected"}, default="representative"
        As in :func:`group_duplicates`: ``"representative"`` groups do not
        chain; ``"connected"`` ones do and cost less (no pair is written).
    method : {"auto", "partition", "brute"}, default="auto"
        The exact join method each task runs.
    block_size : int or "auto", default="auto"
        Strings per block of the distributed join (:func:`similarity_join`).
    path : str, path-like or None, default=None
        The folder ``fit`` writes to: missing or empty (nothing in it is
        removed or overwritten, so each fit needs a new one). On a cluster
        of several machines, a folder every worker and the client share.
        None: a new temporary folder on this machine (a ``LocalCluster``).
    client : distributed.Client, default=None
        The cluster; None uses the current client.

    Attributes
    ----------
    groups_ : dask.dataframe.DataFrame
        The fitted strings, read lazily from the Parquet files: columns
        ``row``, ``string`` (as given), ``group`` (the smallest row of its
        group) and ``representative`` (whether the row represents its group).
    path_ : pathlib.Path
        The folder the groups were written to.
    n_samples_fit_ : int
        Strings fitted.
    n_groups_ : int
        Groups found (a string without near duplicates is a group of one).

    See Also
    --------
    sklearn_ed.StringDeduplicator : The same groups in one process, with
        complete linkage too.
    group_duplicates : The function ``fit`` runs.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> from sklearn_ed.dask import DaskStringDeduplicator
    >>> names = ["Jon Smith", "John Smith", "Smith John", "Ann Lee", "Anne Lee"]
    >>> with LocalCluster(n_workers=1, processes=False) as cluster, Client(cluster):
    ...     dedup = DaskStringDeduplicator(min_similarity=0.85, metric="normalized_indel",
    ...                                    processor="default_sort_tokens").fit(names)
    ...     groups = dedup.groups_["group"].compute().tolist()
    ...     new = dedup.predict(["smith, jon", "Bob Ray", "Bob Ray"]).tolist()
    >>> groups, dedup.n_groups_
    ([0, 0, 0, 3, 3], 2)
    >>> new
    [0, 6, 6]
    """

    _parameter_constraints: dict = {
        "threshold": [Interval(Real, 0, None, closed="both"), None],
        "min_similarity": [Interval(Real, 0, 1, closed="both"), None],
        "processor": [StrOptions(set(PROCESSORS)), callable, None],
        # Checked against the string metrics and exact join methods when fit runs.
        "metric": [str],
        "linkage": [StrOptions(set(DISTRIBUTED_LINKAGES))],
        "method": [str],
        "block_size": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "path": [str, os.PathLike, None],
        "client": "no_validation",
    }

    def __init__(
        self,
        threshold=None,
        *,
        min_similarity=None,
        metric="levenshtein",
        processor=None,
        linkage="representative",
        method="auto",
        block_size="auto",
        path=None,
        client=None,
    ):
        self.threshold = threshold
        self.min_similarity = min_similarity
        self.metric = metric
        self.processor = processor
        self.linkage = linkage
        self.method = method
        self.block_size = block_size
        self.path = path
        self.client = client

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Find the groups of ``X`` and write them under ``path``.

        Parameters
        ----------
        X : dask Series, dask Bag or array-like of str
            The strings (a Dask collection is read where its partitions live).
        y : None
            Ignored.

        Returns
        -------
        self : DaskStringDeduplicator
        """
        client = cluster_client(self.client)
        path = self.path
        if path is None:
            path = tempfile.mkdtemp(prefix="sklearn-ed-groups-")
        try:
            groups = group_duplicates(
                X, path=path, linkage=self.linkage, **self._join_options(client)
            )
        except BaseException:
            if self.path is None:  # the temporary folder made above, of no use now
                shutil.rmtree(path, ignore_errors=True)
            raise
        n_samples, n_groups = client.compute(
            [groups["row"].size, groups["representative"].sum()], sync=True
        )
        self.groups_, self.path_ = groups, Path(path)
        self.n_samples_fit_, self.n_groups_ = int(n_samples), int(n_groups)
        return self

    def fit_predict(self, X, y=None):
        """Find the groups of ``X``; return each string's group, gathered.

        Parameters
        ----------
        X : dask Series, dask Bag or array-like of str
            The strings.
        y : None
            Ignored.

        Returns
        -------
        labels : ndarray of int64 of shape (n_samples,)
            The smallest row of each string's group (``groups_["group"]``,
            which stays on the workers, is the way at scale).
        """
        self.fit(X)
        return cluster_client(self.client).compute(self.groups_["group"], sync=True).to_numpy()

    def predict(self, X):
        """Put new strings in the fitted groups, or in new ones, without refitting.

        A string within the threshold of a representative joins the nearest
        one's group (ties: the lowest group), as in
        :meth:`sklearn_ed.StringDeduplicator.predict`. The others are grouped
        among themselves with the same linkage, as rows numbered after the
        fitted ones: a new group is named ``n_samples_fit_`` plus the
        position in ``X`` of its first string. The fitted groups do not change.

        Parameters
        ----------
        X : dask Series, dask Bag or array-like of str
            New strings.

        Returns
        -------
        labels : ndarray of int64 of shape (n_queries,)
            Gathered on the client (one int per string).
        """
        check_is_fitted(self)
        client = cluster_client(self.client)
        # Read from the groups' files once, for both its columns.
        represented = client.persist(
            self.groups_.loc[self.groups_["representative"], ["string", "group"]]
        )
        job = JoinJob.of(
            {"X": X, "representatives": represented["string"]},
            path=None,
            options=self._options(),
            client=client,
        )
        groups = client.persist(
            dask.delayed(_concatenated, pure=True)(represented["group"].to_delayed())
        )
        rows, found, _ = client.compute(nearest_groups(job, groups)).result()
        table = job.tables[0]
        labels = np.full(table.n_rows, -1, dtype=np.int64)
        labels[rows] = found
        new = np.flatnonzero(labels < 0)
        if new.size:
            among_new = self._new_groups(_selected_strings(table, new), client)
            labels[new] = self.n_samples_fit_ + new[among_new]
        return labels

    def _new_groups(self, strings, client):
        """The groups of ``strings`` among themselves, as positions in it."""
        # A folder of this call's own, in the fitted folder the workers share;
        # removed once read, as nobody else has seen it.
        folder = self.path_ / f"predict-{uuid.uuid4().hex}"
        try:
            groups = group_duplicates(
                strings, path=folder, linkage=self.linkage, **self._join_options(client)
            )
            return client.compute(groups["group"], sync=True).to_numpy()
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _options(self):
        """The options of :class:`._join.JoinJob`, in its order."""
        return tuple(getattr(self, name) for name in JOIN_PARAMETERS)

    def _join_options(self, client):
        """The options of :func:`group_duplicates` besides the strings and linkage."""
        return dict(zip(JOIN_PARAMETERS, self._options()), client=client)

    def __sklearn_tags__(self):
        return declare_metric_input(super().__sklearn_tags__(), self.metric)


def _concatenated(parts):
    return np.concatenate([np.empty(0, np.int64), *(np.asarray(part) for part in parts)])


def _selected_strings(table, rows):
    """A Dask Bag of the strings of ``table``'s sorted global ``rows``, as given,
    selected where each partition lives."""
    bounds = np.searchsorted(rows, table.offsets)
    select = dask.delayed(_selected, pure=True)
    parts = [
        select(source, rows[start:stop] - first)
        for source, first, start, stop in zip(
            table.sources, table.offsets[:-1], bounds[:-1], bounds[1:]
        )
        if stop > start
    ]
    return dask.bag.from_delayed(parts)


def _selected(strings, positions):
    strings = strings.to_numpy(dtype=object) if hasattr(strings, "to_numpy") else strings
    return [strings[position] for position in positions]
