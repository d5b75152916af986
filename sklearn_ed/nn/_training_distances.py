"""The exact distances among the training strings of the neural embedders,
computed for the pairs training asks for and kept (torch-free)."""

import numpy as np

from ..distances import candidate_distances, symmetric_pairwise_distances
from ..utils import saved_class, sorted_unique


@saved_class()
class TrainingDistances:
    """Exact distances among training strings, computed for the pairs asked and kept.

    ``distances[rows, cols]`` computes the pairs not known yet (one batched,
    parallel call) and returns them all, so a training set needs only the
    pairs its top-k lists and triplets use; :meth:`compute_whole` fills the
    whole matrix at once (the faster way when every pair is needed).

    Parameters
    ----------
    strings : ndarray of object
        The training strings.
    n_jobs : int
        Parallel jobs of the distances (joblib semantics).

    Attributes
    ----------
    matrix : ndarray of shape (n_strings, n_strings)
        The known distances: the integer matrix once whole, float32 with NaN
        for the pairs not computed before.
    is_whole : bool
        Whether every pair is known.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.nn import TrainingDistances
    >>> distances = TrainingDistances(np.array(["kitten", "sitting", "mitten"], dtype=object),
    ...                               n_jobs=1)
    >>> distances[np.array([0, 0]), np.array([1, 2])]
    array([3., 1.], dtype=float32)
    >>> int(np.isnan(distances.matrix).sum())  # the pair (1, 2) is not known
    2
    """

    def __init__(self, strings, n_jobs):
        n = len(strings)
        self.strings = strings
        self.n_jobs = n_jobs
        self.matrix = np.full((n, n), np.nan, dtype=np.float32)
        np.fill_diagonal(self.matrix, 0.0)
        self.is_whole = n < 2

    def compute_whole(self):
        """Compute every pair at once (with :func:`symmetric_pairwise_distances`)."""
        self.matrix = symmetric_pairwise_distances(self.strings, n_jobs=self.n_jobs)
        self.is_whole = True

    def __getitem__(self, pairs):
        rows, cols = (np.asarray(index, dtype=np.int64) for index in pairs)
        self.prefetch(rows, cols)
        return self.matrix[rows, cols]

    def prefetch(self, rows, cols):
        """Compute the pairs ``(rows[i], cols[i])`` not known yet.

        Parameters
        ----------
        rows, cols : array-like of int
            Indices of the training strings, of the same shape.
        """
        rows, cols = np.ravel(rows), np.ravel(cols)
        if self.is_whole:
            return
        missing = np.isnan(self.matrix[rows, cols])
        if not missing.any():
            return
        n = len(self.strings)
        low = np.minimum(rows[missing], cols[missing])
        high = np.maximum(rows[missing], cols[missing])
        low, high = np.divmod(sorted_unique(low * n + high), n)
        values = candidate_distances(
            self.strings[low], self.strings, high[:, None], n_jobs=self.n_jobs, check_input=False
        )[:, 0]
        self.matrix[low, high] = self.matrix[high, low] = values

    def mean_of_random_pairs(self, n_pairs, rng):
        """Mean distance of random pairs of distinct strings.

        Parameters
        ----------
        n_pairs : int
            Pairs drawn (with replacement).
        rng : numpy.random.RandomState
            Draws the pairs.

        Returns
        -------
        mean : float
            Their mean distance; 1.0 if it is 0 or there are fewer than 2 strings.
        """
        n = len(self.strings)
        if n < 2:
            return 1.0
        rows = rng.randint(0, n, size=n_pairs)
        cols = (rows + rng.randint(1, n, size=n_pairs)) % n
        mean = float(self[rows, cols].mean())
        return mean if mean > 0 else 1.0
