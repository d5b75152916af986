"""Where the partition filter looks: the window substrings of a probe.

An indexed string is cut into ``T + 1 + DROPPED`` segments and its
``DROPPED`` most common ones are left out of the index (:mod:`._partition`).
:func:`segment_shifts` states, for one segment, the shifts at which it may
reappear intact in a probe (the proof is in its docstring); :func:`probe_plan`
takes those windows for every segment at once, in NumPy, because a join of
records with large thresholds asks for thousands of (probe length, indexed
length) plans and the loop over segments cost it a second.
"""

import numpy as np

# Segments cut beyond the bound's tau + 1, and as many left out of the index
# where they are most common (measured on generated person records: two cut
# the time of a normalized join by 3x; asking candidates to match several
# segments instead cost more than it saved).
DROPPED = 2


def segment_shifts(segment, n_kept, tau, shift):
    """Shifts at which segment ``segment`` (0-based) of an indexed string may
    reappear intact in a probe within ``tau`` edits (multi-match-aware window).

    The string keeps ``n_kept = T + 1`` of its segments (``T >= tau``); group
    each dropped one with a kept neighbour into ``T + 1`` runs. With at most
    ``tau`` edits, some run ``t`` (1-based) is intact with at most ``tau - T +
    t - 1`` edits left of it and at most ``T + 1 - t`` right of it: follow
    ``h(t) = edits in runs 1..t - t`` from 0 to at most ``tau - T - 1``; it
    falls only at an intact run, by one, so it steps from ``tau - T`` to
    below at some intact run ``t``. Its kept segment then starts shifted by
    at most its left edits, and the probe's length differs from the shifted
    end by at most its right edits (Li et al., 2011, Sec. 4.3, extended to
    dropped segments). The segment's rank ``t`` among the kept ones is not
    known to the probe (the dropped ones differ by string): every possible
    rank's window is taken.
    """
    n_dropped_before = range(max(0, segment + 1 - n_kept), min(segment, DROPPED) + 1)
    shifts = set()
    for dropped_before in n_dropped_before:
        run = segment + 1 - dropped_before
        left, right = tau - n_kept + run, n_kept - run
        if left >= 0:
            shifts.update(range(max(-left, shift - right), min(left, shift + right) + 1))
    return np.array(sorted(shifts), dtype=np.int64)


def probe_plans(probe_length, cuts, taus):
    """The window substrings a probe of ``probe_length`` looks up, for every
    indexed length at once.

    Parameters
    ----------
    probe_length : int
    cuts : list of (int, ndarray, ndarray)
        ``(indexed length, segment starts, segment sizes)`` of each indexed
        length (:func:`~._partition.even_segments`).
    taus : ndarray of int64
        The largest distance of each indexed length to the probe.

    Returns
    -------
    plans : list of (int, ndarray of shape (n_windows, 3))
        ``(indexed length, rows (segment, start in the probe, size))`` of each
        indexed length with a window inside the probe, by segment then start:
        the windows of :func:`segment_shifts` moved to each segment's start.
    """
    n_lengths, widest = len(cuts), max((len(starts) for _, starts, _ in cuts), default=0)
    starts = np.zeros((n_lengths, widest), np.int64)
    sizes = np.full((n_lengths, widest), probe_length + 1, np.int64)  # padding fits nowhere
    for row, (_, cut_starts, cut_sizes) in enumerate(cuts):
        starts[row, : len(cut_starts)], sizes[row, : len(cut_sizes)] = cut_starts, cut_sizes
    index_lengths = np.array([length for length, _, _ in cuts], np.int64)
    n_kept = np.array([len(cut_starts) for _, cut_starts, _ in cuts], np.int64) - DROPPED
    tau, n_kept = taus[:, None, None], n_kept[:, None, None]
    shift = probe_length - index_lengths[:, None, None]
    segment = np.arange(widest)[None, :, None]
    dropped_before = np.arange(DROPPED + 1)[None, None, :]
    run = segment + 1 - dropped_before
    left, right = tau - n_kept + run, n_kept - run
    low = np.maximum(np.maximum(-left, shift - right) + starts[:, :, None], 0)
    high = np.minimum(np.minimum(left, shift + right) + starts[:, :, None], probe_length)
    high = np.minimum(high, probe_length - sizes[:, :, None])
    possible = (dropped_before <= segment) & (run <= n_kept) & (left >= 0) & (high >= low)
    lengths, segments, rank = np.nonzero(possible)
    low, high = low[lengths, segments, rank], high[lengths, segments, rank]
    # The windows of one segment's ranks overlap: number the positions, keep each once.
    widths = high - low + 1
    positions = np.arange(widths.sum()) - np.repeat(np.cumsum(widths) - widths - low, widths)
    keys = (np.repeat(lengths * widest + segments, widths)) * (probe_length + 1) + positions
    keys = np.unique(keys)
    windows, positions = np.divmod(keys, probe_length + 1)
    lengths, segments = np.divmod(windows, widest)
    edges = np.searchsorted(lengths, np.arange(n_lengths + 1))
    return [
        (int(index_lengths[row]), _plan_rows(segments, positions, sizes[row], begin, end))
        for row, (begin, end) in enumerate(zip(edges[:-1], edges[1:]))
        if end > begin
    ]


def _plan_rows(segments, positions, sizes, begin, end):
    part = segments[begin:end]
    return np.stack([part, positions[begin:end], sizes[part]], axis=1)
