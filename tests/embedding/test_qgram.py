"""QGramEmbedder and the sparse cosine index."""

import numpy as np
import pytest
from scipy import sparse
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_ed import CGKEmbedder, FilterRefineClassifier, FilterRefineNeighbors, QGramEmbedder
from sklearn_ed.distances import pairwise_distances
from sklearn_ed.index import SparseCosineIndex
from sklearn_ed.metrics import make_top_k_recall_scorer


def _qgrams(string, q):
    return [string[i : i + q] for i in range(len(string) - q + 1)]


def test_profiles_count_the_q_grams():
    embedder = QGramEmbedder(q=2, weighting="count", padding=False).fit(["abab", "ba"])
    names = list(embedder.get_feature_names_out())
    row = embedder.transform(["abab"]).toarray()[0]
    counts = {name: row[i] for i, name in enumerate(names)}
    # "abab" has 2-grams ab, ba, ab: counts 2 and 1 before normalization.
    assert counts["ab"] == pytest.approx(2 / np.sqrt(5))
    assert counts["ba"] == pytest.approx(1 / np.sqrt(5))
    assert sparse.issparse(embedder.transform(["ab"]))


def test_padding_gives_short_strings_q_grams():
    embedder = QGramEmbedder(q=3).fit(["a", "word", "", "ab"])
    profiles = embedder.transform(["a", "ab", "", "zz"])
    assert profiles.getnnz(axis=1).tolist() == [1, 2, 0, 0]  # "zz": unseen q-grams
    np.testing.assert_allclose(sparse.linalg.norm(profiles[:2], axis=1), 1.0, rtol=1e-6)
    no_padding = QGramEmbedder(q=3, padding=False).fit(["word"])
    assert no_padding.transform(["word"]).nnz == 2


def test_default_q_follows_alphabet_length_and_size():
    rng = np.random.default_rng(0)
    words = ["".join(rng.choice(list("abcdefghij"), 8)) for _ in range(50)]
    assert QGramEmbedder().fit(words).q_ == 2  # 10 ** 2 >= 8 * sqrt(50)
    assert QGramEmbedder().fit(words * 40).q_ == 3  # 10 ** 3 >= 8 * sqrt(2000)
    dna = ["".join(rng.choice(list("ACGT"), 1000)) for _ in range(16)]
    assert QGramEmbedder().fit(dna).q_ == 6  # 4 ** 6 >= 1000 * 4


@pytest.mark.parametrize("weighting", ["tfidf", "count", "binary"])
def test_fit_transform_equals_fit_then_transform(families, weighting):
    strings, _ = families
    once = QGramEmbedder(weighting=weighting).fit_transform(strings)
    twice = QGramEmbedder(weighting=weighting).fit(strings).transform(strings)
    assert (once != twice).nnz == 0


def test_bad_q():
    with pytest.raises(InvalidParameterError):
        QGramEmbedder(q=0).fit(["abc"])
    with pytest.raises(ValueError, match="longer than every training string"):
        QGramEmbedder(q=5, padding=False).fit(["abc", "ab"])


@pytest.mark.parametrize("density", [0, -0.1, 1.5, "half"])
def test_bad_density(density):
    with pytest.raises(InvalidParameterError, match="density"):
        QGramEmbedder(density=density).fit(["abc"])


def test_filter_refine_with_q_grams_finds_the_exact_neighbors(families):
    strings, _ = families
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=3, n_candidates=15).fit(strings)
    queries = [s[1:] + "A" for s in strings]
    distances, _ = search.kneighbors(queries)
    exact = np.sort(pairwise_distances(queries, strings), axis=1)[:, :3]
    assert search.embedding_metric_ == "cosine"
    assert isinstance(search.index_, SparseCosineIndex)
    assert np.mean(distances == exact) >= 0.95


def test_all_candidates_equal_brute_force(families):
    strings, _ = families
    search = FilterRefineNeighbors(
        QGramEmbedder(q=4), n_neighbors=4, n_candidates=len(strings)
    ).fit(strings)
    brute = FilterRefineNeighbors(
        CGKEmbedder(random_state=0), n_neighbors=4, n_candidates=len(strings)
    ).fit(strings)
    for got, expected in zip(
        search.kneighbors(strings + ["", "zzz"]), brute.kneighbors(strings + ["", "zzz"])
    ):
        np.testing.assert_array_equal(got, expected)


def test_sparse_index_search_and_range_search_match_dense_cosine():
    base = sparse.random(300, 40, density=0.2, random_state=0, format="csr", dtype=np.float32)
    queries = sparse.random(12, 40, density=0.3, random_state=1, format="csr", dtype=np.float32)
    index = SparseCosineIndex().add(base[:200]).add(base[200:])
    dense_base = base.toarray() / np.maximum(np.linalg.norm(base.toarray(), axis=1), 1e-30)[:, None]
    dense_queries = queries.toarray() / np.linalg.norm(queries.toarray(), axis=1)[:, None]
    full = 1 - dense_queries @ dense_base.T
    distances, indices = index.search(queries, 5)
    np.testing.assert_allclose(distances, np.sort(full, axis=1)[:, :5], atol=1e-5)
    found = index.range_search(queries, 0.7)
    for row, hits in enumerate(found):
        assert set(np.flatnonzero(full[row] <= 0.7 - 1e-4)) <= set(hits)
        assert set(hits) <= set(np.flatnonzero(full[row] <= 0.7 + 1e-4))


def test_q_grams_in_pipeline_and_grid_search(families):
    strings, labels = families
    classifier = make_pipeline(
        FunctionTransformer(lambda X: [s.lower() for s in X]),
        FilterRefineClassifier(QGramEmbedder(), n_neighbors=3),
    )
    grid = GridSearchCV(classifier, {"filterrefineclassifier__embedder__q": [2, 3]}, cv=3)
    assert grid.fit(strings, labels).best_score_ > 0.9
    scored = GridSearchCV(
        FilterRefineNeighbors(QGramEmbedder(), n_neighbors=3),
        {"embedder__weighting": ["binary", "tfidf"]},
        cv=3,
        scoring=make_top_k_recall_scorer(k=3),
    ).fit(strings)
    assert scored.best_score_ > 0.5


def test_dense_indexes_refuse_sparse_embeddings(families):
    strings, _ = families
    with pytest.raises(ValueError, match="needs dense vectors"):
        FilterRefineNeighbors(QGramEmbedder(), filter_algorithm="hnsw").fit(strings)


# ------------------------------------------------------- sampled profiles
def test_sampled_profiles_keep_the_same_q_grams_in_every_string():
    rng = np.random.default_rng(0)
    strings = ["".join(rng.choice(list("ACGT"), 300)) for _ in range(40)]
    full = QGramEmbedder(q=6, density=1.0).fit(strings)
    sampled = QGramEmbedder(q=6, density=0.25).fit(strings)
    kept = set(sampled.get_feature_names_out())
    assert kept < set(full.get_feature_names_out())
    assert len(kept) / full.n_features_out_ == pytest.approx(0.25, abs=0.03)
    full_names, sampled_names = full.get_feature_names_out(), sampled.get_feature_names_out()
    for string in strings[:5] + ["".join(rng.choice(list("ACGT"), 300))]:
        in_full = {full_names[j] for j in full.transform([string]).indices}
        in_sampled = {sampled_names[j] for j in sampled.transform([string]).indices}
        assert in_sampled == in_full & kept


def test_auto_density_samples_only_large_bases_of_long_strings():
    from sklearn_ed.embedding import qgram_settings

    # Lists of one repeated string: the rule reads only the lengths and counts.
    million_reads = ["ACGT" * 250] * 1_000_000
    assert qgram_settings(QGramEmbedder(), million_reads, 4) == {"q": 7, "density": 0.1}
    fewer_reads = ["ACGT" * 250] * 50_000  # 50 million characters: every q-gram
    assert qgram_settings(QGramEmbedder(), fewer_reads, 4) == {"q": 9, "density": 1.0}
    names = ["anna karenina"] * 10_000_000  # 130 million characters, 14 per string
    assert qgram_settings(QGramEmbedder(), names, 26)["density"] == 1.0
    half = ["ACGT" * 250] * 200_000  # 200 million characters: half of them
    assert qgram_settings(QGramEmbedder(q=8), half)["density"] == pytest.approx(0.5)
    assert QGramEmbedder().fit(["kitten", "sitting"]).density_ == 1.0


def test_sampled_profiles_find_the_neighbors_of_reads():
    from sklearn_ed.datasets import make_genome_reads

    reads = make_genome_reads(2_030, genome_length=40_000, random_state=0).data
    base, queries = reads[:2_000], reads[2_000:]
    exact = pairwise_distances(queries, base, n_jobs=2)
    kth = np.sort(exact, axis=1)[:, 9]
    search = FilterRefineNeighbors(
        embedder=QGramEmbedder(density=0.1), n_neighbors=10, n_candidates=100, check_recall=False
    ).fit(base)
    assert search.embedder_.density_ == 0.1
    found = search.kneighbors(queries)[0]
    recall = np.mean(np.minimum((found <= kth[:, None]).sum(axis=1), 10) / 10)
    # 100 candidates of 2,000: a random filter would find 5 % of the top-10.
    assert recall >= 0.9, recall
