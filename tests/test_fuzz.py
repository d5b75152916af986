"""Fuzzed public surface: generated strings, containers and parameters.

Every call either raises a documented exception with a message, or returns
a result that passes the invariants: shapes, exact distances, sorted rows,
and the brute-force answer when every item is a candidate. The default run
tries a few dozen derandomized examples per property; ``pytest -m slow``
tries hundreds.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_ed import CGKEmbedder, FilterRefineClassifier, FilterRefineNeighbors, QGramEmbedder
from sklearn_ed.distances import pairwise_distances

# Any code point, lone surrogates and combining marks included.
CHARACTERS = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
STRINGS = st.one_of(
    st.text(CHARACTERS, max_size=12),
    st.text("ab\u0301", max_size=12),
    st.text("ACGT", min_size=200, max_size=300),
)
BASES = st.lists(STRINGS, min_size=1, max_size=25)
EMBEDDERS = st.sampled_from(["auto", "qgram", "cgk"])
QUICK = settings(
    max_examples=30, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
LONG = settings(
    max_examples=400, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _embedder(name):
    return {"auto": "auto", "qgram": QGramEmbedder(q=2), "cgk": CGKEmbedder(random_state=0)}[name]


def _container(strings, kind, seed):
    if kind == "list":
        return list(strings)
    index = np.random.default_rng(seed).permutation(len(strings)) * 3 + 1
    if kind == "series":
        return pd.Series(strings, index=index, dtype=object)
    if kind == "frame":
        return pd.DataFrame({"text": pd.Series(strings, index=index, dtype=object)})
    return np.array(strings, dtype=object)


def _check_search(base, queries, embedder, container, n_neighbors, seed):
    search = FilterRefineNeighbors(_embedder(embedder), n_neighbors=n_neighbors, random_state=0)
    search.fit(_container(base, container, seed))
    distances, indices = search.kneighbors(_container(queries, container, seed + 1))
    assert distances.shape == indices.shape == (len(queries), n_neighbors)
    exact = pairwise_distances(queries, base).astype(float)
    np.testing.assert_array_equal(distances, np.take_along_axis(exact, indices, axis=1))
    assert (np.diff(distances, axis=1) >= 0).all()
    if search.n_candidates_ >= len(base):  # every item a candidate: brute force
        np.testing.assert_array_equal(distances, np.sort(exact, axis=1)[:, :n_neighbors])


def _search_property(data):
    base = data.draw(BASES, label="base")
    queries = data.draw(st.lists(STRINGS, min_size=1, max_size=5), label="queries")
    n_neighbors = data.draw(st.integers(1, len(base)), label="n_neighbors")
    _check_search(
        base,
        queries,
        data.draw(EMBEDDERS, label="embedder"),
        data.draw(st.sampled_from(["list", "series", "frame", "array"])),
        n_neighbors,
        data.draw(st.integers(0, 99)),
    )


@QUICK
@given(st.data())
def test_search_returns_exact_sorted_distances(data):
    _search_property(data)


@pytest.mark.slow
@LONG
@given(st.data())
def test_search_returns_exact_sorted_distances_long(data):
    _search_property(data)


def _bad_input_property(data):
    base = data.draw(BASES, label="base")
    bad = data.draw(st.sampled_from([None, np.nan, 3, 2.5, b"bytes", ("a",)]), label="bad")
    position = data.draw(st.integers(0, len(base)), label="position")
    items = list(base)
    items.insert(position, bad)
    with pytest.raises((TypeError, ValueError), match=rf"X\[{position}\]"):
        FilterRefineNeighbors().fit(items)
    search = FilterRefineNeighbors().fit(base)
    radius = data.draw(st.sampled_from([np.nan, np.inf, -np.inf, -1.0]), label="radius")
    with pytest.raises(ValueError, match="radius must be a finite non-negative number"):
        search.radius_neighbors(base[:1], radius=radius)
    n_candidates = data.draw(st.sampled_from([0.0, 1.5, -1, np.nan, "all"]))
    with pytest.raises(InvalidParameterError, match="n_candidates"):
        FilterRefineNeighbors(n_candidates=n_candidates).fit(base)


@QUICK
@given(st.data())
def test_bad_input_gets_a_clear_error(data):
    _bad_input_property(data)


@pytest.mark.slow
@LONG
@given(st.data())
def test_bad_input_gets_a_clear_error_long(data):
    _bad_input_property(data)


def _classifier_property(data):
    base = data.draw(st.lists(STRINGS, min_size=2, max_size=25), label="base")
    labels = np.array(
        data.draw(st.lists(st.integers(0, 2), min_size=len(base), max_size=len(base)))
    )
    n_neighbors = data.draw(st.integers(1, len(base)))
    clf = FilterRefineClassifier(n_neighbors=n_neighbors, n_candidates=1.0).fit(base, labels)
    proba = clf.predict_proba(base)
    assert proba.shape == (len(base), len(clf.classes_))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    order = np.random.default_rng(0).permutation(len(base))
    shuffled = FilterRefineClassifier(n_neighbors=n_neighbors, n_candidates=1.0).fit(
        [base[i] for i in order], labels[order]
    )
    np.testing.assert_allclose(shuffled.predict_proba(base), proba)


@QUICK
@given(st.data())
def test_classifier_probabilities_ignore_training_order(data):
    _classifier_property(data)


@pytest.mark.slow
@LONG
@given(st.data())
def test_classifier_probabilities_ignore_training_order_long(data):
    _classifier_property(data)
