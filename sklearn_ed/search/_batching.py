"""Batch sizes and item containers of the FilterRefine estimators."""

import numpy as np

# Items embedded and added to the index at once during fit and partial_fit:
# bounds the uncompressed embedding held in memory (3 KB per 1 kbp read for CGK).
FIT_BATCH_SIZE = 16384
# Queries filtered and refined at once: bounds the candidate matrices of a call.
QUERY_BATCH_SIZE = 2048


def batches(n_items, size):
    """Consecutive slices of at most ``size`` of ``range(n_items)``."""
    for start in range(0, n_items, size):
        yield slice(start, min(start + size, n_items))


# Strings up to one machine word: rapidfuzz's bit-parallel Levenshtein is then
# linear in the length and a cut-off saves less than a second refine call costs.
_SHORT_STRING_LENGTH = 64


def short_strings(items):
    """Whether ``items`` are strings of mean length at most one machine word."""
    if len(items) == 0 or not isinstance(items[0], str):
        return False
    return sum(map(len, items)) <= _SHORT_STRING_LENGTH * len(items)


def concat_items(left, right):
    """Fitted items followed by new ones, in the container ``left`` uses."""
    if isinstance(left, np.ndarray) and left.ndim == 2:
        return np.vstack([left, right])
    joined = np.empty(len(left) + len(right), dtype=object)
    joined[: len(left)] = left
    joined[len(left) :] = right
    return joined


def appended_items(buffer, items, new):
    """``items`` followed by ``new``, written into ``buffer`` (whose first
    ``len(items)`` rows are ``items``) while it has room, else into a buffer of
    twice the size: appends cost in proportion to ``new`` (amortised).

    Returns ``(buffer, view)``: keep the buffer for the next append, use the
    view. Without ``items`` (None: nothing added yet), ``new`` is the view.
    """
    if items is None:
        return None, new
    n_items, needed = len(items), len(items) + len(new)
    if buffer is None or len(buffer) < needed:
        capacity = max(needed, 2 * n_items)
        if isinstance(items, np.ndarray) and items.ndim == 2:
            dtype = np.result_type(items, np.asarray(new))
            buffer = np.empty((capacity, items.shape[1]), dtype=dtype)
        else:
            buffer = np.empty(capacity, dtype=object)
        buffer[:n_items] = items
    buffer[n_items:needed] = new
    return buffer, buffer[:needed]
