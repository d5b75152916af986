"""The synthetic hard cases of Zhang et al. (2020) (Appendix A.3): shifts against substitutions."""

from numbers import Integral

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ._genome import _BASES, _CODE_OF_BYTE, load_genome

_DESCR = """\
Synthetic hard cases for edit-distance embeddings (Zhang et al. 2020, Appendix A.3)
==========================================================================

Queries are slices of ``length`` bases of the genome of :func:`load_genome`
at uniform random positions. For every query the base holds two strings:

- a shift: the query moved right by s in {1, 2} (uniform) positions, s
  random bases in front and its last s bases dropped (edit distance <= 2s,
  but a large Hamming distance);
- a substitution: the query with m in {3, 4} (uniform) distinct positions
  changed to another base (Hamming distance m, edit distance <= m).

The nearest base string of a query under edit distance is its shift when
s = 1 and (most often) its substitution when s = 2: a Hamming-like
embedding finds only the second case.

- query: the queries.
- base: the base strings, two per query (shift first, then substitution).
- base_query: index of the query each base string was made from.
- base_kind: "shift" or "substitution".
- base_edits: s or m.
"""


def make_hard_cases(n_queries, *, length=100, random_state=0):
    """Generate the synthetic hard-case set of Zhang et al. (2020) (Appendix A.3).

    Each query (a genome slice) gets two base strings: its shift by one or
    two positions and its substitution of three or four positions. Embeddings
    that see a string as a sequence of aligned positions (the identity,
    a network without Phase 3) mistake the substitution for the nearest
    neighbor when the shift is the nearest. Needs the ``pyrodigal`` package
    (``pip install 'sklearn-ed[datasets]'``).

    Parameters
    ----------
    n_queries : int
        Number of queries; the base has ``2 * n_queries`` strings.
    length : int, default=100
        Length of every query and base string (at least 5).
    random_state : int, RandomState instance or None, default=0
        Seed of the positions, shifts and substitutions.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with attributes ``query`` (list of str),
        ``base`` (list of str), ``base_query`` (ndarray of int64),
        ``base_kind`` (ndarray of str), ``base_edits`` (ndarray of int64)
        and ``DESCR``.

    Examples
    --------
    >>> from rapidfuzz.distance import Levenshtein
    >>> from sklearn_ed.datasets import make_hard_cases
    >>> cases = make_hard_cases(2, length=30, random_state=0)
    >>> len(cases.query), len(cases.base)
    (2, 4)
    >>> cases.base_kind.tolist(), cases.base_edits.tolist()
    (['shift', 'substitution', 'shift', 'substitution'], [1, 4, 2, 4])
    >>> [Levenshtein.distance(cases.query[q], s)
    ...  for q, s in zip(cases.base_query, cases.base)]
    [2, 3, 4, 4]
    """
    if not isinstance(n_queries, Integral) or isinstance(n_queries, bool) or n_queries < 1:
        raise ValueError(f"n_queries must be a positive int, got {n_queries!r}")
    if not isinstance(length, Integral) or isinstance(length, bool) or length < 5:
        raise ValueError(f"length must be an int of at least 5, got {length!r}")
    rng = check_random_state(random_state)
    genome = load_genome()
    codes = _CODE_OF_BYTE[np.frombuffer(genome.encode("ascii"), np.uint8)]
    starts = rng.randint(0, len(codes) - length + 1, size=n_queries)
    queries = codes[starts[:, None] + np.arange(length)]
    shifts = rng.randint(1, 3, size=n_queries)
    substitutions = rng.randint(3, 5, size=n_queries)
    base = []
    for query, shift, n_changed in zip(queries, shifts, substitutions):
        shifted = np.concatenate([rng.randint(0, 4, size=shift), query[:-shift]])
        changed = query.copy()
        where = rng.choice(length, size=n_changed, replace=False)
        changed[where] = (changed[where] + rng.randint(1, 4, size=n_changed)) % 4
        base += [shifted, changed]

    def decode(rows):
        return [_BASES[row].tobytes().decode("ascii") for row in rows]

    return Bunch(
        query=decode(queries),
        base=decode(base),
        base_query=np.repeat(np.arange(n_queries, dtype=np.int64), 2),
        base_kind=np.tile(np.array(["shift", "substitution"]), n_queries),
        base_edits=np.stack([shifts, substitutions], axis=1).reshape(-1).astype(np.int64),
        DESCR=_DESCR,
    )
