"""The merge rule of a base kept in segments (the logarithmic method).

A growing base indexed in one piece is re-indexed whole at every append. Kept
as segments of consecutive items instead, merged as a binary counter does
(Bentley and Saxe, 1980: a new segment absorbs the segments before it that are
no larger than itself), every item is re-indexed O(log n) times in all and a
query asks O(log n) segments. The sparse q-gram index and the fitted search's
lookups share this rule.
"""


def segments_absorbed(starts, start, stop):
    """How many of the last segments the new segment ``[start, stop)`` absorbs.

    Parameters
    ----------
    starts : sequence of int
        First item of each existing segment, in order; the last one ends at
        ``start``.
    start, stop : int
        The new segment.

    Returns
    -------
    n_absorbed : int
        The new segment and the last ``n_absorbed`` segments become one,
        starting at ``starts[-n_absorbed]``.

    Examples
    --------
    >>> segments_absorbed([0], 1000, 1001)  # 1 item after 1,000: a segment of its own
    0
    >>> segments_absorbed([0, 8, 12], 14, 15)  # sizes 8, 4, 2, then 1
    0
    >>> segments_absorbed([0, 8, 12, 14], 15, 16)  # sizes 8, 4, 2, 1, then 1: one of 16
    4
    """
    n_absorbed = 0
    while n_absorbed < len(starts) and stop - start >= start - starts[-1 - n_absorbed]:
        start = starts[-1 - n_absorbed]
        n_absorbed += 1
    return n_absorbed
