"""Seeded string generators shared by the tests, and the mark of tests that
need the neural extra."""

import importlib.util

import numpy as np
import pytest

# The core install leaves torch and skorch out (the ``neural`` extra).
HAS_NEURAL = all(importlib.util.find_spec(name) for name in ("torch", "skorch"))
# The estimators that train a network; without the extra their fit raises ImportError.
NEURAL_ESTIMATORS = {"CNNEDEmbedder", "GRUEmbedder", "TripletMinedEmbedder"}
needs_neural = pytest.mark.skipif(
    not HAS_NEURAL, reason="needs the neural extra (torch and skorch)"
)


def random_strings(n, length_range=(5, 30), alphabet="ACGT", seed=0):
    rng = np.random.default_rng(seed)
    letters = np.array(list(alphabet))
    lengths = rng.integers(length_range[0], length_range[1] + 1, size=n)
    return ["".join(rng.choice(letters, size=length)) for length in lengths]


def mutate(string, n_edits, rng, alphabet="ACGT"):
    chars = list(string)
    for _ in range(n_edits):
        operation = rng.integers(3)
        position = rng.integers(len(chars) + 1)
        if operation == 0 and position < len(chars):
            del chars[position]
        elif operation == 1 and position < len(chars):
            chars[position] = alphabet[rng.integers(len(alphabet))]
        else:
            chars.insert(position, alphabet[rng.integers(len(alphabet))])
    return "".join(chars)
