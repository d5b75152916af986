"""Random split of samples into train, query and base sets."""

from numbers import Integral

from sklearn.utils import check_random_state
from sklearn.utils._indexing import _safe_indexing
from sklearn.utils.validation import _num_samples


def train_query_base_split(*arrays, n_train=1000, n_query=1000, random_state=0):
    """Split arrays or lists into random train, query and base subsets.

    One random permutation of the samples is drawn; its first ``n_train``
    samples form the train set, the next ``n_query`` the query set and the
    rest the base set (the set that is searched). The same permutation is
    applied to every array. Lists stay lists and arrays stay arrays.

    Parameters
    ----------
    *arrays : sequence of indexables with the same length
        Lists, numpy arrays, scipy-sparse matrices or pandas dataframes.
    n_train : int, default=1000
        Number of train samples.
    n_query : int, default=1000
        Number of query samples.
    random_state : int, RandomState instance or None, default=0
        Seed of the permutation.

    Returns
    -------
    splitting : list of length 3 * len(arrays)
        ``[a_train, a_query, a_base, b_train, b_query, b_base, ...]``.

    Examples
    --------
    >>> from sklearn_ed.datasets import train_query_base_split
    >>> words = ["a", "b", "c", "d", "e", "f"]
    >>> train, query, base = train_query_base_split(words, n_train=2, n_query=1)
    >>> len(train), len(query), len(base)
    (2, 1, 3)
    >>> sorted(train + query + base) == words
    True
    """
    if not arrays:
        raise ValueError("train_query_base_split needs at least one array")
    for name, value in (("n_train", n_train), ("n_query", n_query)):
        if not isinstance(value, Integral) or value < 0:
            raise ValueError(f"{name} must be a non-negative int, got {value!r}")
    lengths = [_num_samples(array) for array in arrays]
    if len(set(lengths)) > 1:
        raise ValueError(f"All arrays must have the same number of samples, got {lengths}")
    n_samples = lengths[0]
    if n_train + n_query >= n_samples:
        raise ValueError(
            f"n_train + n_query = {n_train + n_query} must be smaller than the "
            f"number of samples ({n_samples}) so that the base set is not empty"
        )
    permutation = check_random_state(random_state).permutation(n_samples)
    parts = (
        permutation[:n_train],
        permutation[n_train : n_train + n_query],
        permutation[n_train + n_query :],
    )
    return [_safe_indexing(array, part) for array in arrays for part in parts]
