"""Lists with repeated strings: compare each distinct string once, then give
every copy its pairs, in blocks of bounded size.

Blank names in a CSV, or ten thousand copies of one string, make pairs that
grow as the square of the copies; the join engines see each string once,
and :func:`expanded_pairs` turns each distinct pair into the pairs of its
copies at most ``EXPANDED_BLOCK`` at a time. Copies of one string are pairs
of each other when the string is within the threshold of itself (distance
0, except ``token_set`` of a string without words).
"""

import numpy as np

from ..utils import pair_order

# Pairs of copies built at once (a block holds at most twice as many): bounds
# the memory of a block, about 100 bytes a pair while it is built, whatever
# the copies.
EXPANDED_BLOCK = 1 << 19


class Distinct:
    """The distinct strings of a list, in order of first appearance, and the
    rows of each one's copies.

    Attributes
    ----------
    strings : ndarray of object
        Each distinct string once.
    codes : ndarray of int64
        The distinct string of each row.
    rows : ndarray of int64
        The rows, grouped by distinct string (ascending within a group).
    starts : ndarray of int64
        Where each distinct string's rows start in ``rows`` (and the end).
    kept_apart : bool
        Whether rows were kept apart (``strings`` may then repeat).
    """

    def __init__(self, strings, apart=None):
        self.kept_apart = apart is not None
        number = {}
        # A row kept apart gets a key no string equals.
        keys = _hashable(strings) if apart is None else _keys_apart(strings, apart)
        self.codes = np.fromiter(
            (number.setdefault(key, len(number)) for key in keys),
            dtype=np.int64,
            count=len(strings),
        )
        counts = np.bincount(self.codes, minlength=len(number))
        self.rows = np.argsort(self.codes, kind="stable")
        self.starts = np.concatenate([[0], np.cumsum(counts)])
        self.strings = np.asarray(strings, dtype=object)[self.rows[self.starts[:-1]]]

    @property
    def counts(self):
        """Copies of each distinct string."""
        return np.diff(self.starts)

    @property
    def repeated(self):
        """Whether some string appears more than once."""
        return len(self.strings) < len(self.codes)


def distinct_pairs(left, right, metric, threshold, engine):
    """The blocks of ``engine(left, right)`` (a join of lists without copies),
    run on the distinct strings when there are copies, and expanded to them."""
    distinct_left = Distinct(left)
    distinct_right = None if right is None else Distinct(right)
    if not distinct_left.repeated and (right is None or not distinct_right.repeated):
        yield from engine(left, right)
        return
    blocks = engine(distinct_left.strings, None if right is None else distinct_right.strings)
    yield from expanded_pairs(blocks, distinct_left, distinct_right)
    if right is None:
        yield from copies_pairs(distinct_left, self_distances(metric, distinct_left), threshold)


def _keys_apart(strings, apart):
    return [
        (row,) if alone else key for row, (key, alone) in enumerate(zip(_hashable(strings), apart))
    ]


def _hashable(items):
    """Items as dictionary keys: the rows of a 2-D array (records) as tuples, an
    array (a series, a point set) as its bytes."""
    if isinstance(items, np.ndarray) and items.ndim == 2:
        return list(map(tuple, items))
    if len(items) == 0 or isinstance(items[0], str):
        return items
    return list(map(_key, items))


def _key(item):
    try:
        hash(item)
        return item
    except TypeError:
        array = np.asarray(item)
        return (array.dtype.str, array.shape, array.tobytes())


def distinct_within(strings, metric, limit):
    """The distinct strings, copies collapsed where they are pairs of one another:
    a string beyond ``limit`` of itself (``token_set`` without words) keeps its
    copies apart."""
    distinct = Distinct(strings)
    if not distinct.repeated:
        return distinct
    beyond = (self_distances(metric, distinct) > limit) & (distinct.counts > 1)
    return Distinct(strings, apart=beyond[distinct.codes]) if beyond.any() else distinct


def self_distances(metric, distinct):
    """Each repeated string's distance to itself (0 but for ``token_set`` without
    words), in the metric's dtype (integers for an integer metric); 0 for a
    string without copies, which no caller reads."""
    repeated = np.flatnonzero(distinct.counts > 1)
    strings = distinct.strings[repeated]
    if metric.paired is not None:
        found = np.asarray(metric.paired(strings, strings))
    else:  # DTW, chamfer: one pair at a time
        found = np.array([metric.pairwise([item], [item])[0, 0] for item in strings])
    distances = np.zeros(len(distinct.strings), dtype=found.dtype)
    distances[repeated] = found
    return distances


def expanded_pairs(blocks, left, right, budget=EXPANDED_BLOCK):
    """The pairs of the rows behind the distinct pairs of ``blocks``.

    ``blocks`` yields ``(left_numbers, right_numbers, distances)`` of
    distinct strings; ``right`` is None for a self-join, where the pairs of
    copies come out as ``left_row < right_row``. Yields row pairs as
    :class:`~._methods.JoinMethod` engines do, each block of at most twice ``budget``
    pairs (or one distinct pair's copies of a single left row), sorted.
    """
    other = left if right is None else right
    for numbers, partners, distances in blocks:
        sizes = left.counts[numbers] * other.counts[partners]
        for pieces in _piece_groups(numbers, partners, distances, left, other, sizes, budget):
            yield _expanded(pieces, left, other, self_join=right is None)


def copies_pairs(distinct, self_distances, limit, budget=EXPANDED_BLOCK):
    """The pairs among the copies of each string within ``limit`` of itself."""
    numbers = np.flatnonzero((distinct.counts > 1) & (self_distances <= limit))
    if numbers.size:
        yield from expanded_pairs(
            [(numbers, numbers, self_distances[numbers])], distinct, None, budget
        )


def _piece_groups(numbers, partners, distances, left, other, sizes, budget):
    """Consecutive pieces of at most ``budget`` pairs: a distinct pair with more
    copies' pairs is cut into pieces of its left copies."""
    per_row = other.counts[partners]
    n_left = left.counts[numbers]
    rows_per_piece = np.where(sizes > budget, np.maximum(budget // per_row, 1), n_left)
    n_pieces = -(-n_left // rows_per_piece)
    pair = np.repeat(np.arange(len(numbers)), n_pieces)
    first_piece = np.repeat(np.cumsum(n_pieces) - n_pieces, n_pieces)
    offset = (np.arange(len(pair)) - first_piece) * rows_per_piece[pair]
    n_rows = np.minimum(rows_per_piece[pair], n_left[pair] - offset)
    piece_sizes = n_rows * per_row[pair]
    window = (np.cumsum(piece_sizes) - piece_sizes) // budget
    edges = np.concatenate([[0], np.flatnonzero(np.diff(window)) + 1, [len(pair)]])
    for start, stop in zip(edges[:-1], edges[1:]):
        chosen = pair[start:stop]
        yield (
            numbers[chosen],
            offset[start:stop],
            n_rows[start:stop],
            partners[chosen],
            distances[chosen],
        )


def _expanded(pieces, left, other, self_join):
    numbers, offset, n_rows, partners, distances = pieces
    per_row = other.counts[partners]
    sizes = n_rows * per_row
    piece = np.repeat(np.arange(len(sizes)), sizes)
    position = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    left_rows = left.rows[left.starts[numbers][piece] + offset[piece] + position // per_row[piece]]
    right_rows = other.rows[other.starts[partners][piece] + position % per_row[piece]]
    distances = distances[piece]
    if self_join:
        # Copies of one string meet in both orders and with themselves: once, no self-pair.
        keep = (numbers[piece] != partners[piece]) | (left_rows < right_rows)
        low, high = np.minimum(left_rows, right_rows), np.maximum(left_rows, right_rows)
        left_rows, right_rows, distances = low[keep], high[keep], distances[keep]
    order = pair_order(left_rows, right_rows)
    return left_rows[order], right_rows[order], distances[order]
