"""DaskStringDeduplicator on a LocalCluster of 2 worker processes: the groups,
representatives and predictions of StringDeduplicator, named by rows."""

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_ed import StringDeduplicator
from sklearn_ed.datasets import load_spell_benchmark

pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from sklearn_ed.dask import DaskStringDeduplicator  # noqa: E402

OPTIONS = dict(min_similarity=0.8, metric="normalized_indel", processor="default_sort_tokens")


@pytest.fixture(scope="module")
def spelling():
    """Fitted words with copies and two-word names; new strings near some of
    them, copied among themselves, and far from all."""
    data = load_spell_benchmark(n_base=300, n_query=60, n_train=10)
    base = list(data.base)
    names = [f"{a} {b}" for a, b in zip(base[:30], base[30:60])]
    fitted = base + names + base[:20] + [f"{b} {a}" for a, b in zip(base[:10], base[30:40])]
    far = ["qqqqzzzz", "zzzzqqqq xx", "qqqqzzzz"]
    new = list(data.query) + [f"{b}, {a}" for a, b in zip(base[40:45], base[10:15])] + far
    return fitted, new


def row_named(labels, new_labels, n_groups):
    """StringDeduplicator's labels named as the distributed groups are: a fitted
    group by its smallest row, a new one by n_fitted + its first new string."""
    n_fitted = len(labels)
    smallest = pd.Series(np.arange(n_fitted)).groupby(labels).min()
    first_new = pd.Series(np.arange(len(new_labels))).groupby(new_labels).min()
    return np.array(
        [
            smallest[label] if label < n_groups else n_fitted + first_new[label]
            for label in new_labels
        ]
    )


@pytest.mark.parametrize("linkage", ["representative", "connected"])
def test_groups_and_predictions_of_one_process(client, spelling, linkage, tmp_path):
    fitted, new = spelling
    local = StringDeduplicator(linkage=linkage, **OPTIONS).fit(fitted)
    dedup = DaskStringDeduplicator(
        linkage=linkage, block_size=70, path=tmp_path / "groups", client=client, **OPTIONS
    ).fit(dd.from_pandas(pd.Series(fitted), npartitions=3))
    groups = dedup.groups_.compute()
    named = row_named(local.labels_, local.labels_, local.n_groups_)
    np.testing.assert_array_equal(groups["group"], named)
    assert sorted(groups["row"][groups["representative"]]) == sorted(local.representatives_)
    assert (dedup.n_groups_, dedup.n_samples_fit_) == (local.n_groups_, len(fitted))

    predicted = dedup.predict(new)
    expected = row_named(local.labels_, local.predict(new), local.n_groups_)
    np.testing.assert_array_equal(predicted, expected)
    assert (predicted < len(fitted)).sum() > 20  # many new strings joined a group
    assert predicted[-3] == predicted[-1] == len(fitted) + len(new) - 3  # new group of copies
    new_series = dd.from_pandas(pd.Series(new), npartitions=2)
    np.testing.assert_array_equal(dedup.predict(new_series), expected)
    assert not list((tmp_path / "groups").glob("predict-*"))  # predict's own folders removed


@pytest.mark.parametrize("linkage", ["representative", "connected"])
def test_copies_spread_over_blocks_keep_the_representatives(client, linkage, tmp_path):
    # "abce" (3 copies) has 123 neighbours, each "abcd" (120 copies) 122: the
    # representative is the first "abce" although most strings are "abcd".
    strings = ["abcd"] * 120 + ["abce", "abxe", "zzzz", "zzzy", "zzzz", "abce", "abce"]
    local = StringDeduplicator(threshold=1, linkage=linkage).fit(strings)
    dedup = DaskStringDeduplicator(
        threshold=1, linkage=linkage, block_size=25, path=tmp_path / "groups", client=client
    ).fit(strings)
    groups = dedup.groups_.compute()
    assert sorted(groups["row"][groups["representative"]]) == sorted(local.representatives_)
    assert 120 in local.representatives_
    named = row_named(local.labels_, local.labels_, local.n_groups_)
    np.testing.assert_array_equal(groups["group"], named)


def test_a_new_string_joins_the_nearest_representative(client, tmp_path):
    dedup = DaskStringDeduplicator(threshold=2, path=tmp_path / "groups", client=client)
    dedup.fit(["abcdef", "abcdef", "uvwxyz", "abcxyz"])
    assert dedup.groups_["group"].compute().tolist() == [0, 0, 2, 3]
    assert dedup.predict(["abcdeg", "uvwxyy", "abcxyz", "mmmm"]).tolist() == [0, 2, 3, 7]


def test_each_fit_needs_a_new_folder(client, tmp_path):
    dedup = DaskStringDeduplicator(threshold=1, path=tmp_path / "groups", client=client)
    dedup.fit(["aa", "ab", "cc"])
    files = sorted((tmp_path / "groups").iterdir())
    with pytest.raises(FileExistsError, match="not an empty folder"):
        dedup.fit(["aa", "ab", "cc"])
    assert sorted((tmp_path / "groups").iterdir()) == files
    assert dedup.set_params(path=None).fit(["aa", "ab", "cc"]).path_.exists()


def test_bad_parameters_and_unfitted_use_are_refused(client):
    with pytest.raises(InvalidParameterError, match="linkage"):
        DaskStringDeduplicator(linkage="complete", client=client).fit(["a", "b"])
    with pytest.raises(InvalidParameterError, match="block_size"):
        DaskStringDeduplicator(block_size=0, client=client).fit(["a", "b"])
    temporary = set(Path(tempfile.gettempdir()).glob("sklearn-ed-groups-*"))
    with pytest.raises(ValueError, match="metric="):
        DaskStringDeduplicator(metric="euclidean", client=client).fit(["a", "b"])
    assert set(Path(tempfile.gettempdir()).glob("sklearn-ed-groups-*")) == temporary
    with pytest.raises(NotFittedError):
        DaskStringDeduplicator(client=client).predict(["a"])
    fitted = DaskStringDeduplicator(threshold=1, client=client).fit(["aa", "ab"])
    with pytest.raises(ValueError, match="X contains 0 strings"):
        fitted.predict([])
    with pytest.raises(TypeError, match="X"):
        fitted.predict(["aa", 3])
