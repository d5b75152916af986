"""Edit distances of rapidfuzz besides Levenshtein: Indel, OSA,
Damerau-Levenshtein and LCSseq, in edits.

- Indel: insertions and deletions only (a substitution costs 2).
- OSA (optimal string alignment): Levenshtein with adjacent transpositions,
  no substring edited twice; not a metric (CA-AC-ABC: 1 + 1 < 3).
- Damerau-Levenshtein: unrestricted transpositions (Lowrance and Wagner).
- LCSseq: ``max(n, m) - LCS``.

Lower bounds, all from the q-gram and length bound of Levenshtein:

- Indel >= Levenshtein: an Indel script is a Levenshtein script (a
  substitution costs 2 in Indel, 1 in Levenshtein), so the Levenshtein
  bound holds as it is; so do the deletion and halves lookups, whose
  supersets of the items within Levenshtein d hold the items within Indel d.
- OSA >= Levenshtein / 2 and Damerau-Levenshtein >= Levenshtein / 2: an
  adjacent transposition costs 1 there and at most 2 in Levenshtein, so every
  script of cost c maps to a Levenshtein script of cost at most 2c. Both are
  also at least the length difference (only insertions and deletions change
  the length), and integers.
- LCSseq >= Levenshtein / 2: LCSseq = max(n, m) - LCS, and Levenshtein <=
  Indel = n + m - 2 LCS <= 2 (max(n, m) - LCS).

The same inequalities give their Levenshtein radius for joins
(``_radii``): ``t`` for Indel, ``2 t`` for the others.
"""

from functools import partial

from rapidfuzz.distance import OSA, DamerauLevenshtein, Indel, LCSseq

from ..bounds._deletions import deletion_index
from ..bounds._halves import halves_index
from ..bounds._radii import edit_radius
from ..bounds._string_bounds import HalvedLevenshteinBound, LevenshteinBound
from ._oriented_cdist import TURN_LCS_LIKE, TURN_LEVENSHTEIN_LIKE
from ._string_scorers import scorer_metric


def lcs_length(x, y):
    """Length of the longest common subsequence (plain dynamic programming)."""
    previous = [0] * (len(y) + 1)
    for char_x in x:
        current = [0]
        for j, char_y in enumerate(y, start=1):
            current.append(
                previous[j - 1] + 1 if char_x == char_y else max(previous[j], current[-1])
            )
        previous = current
    return previous[-1]


def indel_oracle(x, y):
    """``n + m - 2 LCS`` (reference)."""
    return len(x) + len(y) - 2 * lcs_length(x, y)


def lcsseq_oracle(x, y):
    """``max(n, m) - LCS`` (reference)."""
    return max(len(x), len(y)) - lcs_length(x, y)


def osa_oracle(x, y):
    """Optimal string alignment by dynamic programming (reference)."""
    rows = [list(range(len(y) + 1))]
    for i in range(1, len(x) + 1):
        row = [i] + [0] * len(y)
        for j in range(1, len(y) + 1):
            row[j] = min(
                rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (x[i - 1] != y[j - 1])
            )
            if i > 1 and j > 1 and x[i - 1] == y[j - 2] and x[i - 2] == y[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def damerau_levenshtein_oracle(x, y):
    """Unrestricted Damerau-Levenshtein (Lowrance and Wagner, 1975; reference)."""
    infinity = len(x) + len(y)
    last_row = {}
    table = [[infinity] * (len(y) + 2)] + [
        [infinity] + list(range(len(y) + 1)) if i == 0 else [infinity, i] + [0] * len(y)
        for i in range(len(x) + 1)
    ]
    for i in range(1, len(x) + 1):
        last_column = 0
        for j in range(1, len(y) + 1):
            k, previous_column = last_row.get(y[j - 1], 0), last_column
            cost = x[i - 1] != y[j - 1]
            if not cost:
                last_column = j
            table[i + 1][j + 1] = min(
                table[i][j] + cost,
                table[i + 1][j] + 1,
                table[i][j + 1] + 1,
                table[k][previous_column] + (i - k - 1) + 1 + (j - previous_column - 1),
            )
        last_row[x[i - 1]] = i
    return table[len(x) + 1][len(y) + 1]


_HALF_LEVENSHTEIN = {
    "lower_bound": HalvedLevenshteinBound,
    "levenshtein_radius": partial(edit_radius, factor=2),
}

INDEL = scorer_metric(
    "indel",
    Indel.distance,
    "edits",
    oracle=indel_oracle,
    is_metric=True,
    lower_bound=LevenshteinBound,
    near_lookup=deletion_index,
    far_lookup=halves_index,
    levenshtein_radius=edit_radius,
    prefix_distance="indel",
    turn_long_rows_from=TURN_LCS_LIKE,
)
OSA_METRIC = scorer_metric(
    "osa",
    OSA.distance,
    "edits",
    oracle=osa_oracle,
    is_metric=False,
    turn_long_rows_from=TURN_LEVENSHTEIN_LIKE,
    **_HALF_LEVENSHTEIN,
)
DAMERAU_LEVENSHTEIN = scorer_metric(
    "damerau_levenshtein",
    DamerauLevenshtein.distance,
    "edits",
    oracle=damerau_levenshtein_oracle,
    is_metric=True,
    **_HALF_LEVENSHTEIN,
)
LCSSEQ = scorer_metric(
    "lcsseq",
    LCSseq.distance,
    "edits",
    oracle=lcsseq_oracle,
    is_metric=True,
    turn_long_rows_from=TURN_LCS_LIKE,
    **_HALF_LEVENSHTEIN,
)
