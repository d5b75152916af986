"""RecallCurveDisplay: recall-item curves of several embedders on one axis."""

from ..distances import pairwise_distances
from ..index import embedder_pairwise_distances
from ._neighbors import recall_curve


class RecallCurveDisplay:
    """Recall-item curves: top-k recall against the number of candidates.

    Build it with :meth:`from_estimator` (embedders plus queries and a base
    set) or :meth:`from_predictions` (precomputed distance matrices).

    Parameters
    ----------
    n_candidates : dict of str to ndarray
        Candidate counts of each curve.
    recall : dict of str to ndarray
        Mean recall of each curve.
    k : int
        Number of true neighbors.

    Attributes
    ----------
    ax_ : matplotlib Axes
        Axes of the plot.
    figure_ : matplotlib Figure
        Figure of the plot.
    lines_ : dict of str to matplotlib Line2D
        One line per curve.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_ed import CGKEmbedder
    >>> from sklearn_ed.metrics import RecallCurveDisplay
    >>> base = ["kitten", "sitting", "mitten", "fitting", "bitten", "knitting"]
    >>> embedders = {"CGK": CGKEmbedder(random_state=0).fit(base),
    ...              "CGK'": CGKEmbedder("cgk_prime", random_state=0).fit(base)}
    >>> display = RecallCurveDisplay.from_estimator(embedders, ["kitchen"], base, k=2)
    >>> sorted(display.lines_)
    ['CGK', "CGK'"]
    """

    def __init__(self, n_candidates, recall, k):
        self.n_candidates = n_candidates
        self.recall = recall
        self.k = k

    @classmethod
    def from_estimator(
        cls,
        estimators,
        X_query,
        X_base,
        *,
        k=10,
        metric="levenshtein",
        n_candidates=None,
        exact_distances=None,
        n_jobs=None,
        ax=None,
    ):
        """Plot the recall-item curve of each fitted embedder.

        Parameters
        ----------
        estimators : transformer or dict of str to transformer
            Fitted embedders (a dict names the curves).
        X_query, X_base : array-like
            Queries and base items.
        k : int, default=10
            Number of true neighbors.
        metric : str, Metric or callable, default="levenshtein"
            Exact metric.
        n_candidates : array-like of int, default=None
            Candidate counts; default: geometric grid up to the base size.
        exact_distances : ndarray of shape (n_queries, n_base), default=None
            Precomputed exact distances (skips their computation).
        n_jobs : int, default=None
            Parallel jobs of the exact distances.
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure by default.

        Returns
        -------
        display : RecallCurveDisplay
        """
        if not isinstance(estimators, dict):
            estimators = {type(estimators).__name__: estimators}
        if exact_distances is None:
            exact_distances = pairwise_distances(X_query, X_base, metric=metric, n_jobs=n_jobs)
        embedding_distances = {}
        for name, embedder in estimators.items():
            embedding_distances[name] = embedder_pairwise_distances(embedder, X_query, X_base)
        return cls.from_predictions(
            exact_distances, embedding_distances, k=k, n_candidates=n_candidates, ax=ax
        )

    @classmethod
    def from_predictions(
        cls, exact_distances, embedding_distances, *, k=10, n_candidates=None, ax=None
    ):
        """Plot recall-item curves from precomputed distance matrices.

        Parameters
        ----------
        exact_distances : ndarray of shape (n_queries, n_base)
            Exact distances.
        embedding_distances : dict of str to ndarray of shape (n_queries, n_base)
            Embedding distances of each method.
        k : int, default=10
            Number of true neighbors.
        n_candidates : array-like of int, default=None
            Candidate counts.
        ax : matplotlib Axes, default=None
            Axes to draw on.

        Returns
        -------
        display : RecallCurveDisplay
        """
        counts, recalls = {}, {}
        for name, embedded in embedding_distances.items():
            counts[name], recalls[name] = recall_curve(
                exact_distances, embedded, k=k, n_candidates=n_candidates
            )
        return cls(counts, recalls, k).plot(ax=ax)

    def plot(self, ax=None):
        """Draw the curves (log-scaled candidate axis).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure by default.

        Returns
        -------
        display : RecallCurveDisplay
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        self.lines_ = {}
        for name in self.recall:
            (self.lines_[name],) = ax.plot(self.n_candidates[name], self.recall[name], label=name)
        ax.set_xscale("log")
        ax.set_xlabel("number of candidates C")
        ax.set_ylabel(f"top-{self.k} recall")
        ax.set_ylim(0, 1.02)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="lower right")
        self.ax_, self.figure_ = ax, ax.figure
        return self
