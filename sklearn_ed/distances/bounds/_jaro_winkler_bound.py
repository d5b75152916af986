"""The Jaro-Winkler bound from the characters two strings share and their
common prefix.

Winkler's prefix raises a Jaro similarity ``j`` above 0.7 to ``j + l * 0.1 *
(1 - j)``, where ``l`` is the pair's common prefix, up to 4 characters: the
distance is ``(1 - j) * (1 - 0.1 * l)`` there, and ``1 - j`` below. Both are
at least ``(1 - 0.1 * l)`` times the Jaro bound of the characters the two
share (:class:`JaroBagBound`). :class:`JaroBagBound` at ``scale=0.2`` takes
``l = 4`` for every pair; here ``l`` is each pair's own, 0 or 1 for most
pairs of unrelated records: their bound is 1.5 to 1.67 times as high, and
more of the base is ruled out at the tenth neighbor's distance.
"""

import numpy as np
from numba import njit

from ...utils import check_strings, saved_class, to_code_points
from ._bag_bounds import JaroBagBound

# The longest prefix Winkler's boost counts, and rapidfuzz's weight of each
# of its characters.
PREFIX_LENGTH = 4
PREFIX_WEIGHT = 0.1


def prefix_code_points(strings, padding):
    """The first :data:`PREFIX_LENGTH` code points of each string, ``padding``
    past its end: ``(n_strings, PREFIX_LENGTH)`` int64."""
    code_points, offsets = to_code_points(list(strings))
    prefixes = np.full((len(offsets) - 1, PREFIX_LENGTH), padding, dtype=np.int64)
    for position in range(PREFIX_LENGTH):
        rows = np.flatnonzero(offsets[1:] - offsets[:-1] > position)
        prefixes[rows, position] = code_points[offsets[rows] + position]
    return prefixes


@njit(cache=True, nogil=True)
def _scale_by_prefix(bounds, query_prefixes, item_prefixes, weight):
    """``bounds[i, j] *= 1 - weight * l``, ``l`` the common prefix of query
    ``i`` and item ``j`` (their paddings differ: a prefix ends with a string)."""
    for row in range(bounds.shape[0]):
        query = query_prefixes[row]
        for item in range(bounds.shape[1]):
            other = item_prefixes[item]
            common = 0
            while common < PREFIX_LENGTH and query[common] == other[common]:
                common += 1
            bounds[row, item] *= 1.0 - weight * common


@saved_class()
class JaroWinklerBagBound(JaroBagBound):
    """``(1 - 0.1 l) (2 - s / n - s / m) / 3`` from the ``s`` characters two
    strings share and their common prefix ``l`` (up to 4): the Jaro-Winkler
    distance's bound.

    ``n`` and ``m`` are the strings' lengths; a pair sharing no character is
    at distance 1, two empty strings at 0. The proof is in the module's
    docstring. A join's pair filter, which tables the bound by lengths,
    takes ``l = 4`` (:class:`JaroBagBound` at ``scale=0.2``).

    Parameters
    ----------
    base : sequence of str
        The items bounds are computed against.

    Examples
    --------
    >>> from sklearn_ed.distances import JaroWinklerBagBound
    >>> JaroWinklerBagBound(["abcd", "xbcd", "wxyz"]).bounds(["abdc"]).round(3).tolist()
    [[0.0, 0.167, 1.0]]
    """

    def __init__(self, base):
        # The table of a join's pair filter holds for every prefix.
        super().__init__(base, scale=(1 - PREFIX_LENGTH * PREFIX_WEIGHT) / 3)
        self._prefixes = prefix_code_points(self._strings, padding=-2)

    def bounds(self, queries):
        """Lower bounds of the Jaro-Winkler distance for every (query, item) pair.

        Parameters
        ----------
        queries : sequence of str
            Query strings.

        Returns
        -------
        bounds : ndarray of float64, shape (n_queries, n_base)
            The bound from the characters and the prefix each pair shares;
            1 where they share no character, 0 for two empty strings.
        """
        queries = check_strings(queries, allow_empty=True)
        bounds = self._bounds_at(queries, 1 / 3)
        _scale_by_prefix(bounds, prefix_code_points(queries, -1), self._prefixes, PREFIX_WEIGHT)
        return bounds

    def __getstate__(self):
        # The counts and prefixes are rebuilt from the strings.
        return {"strings": self._strings}

    def __setstate__(self, state):
        self.__init__(list(state["strings"]))
