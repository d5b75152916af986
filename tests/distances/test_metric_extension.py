"""A metric registered at run time, from outside the package, is offered by
everything that takes a metric, with no other file touched: exact search,
both exact joins, the deduplicator, save/load and the command line.

The metric counts every edit twice ("half-edits": Levenshtein times 2), so
its lower bound, its Levenshtein radius (``floor(t / 2)``) and its prefix
bound all differ from Levenshtein's own."""

import io

import numpy as np
import pandas as pd
import pytest
from _testing import mutate, random_strings
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from sklearn_ed import (
    FilterRefineNeighbors,
    QGramEmbedder,
    StringDeduplicator,
    load,
    save,
    similarity_join,
)
from sklearn_ed.cli import main
from sklearn_ed.distances import (
    LevenshteinBound,
    Metric,
    available_metrics,
    edit_radius,
    pairwise_distances,
    register_metric,
)

NAME = "half_edits"


def _halved(score_cutoff):
    return None if score_cutoff is None else int(np.floor(score_cutoff / 2))


def half_edits_pairwise(X, Y, score_cutoff=None):
    cutoff = _halved(score_cutoff)
    return 2 * process.cdist(
        X, Y, scorer=Levenshtein.distance, score_cutoff=cutoff, dtype=np.int32, workers=1
    )


def half_edits_paired(X, Y, score_cutoff=None, workers=1):
    cutoff = _halved(score_cutoff)
    return 2 * process.cpdist(
        X, Y, scorer=Levenshtein.distance, score_cutoff=cutoff, dtype=np.int32, workers=workers
    )


def half_edits_radius(threshold):
    """Within ``t`` half-edits: within ``floor(t / 2)`` edits."""
    return edit_radius(threshold / 2)


class HalfEditsBound:
    """Twice the Levenshtein bound."""

    def __init__(self, base):
        self.levenshtein = LevenshteinBound(base)

    def bounds(self, queries):
        return 2 * self.levenshtein.bounds(queries)

    def within(self, queries, limits):
        found = self.levenshtein.within(queries, np.asarray(limits, dtype=np.float64) / 2)
        return [(items, 2 * bounds) for items, bounds in found]


HALF_EDITS = Metric(
    name=NAME,
    pairwise=half_edits_pairwise,
    input_type="strings",
    integer_valued=True,
    supports_cutoff=True,
    oracle=lambda x, y: 2 * Levenshtein.distance(x, y),
    paired=half_edits_paired,
    lower_bound=HalfEditsBound,
    levenshtein_radius=half_edits_radius,
    prefix_distance="levenshtein",
)


@pytest.fixture
def half_edits(restored_registry):
    register_metric(HALF_EDITS)
    yield NAME
    # restored_registry takes it out again


@pytest.fixture(scope="module")
def words():
    rng = np.random.default_rng(0)
    seeds = random_strings(25, (5, 12), alphabet="abcdefg", seed=3)
    return [mutate(seed, int(rng.integers(0, 4)), rng) for seed in seeds for _ in range(4)]


def _brute_pairs(strings, threshold):
    exact = pairwise_distances(strings, metric=NAME)
    rows, columns = np.nonzero(np.triu(exact <= threshold, k=1))
    return rows, columns, exact[rows, columns]


def test_the_metric_is_registered_for_the_test_only(half_edits):
    assert half_edits in available_metrics("strings")


def test_exact_search_equals_brute_force(half_edits, words):
    queries = [word[1:] + "a" for word in words[::5]]
    search = FilterRefineNeighbors(
        QGramEmbedder(), metric=half_edits, n_neighbors=3, n_candidates=3, exact=True
    ).fit(words)
    exact = pairwise_distances(queries, words, metric=half_edits)
    # Ties in the order of the base, as brute force breaks them.
    order = np.lexsort((np.broadcast_to(np.arange(len(words)), exact.shape), exact), axis=1)
    expected = np.take_along_axis(exact, order[:, :3], axis=1), order[:, :3]
    for got, want in zip(search.kneighbors(queries), expected):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("method", ["partition", "brute", "auto"])
def test_joins_equal_brute_force(half_edits, words, method):
    expected = _brute_pairs(words, 3)
    assert len(expected[0]) > 0
    got = similarity_join(words, threshold=3, metric=half_edits, method=method)
    order = np.lexsort((got[1], got[0]))
    for a, b in zip((part[order] for part in got), expected):
        np.testing.assert_array_equal(a, b)


def test_the_brute_join_takes_its_prefix_bound(half_edits, monkeypatch):
    """Strings of 65 to 96 characters go through the prefix bound, in
    Levenshtein edits against the metric's radius."""
    from sklearn_ed.join._prefix_bound import PrefixBound

    pruned = []
    candidates = PrefixBound.candidates

    def counted(self, left, rows, first, last=None, n_jobs=None):
        pruned.append(len(rows))
        return candidates(self, left, rows, first, last, n_jobs)

    monkeypatch.setattr(PrefixBound, "candidates", counted)
    rng = np.random.default_rng(1)
    seeds = random_strings(6, (70, 90), alphabet="acgt", seed=5)
    long = [mutate(seed, int(rng.integers(0, 3)), rng) for seed in seeds for _ in range(5)]
    got = similarity_join(long, threshold=4, metric=half_edits, method="brute")
    assert sum(pruned) > 0 and len(got[0]) > 0
    order = np.lexsort((got[1], got[0]))
    for a, b in zip((part[order] for part in got), _brute_pairs(long, 4)):
        np.testing.assert_array_equal(a, b)


def test_the_deduplicator_groups_by_it(half_edits, words):
    dedup = StringDeduplicator(threshold=2, metric=half_edits, linkage="connected").fit(words)
    rows, columns, _ = _brute_pairs(words, 2)
    for row, column in zip(rows, columns):
        assert dedup.labels_[row] == dedup.labels_[column]
    assert dedup.n_groups_ < len(set(words))


def test_save_and_load_by_its_registry_name(half_edits, words, tmp_path):
    search = FilterRefineNeighbors(
        QGramEmbedder(), metric=half_edits, n_neighbors=2, n_candidates=3, exact=True
    ).fit(words)
    restored = load(save(search, tmp_path / "search"))
    queries = ["abcde", "gfedcba", ""]
    for got, expected in zip(restored.kneighbors(queries), search.kneighbors(queries)):
        np.testing.assert_array_equal(got, expected)
    assert restored.search_.metric.lower_bound is HalfEditsBound


def test_the_command_line_offers_it(half_edits, words, tmp_path, capsys):
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n")
    argv = ["join", str(tmp_path / "words.txt"), "--threshold", "3", "--metric", half_edits]
    assert main([*argv, "-q"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t")
    assert len(frame) == len(_brute_pairs(words, 3)[0])
    argv = ["knn", str(tmp_path / "words.txt"), "-k", "1", "--exact", "--metric", half_edits]
    assert main([*argv, "-q"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t")
    assert (frame["distance"] % 2 == 0).all() and len(frame) >= len(words)
