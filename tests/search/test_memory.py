"""The memory check of fit: its estimate against what a fit takes, and the
clear, early refusal of a base that would not fit."""

import tracemalloc

import numpy as np
import pytest

import sklearn_ed.search._memory as memory
from sklearn_ed import FilterRefineNeighbors, QGramEmbedder
from sklearn_ed.datasets import load_spell_benchmark, make_genome_reads
from sklearn_ed.distances import get_metric
from sklearn_ed.search import SearchPolicy


@pytest.fixture(scope="module")
def words():
    return np.array(load_spell_benchmark(n_base=30_000, n_query=10, n_train=10).base, dtype=object)


@pytest.fixture(scope="module")
def reads():
    return np.array(make_genome_reads(3_000, random_state=0).data, dtype=object)


def _estimate_and_peak(search, X):
    """The estimate fit would make, and the peak traced while fit builds the
    search of the whole base (the recall check and radius calibration that
    follow are left out of both: their samples bound their memory)."""
    search._resolve_metric()
    unbuilt = search._new_search(X, search._make_embedder(X))
    estimate = memory.fit_memory_estimate(unbuilt, X)
    tracemalloc.start()
    try:
        unbuilt.build(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return estimate, peak


@pytest.mark.parametrize("exact", [False, True], ids=["defaults", "exact"])
@pytest.mark.parametrize("data", ["words", "reads"])
def test_the_estimate_is_within_a_quarter_of_the_build(data, exact, request):
    X = request.getfixturevalue(data)
    search = FilterRefineNeighbors(n_neighbors=1, exact=exact)
    estimate, peak = _estimate_and_peak(search, X)
    assert 0.75 * peak <= estimate <= 1.25 * peak, (estimate / 2**20, peak / 2**20)


@pytest.fixture
def small_thresholds(monkeypatch):
    """Check bases of 1,000 items, on a machine with 1 MiB available."""
    monkeypatch.setattr(memory, "CHECK_FROM_ITEMS", 1_000)
    monkeypatch.setattr(memory, "available_memory", lambda: 2**20)


def test_a_base_that_does_not_fit_is_refused_before_it_is_embedded(
    words, small_thresholds, monkeypatch
):
    embedded = []
    fit_transform = QGramEmbedder.fit_transform

    def counting(self, X, y=None):
        embedded.append(len(X))
        return fit_transform(self, X, y)

    monkeypatch.setattr(QGramEmbedder, "fit_transform", counting)
    with pytest.raises(MemoryError, match=r"30,000 items would need about .* GiB") as error:
        FilterRefineNeighbors(QGramEmbedder()).fit(words)
    assert "sklearn_ed.dask.ShardedNeighbors" in str(error.value)
    assert "deletion lookup" in str(error.value)
    # Only the samples were embedded, never the base.
    assert embedded and max(embedded) < len(words) / 2


def test_small_bases_and_unchecked_embedders_are_not_checked(words, monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: 2**20)
    FilterRefineNeighbors(n_neighbors=1).fit(words[:5_000])  # below CHECK_FROM_ITEMS
    monkeypatch.setattr(memory, "CHECK_FROM_ITEMS", 1_000)
    vectors = np.random.default_rng(0).normal(size=(2_000, 4))
    FilterRefineNeighbors(n_neighbors=1, metric="euclidean").fit(vectors)


def test_an_unknown_amount_of_memory_skips_the_check(words, small_thresholds, monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: None)
    FilterRefineNeighbors(n_neighbors=1).fit(words[:3_000])


def test_the_estimate_of_sampled_profiles_counts_the_batches_in_flight():
    """With a sample of the q-grams kept, most of a build's peak is the
    temporaries of the batches counted at once, which do not grow with the
    base: the estimate extrapolates from the larger sample, not from zero."""
    X = np.array(make_genome_reads(13_000, random_state=0).data, dtype=object)
    search = FilterRefineNeighbors(n_neighbors=1, embedder=QGramEmbedder(density=0.1, n_jobs=2))
    estimate, peak = _estimate_and_peak(search, X)
    assert 0.75 * peak <= estimate <= 1.25 * peak, (estimate / 2**20, peak / 2**20)


def test_samples_are_built_with_the_q_gram_settings_of_the_whole_base():
    seen = []

    class RecordedSearch:
        """What the estimate reads of a search, recording each sample build."""

        embedder, metric, policy = QGramEmbedder(), get_metric("levenshtein"), SearchPolicy()

        def empty_copy(self, embedder, policy):
            self.embedder = embedder
            return self

        def build(self, sample):
            params = self.embedder.get_params()
            seen.append((len(sample), params["q"], params["density"]))
            return list(sample)

    X = ["ACGT" * 250] * 200_000  # 200 million characters: half the q-grams kept
    memory.fit_memory_estimate(RecordedSearch(), X)
    assert [q for _, q, _ in seen] == [9, 9, 9]  # 4 ** 9 >= 1000 * 0.5 ** 2 * sqrt(200,000)
    assert [density for _, _, density in seen] == [0.5, 0.5, 0.5]
    assert [size for size, _, _ in seen] == [4_000, 4_000, 12_000]
