"""Candidate pairs within an edit-distance bound by shared segments (Pass-Join).

Li, Deng, Wang and Feng, "Pass-Join: a partition-based method for similarity
joins", PVLDB 5(3), 2011. Cut a string ``r`` into ``tau + 1`` segments; if
``lev(r, s) <= tau``, the edits touch at most ``tau`` segments, so one
segment of ``r`` appears in ``s`` unchanged (pigeonhole). Its start in ``s``
moves by ``delta`` from its start in ``r``, where the edits left of it are
at least ``|delta|`` and those right of it at least ``|len(s) - len(r) -
delta|``; so ``delta`` lies in ``[(D - tau) / 2, (D + tau) / 2]`` with ``D =
len(s) - len(r)`` (the position-aware window of the paper; the edits before
and after an intact segment narrow it further: the multi-match-aware window
of :func:`._windows.segment_shifts`). Every pair within the bound is therefore among
the pairs where a substring of ``s`` in that window equals a segment of
``r``: the filter is lossless. Cutting into more than ``tau + 1`` segments
keeps it lossless, which lets one cut of ``r`` serve every partner length
when the bound depends on the lengths (normalized distances).

Segments and substrings are compared by 64-bit polynomial hashes (a
collision adds a candidate, never loses one), computed for all strings at
once from prefix hashes (numba), and looked up by hashing (``CodeTable``, each
key's rows found by numba). Strings shorter than their number of segments
cannot be cut; their pairs are left to the caller (``short`` in
:func:`partition_candidates`)."""

from functools import partial

import numpy as np
from numba import njit

from ..utils import CodeTable, iter_in_threads, sorted_unique, tagged_hashes
from ._windows import DROPPED, probe_plans

_BASE = np.uint64(0x100000001B3)  # odd: invertible modulo 2**64
# Probe substrings hashed at once: bounds the extra memory of a call.
PROBE_BLOCK = 2_000_000
# Probe rows of one task at most (a million short words would otherwise make
# tasks of 50,000 rows, too few to keep the threads busy to the end).
TASK_ROWS = 8192
# Raw segment matches expanded at once (before duplicate removal): bounds the
# memory a common segment can take.
MATCH_BLOCK = 2**23
# Strings whose prefix hashes are held at once while indexing.
STRING_BLOCK = 100_000


class _Hashes:
    """Polynomial hashes of any substring of a list of strings, from prefix hashes.

    The prefixes are hashed by Horner's rule in one pass (numba), so a
    substring's hash needs only the powers of the base up to its length.
    NumPy's cumulative products of a power for every character took 0.2 to
    0.5 s of the 0.5 s index of 100,000 person records.
    """

    def __init__(self, strings):
        self.lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        self.offsets = np.concatenate([[0], np.cumsum(self.lengths)])
        codes = np.frombuffer("".join(strings).encode("utf-32-le"), dtype=np.uint32)
        self.prefix = _prefix_hashes(codes)
        longest = int(self.lengths.max()) if len(self.lengths) else 0
        self.powers = _powers(longest + 1)

    def of(self, rows, starts, lengths):
        """Hash of ``strings[rows][starts : starts + lengths]`` (arrays broadcast)."""
        begin = self.offsets[rows] + starts
        with np.errstate(over="ignore"):
            return self.prefix[begin + lengths] - self.prefix[begin] * self.powers[lengths]


@njit(cache=True, nogil=True)
def _prefix_hashes(codes):
    """``prefix[j]``: the hash of ``codes[:j]`` (each code plus one, so that a
    run of zeros still counts), by Horner's rule modulo 2**64."""
    prefix = np.empty(len(codes) + 1, dtype=np.uint64)
    prefix[0] = 0
    hashed = np.uint64(0)
    for position in range(len(codes)):
        hashed = hashed * _BASE + np.uint64(codes[position]) + np.uint64(1)
        prefix[position + 1] = hashed
    return prefix


@njit(cache=True)
def _powers(n):
    powers = np.empty(n, dtype=np.uint64)
    powers[0] = 1
    for exponent in range(1, n):
        powers[exponent] = powers[exponent - 1] * _BASE
    return powers


def even_segments(length, n_segments):
    """Starts and lengths of the paper's even partition (the longer segments last)."""
    short, n_long = divmod(length, n_segments)
    sizes = np.full(n_segments, short, dtype=np.int64)
    if n_long:
        sizes[n_segments - n_long :] += 1
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes


def segment_counts(index_lengths, probe_lengths, bound):
    """Per distinct indexed length, segments = 1 + the largest bound over its partners.

    Returns ``{length: n_segments}``; a length without any partner is left out.
    """
    probe = np.unique(probe_lengths)
    counts = {}
    for length in np.unique(index_lengths):
        taus = bound(np.full(len(probe), length), probe)
        partners = np.abs(probe - length) <= taus
        if partners.any():
            counts[int(length)] = int(taus[partners].max()) + 1
    return counts


class SegmentIndex:
    """The segments of the indexed strings, grouped by key, with their rows.

    Each string is cut into ``tau + 1 + DROPPED`` segments, and its
    ``DROPPED`` most common segments (longest posting lists) are left out: at
    most ``tau`` segments carry an edit, so one of those kept is intact, and
    the common segments (a frequent first name, a street suffix) no longer
    pair every record with every other.

    Keys are numbered by hashing in order of first sight, and the entries
    grouped by a counting sort (no sort of the keys: it took 40 of the 70 ms
    of an index of 10,000 person records).
    """

    def __init__(self, strings, counts, block=None):
        block = STRING_BLOCK if block is None else block
        self.plans = {
            length: even_segments(length, n_segments + DROPPED)
            for length, n_segments in counts.items()
            if length >= n_segments + DROPPED
        }
        self.n_rows = len(strings)
        keys, first, widths = self._segment_keys(strings, block)
        self._numbers = CodeTable(1 << max(16, int(2 * len(keys)).bit_length()))
        self._numbers.add(keys)
        numbers = self._numbers.columns(keys)
        frequency = np.bincount(numbers, minlength=self._numbers.n_codes)
        # ``entries`` ascend: by key number, then row, so "rows below r" is a
        # prefix of a key's rows; each number's rows start at ``starts[number]``.
        self.entries, self._starts = _grouped_entries(numbers, first, widths, frequency, DROPPED)

    def _segment_keys(self, strings, block):
        """Every segment's key, and where each row's keys start and how many it has."""
        first = np.zeros(self.n_rows, dtype=np.int64)
        widths = np.zeros(self.n_rows, dtype=np.int64)
        keys, n_keys = [], 0
        for begin in range(0, self.n_rows, block):
            hashes = _Hashes(strings[begin : begin + block])
            for length, (starts, sizes) in self.plans.items():
                members = np.flatnonzero(hashes.lengths == length)
                if members.size:
                    table = hashes.of(members[:, None], starts[None, :], sizes[None, :])
                    keys.append(tagged_hashes(table, length, np.arange(len(starts))[None, :]))
                    first[members + begin] = n_keys + len(starts) * np.arange(members.size)
                    widths[members + begin] = len(starts)
                    n_keys += table.size
        keys = np.concatenate([table.ravel() for table in keys]) if keys else np.empty(0, np.uint64)
        return keys, first, widths

    def match_ranges(self, keys, below=None):
        """Where each key's indexed rows lie in ``entries``: ``(low, counts)`` per key.

        With ``below`` (one row per key), only indexed rows under it: a
        self-join then meets each pair once, from its larger row.
        """
        below = np.full(len(keys), -1, dtype=np.int64) if below is None else below
        return _ranges(self.entries, self._starts, self._numbers.columns(keys), self.n_rows, below)

    def pair_codes(self, low, counts, key_rows, part, rows):
        """``probe row * n_rows + indexed row`` of every entry of the ranges
        whose key belongs to a probe row in the range ``rows`` (key ``i``:
        probe row ``part[key_rows[i]]``), in one pass with no temporaries: a
        task of person records under normalized Indel looks up ten million
        keys, and selecting a group's first took longer than expanding it."""
        return _pair_codes(
            self.entries, low, counts, key_rows, part, rows.start, rows.stop, self.n_rows
        )


@njit(cache=True, nogil=True)
def _pair_codes(entries, low, counts, key_rows, part, first_row, stop_row, n_rows):
    total = 0
    for i in range(len(low)):
        if first_row <= key_rows[i] < stop_row:
            total += counts[i]
    codes = np.empty(total, dtype=np.int64)
    filled = 0
    for i in range(len(low)):
        if first_row <= key_rows[i] < stop_row:
            probe = part[key_rows[i]] * n_rows
            for position in range(low[i], low[i] + counts[i]):
                codes[filled] = probe + entries[position] % n_rows
                filled += 1
    return codes


@njit(cache=True, nogil=True)
def _ranges(entries, starts, numbers, n_rows, below):
    """``(low, counts)`` of each key's range (``numbers[i] = -1``: absent), cut to
    its rows under ``below[i]`` (``-1``: all) by a binary search within it."""
    low = np.zeros(len(numbers), dtype=np.int64)
    counts = np.zeros(len(numbers), dtype=np.int64)
    for i in range(len(numbers)):
        number = numbers[i]
        if number < 0:
            continue
        first, last = starts[number], starts[number + 1]
        if below[i] >= 0:
            limit = number * n_rows + below[i]
            high = last
            last = first
            while last < high:
                middle = (last + high) // 2
                if entries[middle] < limit:
                    last = middle + 1
                else:
                    high = middle
        low[i], counts[i] = first, last - first
    return low, counts


@njit(cache=True)
def _grouped_entries(numbers, first, widths, frequency, dropped):
    """``row``'s keys are ``numbers[first[row]:first[row] + widths[row]]``;
    leave out its ``dropped`` most frequent (ties: the later ones) and return
    ``(entries, starts)``: ``number * n_rows + row`` of the rest, ascending,
    and where each number's entries start."""
    n_rows = len(first)
    kept = np.ones(len(numbers), dtype=np.bool_)
    starts = np.zeros(len(frequency) + 1, dtype=np.int64)
    for row in range(n_rows):
        begin, end = first[row], first[row] + widths[row]
        for _ in range(min(dropped, widths[row])):
            common = -1
            for j in range(begin, end):
                if kept[j] and (common < 0 or frequency[numbers[j]] >= frequency[numbers[common]]):
                    common = j
            kept[common] = False
        for j in range(begin, end):
            if kept[j]:
                starts[numbers[j] + 1] += 1
    starts = np.cumsum(starts)
    filled = starts[:-1].copy()
    entries = np.empty(starts[-1], dtype=np.int64)
    for row in range(n_rows):  # rows ascending: each key's rows ascend
        for j in range(first[row], first[row] + widths[row]):
            if kept[j]:
                number = numbers[j]
                entries[filled[number]] = number * n_rows + row
                filled[number] += 1
    return entries, starts


class PartitionFilter:
    """The partition filter of one side, ready to probe any rows of the other.

    Building it indexes the segments of ``index_strings`` (the work a join
    does once); :meth:`blocks` then probes the rows it is given, so that a
    join can be run, or timed on a sample of its probes, a part at a time.
    The windows of a probe length are planned when a row of that length is
    first probed.

    Parameters
    ----------
    index_strings, probe_strings : list of str
        The two sides (the same list for a self-join).
    bound : callable
        ``bound(index_lengths, probe_lengths) -> int array``: the largest
        Levenshtein distance a pair of those lengths may have to qualify.
    self_join : bool, default=False
        The two sides are one list: only pairs with ``index_row < probe_row``
        are generated.
    pair_filter : callable, default=None
        ``pair_filter(probe_rows, index_rows) -> (probe_rows, index_rows)``:
        a lossless check applied to each group of candidates where it is
        found (on the probing threads), so that only its survivors are held.
    n_jobs : int, default=None
        Threads probing blocks of rows at once.

    Attributes
    ----------
    short : ndarray of int64
        Indexed rows too short to cut: their pairs are not among the
        candidates (compare them to every probe directly).
    index_lengths, probe_lengths : ndarray of int64
        The length of each indexed row and of each probe row.
    """

    def __init__(
        self, index_strings, probe_strings, bound, self_join=False, pair_filter=None, n_jobs=None
    ):
        self.index_lengths = np.fromiter(map(len, index_strings), np.int64, len(index_strings))
        self.probe_lengths = np.fromiter(map(len, probe_strings), np.int64, len(probe_strings))
        counts = segment_counts(self.index_lengths, self.probe_lengths, bound)
        self.index = SegmentIndex(index_strings, counts)
        uncut = [length for length, n_segments in counts.items() if length < n_segments + DROPPED]
        self.short = np.flatnonzero(np.isin(self.index_lengths, uncut))
        self.probe_strings, self.self_join, self.bound = probe_strings, self_join, bound
        self.pair_filter, self.n_jobs = pair_filter, n_jobs
        # What every probe length's windows are planned from.
        self._cuts = [(length, *plan) for length, plan in self.index.plans.items()]
        self._cut_lengths = np.array([length for length, _, _ in self._cuts], np.int64)
        self._windows = {}

    def blocks(self, rows=None, n_jobs=None):
        """Candidate pairs ``(probe_rows, index_rows)`` of the probe ``rows``
        (all by default), block by block, each pair once within a block; on
        ``n_jobs`` threads (the filter's by default)."""
        n_jobs = self.n_jobs if n_jobs is None else n_jobs
        # A task holds one group of candidates when it is handed over; the
        # rest of its groups (a segment common to many rows) are expanded by
        # a pool of their own, as many at once as there are threads.
        for first, matches, rest in iter_in_threads(self._probed, self._tasks(rows), n_jobs):
            yield first
            yield from iter_in_threads(partial(self._expanded, matches), rest, n_jobs)

    def windows(self, probe_length):
        """``[(indexed length, windows)]`` a probe of ``probe_length`` looks up."""
        if probe_length not in self._windows:
            cut_lengths = self._cut_lengths
            taus = self.bound(cut_lengths, np.full(len(cut_lengths), probe_length))
            near = np.flatnonzero(np.abs(cut_lengths - probe_length) <= taus)
            self._windows[probe_length] = (
                probe_plans(probe_length, [self._cuts[i] for i in near], taus[near])
                if near.size
                else []
            )
        return self._windows[probe_length]

    def _tasks(self, rows):
        """``(probe rows, windows)`` of every block of the ``rows`` of one length."""
        rows = np.arange(len(self.probe_lengths)) if rows is None else np.sort(rows)
        lengths = self.probe_lengths[rows]
        for probe_length in np.unique(lengths):
            windows = self.windows(int(probe_length))
            if not windows:
                continue
            length_rows = rows[lengths == probe_length]
            width = sum(len(plan) for _, plan in windows)
            block = min(TASK_ROWS, max(1, PROBE_BLOCK // max(width, 1)))
            for begin in range(0, len(length_rows), block):
                yield length_rows[begin : begin + block], windows

    def _expanded(self, matches, rows):
        pairs = matches.pairs(rows)
        return self.pair_filter(*pairs) if self.pair_filter else pairs

    def _probed(self, task):
        part, windows = task
        matches = _Matches(self.index, self.probe_strings, part, windows, self.self_join)
        groups = _row_groups(matches.per_row(), MATCH_BLOCK)
        return self._expanded(matches, groups[0]), matches, groups[1:]


def partition_candidates(
    index_strings, probe_strings, bound, self_join=False, pair_filter=None, n_jobs=None
):
    """``(short, blocks)`` of a :class:`PartitionFilter` built on these
    arguments: its rows too short to cut and the candidate pairs of every
    probe row."""
    candidates = PartitionFilter(
        index_strings, probe_strings, bound, self_join, pair_filter, n_jobs
    )
    return candidates.short, candidates.blocks()


class _Matches:
    """The indexed rows matched by the window substrings of the probe rows ``part``."""

    def __init__(self, index, probe_strings, part, plans, self_join):
        hashes = _Hashes([probe_strings[i] for i in part])
        local = np.arange(len(part))[:, None]
        keys, key_rows = [], []
        for index_length, plan in plans:
            substring = hashes.of(local, plan[:, 1][None, :], plan[:, 2][None, :])
            plan_keys = tagged_hashes(substring, index_length, plan[:, 0][None, :])
            keys.append(plan_keys.ravel())
            key_rows.append(np.repeat(np.arange(len(part)), len(plan)))
        self.index, self.part = index, part
        self.key_rows = np.concatenate(key_rows)
        below = part[self.key_rows] if self_join else None
        self.low, self.counts = index.match_ranges(np.concatenate(keys), below)

    def per_row(self):
        """Raw matches of each probe row."""
        return _summed(self.key_rows, self.counts, len(self.part))

    def pairs(self, rows):
        """``(probe_rows, index_rows)`` of the probe rows in the range ``rows``,
        each pair once: the raw matches are expanded only for these rows, so
        groups of rows whose matches fit MATCH_BLOCK bound what a common
        segment can take."""
        codes = self.index.pair_codes(self.low, self.counts, self.key_rows, self.part, rows)
        pairs = sorted_unique(codes)
        return pairs // self.index.n_rows, pairs % self.index.n_rows


@njit(cache=True, nogil=True)
def _summed(rows, values, n_rows):
    """``values`` summed by row (``np.bincount`` with weights, in integers)."""
    sums = np.zeros(n_rows, dtype=np.int64)
    for i in range(len(rows)):
        sums[rows[i]] += values[i]
    return sums


def _row_groups(per_row, budget):
    """Consecutive ranges of rows, each with at most ``budget`` counts plus its
    last row's (a row over the budget is a range of its own)."""
    before = np.cumsum(per_row) - per_row
    window = (before // budget).astype(np.int64)
    edges = np.concatenate([[0], np.flatnonzero(np.diff(window)) + 1, [len(per_row)]])
    return [range(start, stop) for start, stop in zip(edges[:-1], edges[1:])]
