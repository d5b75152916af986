"""The lists the join tests share."""

import numpy as np
import pytest


def mutate(string, n_edits, rng):
    letters = list(string)
    for _ in range(n_edits):
        where = int(rng.integers(len(letters) + 1))
        kind = rng.integers(3)
        if kind == 0 and where < len(letters):
            letters[where] = str(rng.choice(list("abcé")))
        elif kind == 1 and where < len(letters):
            del letters[where]
        else:
            letters.insert(where, str(rng.choice(list("abcé"))))
    return "".join(letters)


@pytest.fixture(scope="module")
def sides():
    """Families of near duplicates of 0-30 letters, with empty, repeated and unicode strings."""
    rng = np.random.default_rng(0)
    seeds = ["".join(rng.choice(list("abcdé"), rng.integers(0, 30))) for _ in range(40)]
    left = [mutate(s, int(rng.integers(0, 5)), rng) for s in seeds for _ in range(4)]
    left += ["", "", "a", "ab", "ab", "日本語", "日本"]
    right = [mutate(s, int(rng.integers(0, 4)), rng) for s in seeds[:25] for _ in range(3)]
    return np.array(left, dtype=object), np.array(right + [""], dtype=object)
