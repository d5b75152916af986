import numpy as np
import pytest
from _testing import HAS_NEURAL, mutate, random_strings

import sklearn_ed

# Whole modules on the networks: not collected without the neural extra.
NEURAL_MODULES = ["embedding/test_cnned.py", "embedding/test_gru.py", "embedding/test_triplet.py"]
collect_ignore = [] if HAS_NEURAL else NEURAL_MODULES


def pytest_report_header(config):
    neural = "installed" if HAS_NEURAL else f"missing: {', '.join(NEURAL_MODULES)} not collected"
    return [
        f"sklearn_ed imported from {sklearn_ed.__path__[0]}",
        f"neural extra (torch, skorch): {neural}",
    ]


@pytest.fixture(scope="session")
def families():
    """Seeded strings in families of near-duplicates (real neighbors exist)."""
    rng = np.random.default_rng(0)
    seeds = random_strings(20, (30, 50), seed=1)
    strings = [mutate(seed, rng.integers(0, 5), rng) for seed in seeds for _ in range(6)]
    labels = np.repeat(np.arange(len(seeds)), 6)
    return strings, labels


@pytest.fixture
def filter_kept(monkeypatch):
    """Fits of ``embedder="auto"`` keep the filter they build: the timing
    against brute force (``time_queries``) always finds the filter faster."""
    from sklearn_ed.search import QueryTiming

    def filter_faster(*args, **kwargs):
        return QueryTiming(filter_seconds=0.0, brute_seconds=1.0, brute_timed=False)

    monkeypatch.setattr("sklearn_ed.neighbors._brute_force.time_queries", filter_faster)
