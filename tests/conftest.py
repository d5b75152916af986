import numpy as np
import pytest
from _testing import mutate, random_strings


@pytest.fixture(scope="session")
def families():
    """Seeded strings in families of near-duplicates (real neighbors exist)."""
    rng = np.random.default_rng(0)
    seeds = random_strings(20, (30, 50), seed=1)
    strings = [mutate(seed, rng.integers(0, 5), rng) for seed in seeds for _ in range(6)]
    labels = np.repeat(np.arange(len(seeds)), 6)
    return strings, labels
