"""The distributed join and deduplication on a LocalCluster of 2 worker
processes: the pairs and groups of one process for every string metric,
Dask inputs, a lost worker, a hot string, and bad input."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ed import StringDeduplicator
from sklearn_ed import similarity_join as local_join
from sklearn_ed.datasets import load_spell_benchmark
from sklearn_ed.distances import available_metrics, get_metric

distributed = pytest.importorskip("distributed")
dask_bag = pytest.importorskip("dask.bag")
dd = pytest.importorskip("dask.dataframe")

from test_dask import kill_process_soon, two_workers  # noqa: E402

from sklearn_ed.dask import group_duplicates, similarity_join  # noqa: E402
from sklearn_ed.dask._blocks import length_blocks  # noqa: E402
from sklearn_ed.dask._join import removed_partials  # noqa: E402

STRING_METRICS = [name for name in available_metrics() if get_metric(name).input_type == "strings"]
# Three thresholds per metric, as the benchmark matrix: in edits or a share.
THRESHOLDS = {True: (0.1, 0.2, 0.3), False: (0, 1, 2)}
BLOCK_SIZE = 90


@pytest.fixture(scope="module")
def words():
    """Words 1-3 edits apart, some copied, some with two words (token metrics)."""
    base = list(load_spell_benchmark(n_base=300, n_query=10, n_train=10).base)
    pairs = [f"{a} {b}" for a, b in zip(base[:40], base[40:80])]
    return base + pairs + base[:25] + [f"{b} {a}" for a, b in zip(base[:10], base[40:50])]


def sorted_pairs(frame):
    frame = frame.compute().sort_values(["left", "right"])
    return frame["left"].to_numpy(), frame["right"].to_numpy(), frame["distance"].to_numpy()


def assert_same_pairs(found, expected):
    np.testing.assert_array_equal(found[0], expected[0])
    np.testing.assert_array_equal(found[1], expected[1])
    np.testing.assert_allclose(found[2], expected[2])


@pytest.mark.parametrize("metric", STRING_METRICS)
@pytest.mark.parametrize("self_join", [True, False], ids=["self", "two tables"])
def test_the_pairs_of_one_process_for_every_metric_and_threshold(
    client, words, metric, self_join, tmp_path
):
    normalized = get_metric(metric).normalized
    left, right = (words, None) if self_join else (words[:300], words[150:])
    processor = "default_sort_tokens" if metric.startswith("token") else None
    for number, threshold in enumerate(THRESHOLDS[normalized]):
        options = dict(threshold=threshold, metric=metric, processor=processor)
        found = similarity_join(
            left,
            right,
            path=tmp_path / str(number),
            block_size=BLOCK_SIZE,
            client=client,
            **options,
        )
        expected = local_join(left, right, **options)
        assert len(expected[0]) > 0
        assert_same_pairs(sorted_pairs(found), expected)


def test_dask_series_and_bags_are_read_where_they_live(client, words, tmp_path):
    series = dd.from_pandas(pd.Series(words, name="name"), npartitions=3)
    bag = dask_bag.from_sequence(words[100:], npartitions=2)
    options = dict(min_similarity=0.8, metric="normalized_indel", processor="default")
    found = similarity_join(series, bag, path=tmp_path / "pairs", client=client, **options)
    assert_same_pairs(sorted_pairs(found), local_join(words, words[100:], **options))


@pytest.mark.parametrize("linkage", ["representative", "connected"])
def test_groups_equal_the_linkage_of_one_process(client, words, linkage, tmp_path):
    series = dd.from_pandas(pd.Series(words), npartitions=4)
    options = dict(min_similarity=0.8, metric="normalized_levenshtein")
    groups = group_duplicates(
        series,
        path=tmp_path / "groups",
        linkage=linkage,
        block_size=BLOCK_SIZE,
        client=client,
        **options,
    ).compute()
    labels = StringDeduplicator(linkage=linkage, **options).fit_predict(words)
    smallest_row = pd.Series(np.arange(len(words))).groupby(labels).transform("min")
    assert groups["string"].tolist() == words
    np.testing.assert_array_equal(groups["row"], np.arange(len(words)))
    np.testing.assert_array_equal(groups["group"], smallest_row)
    assert groups["group"].nunique() < len(words) - 30  # copies and near words grouped


def test_representative_linkage_breaks_the_chains_connected_linkage_follows(client, tmp_path):
    chain = ["aaaa", "aaab", "aabb", "abbb", "bbbb", "aaaa", "xyz"]
    found = {
        linkage: group_duplicates(
            chain, threshold=1, linkage=linkage, path=tmp_path / linkage, client=client
        )["group"]
        .compute()
        .tolist()
        for linkage in ("representative", "connected")
    }
    assert found["connected"] == [0, 0, 0, 0, 0, 0, 6]
    expected = StringDeduplicator(threshold=1).fit_predict(chain)
    smallest_row = pd.Series(np.arange(len(chain))).groupby(expected).transform("min")
    assert found["representative"] == smallest_row.tolist()
    assert len(set(found["representative"])) > 2


def test_a_worker_killed_mid_join_costs_time_not_pairs(words, tmp_path):
    many = [f"{word}{suffix}" for suffix in ("", "s") for word in words]
    expected = local_join(many, threshold=2)
    with two_workers() as (cluster, dask_client):
        dask_client.run(__import__, "sklearn_ed.join")
        victim = next(iter(cluster.workers.values())).process.process.pid
        killer = kill_process_soon(victim, delay=1.5)
        found = similarity_join(
            many, threshold=2, path=tmp_path / "pairs", block_size=60, client=dask_client
        )
        killer.join()
        assert killer.killed_at  # the worker died while the join ran
        assert_same_pairs(sorted_pairs(found), expected)
    assert not list((tmp_path / "pairs").glob(".*.partial"))


def test_the_temporary_files_of_lost_tasks_are_removed(tmp_path):
    (tmp_path / ".pairs-00000-00001.parquet.0f1e.partial").write_bytes(b"half")
    (tmp_path / "pairs-00000-00001.parquet").write_bytes(b"whole")
    removed_partials(tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == ["pairs-00000-00001.parquet"]


def test_copies_of_one_string_are_spread_over_blocks():
    plan = length_blocks({4: 10_000, 5: 30, 9: 20}, block_size=1_000)
    blocks = plan.of(np.arange(10_000), [4] * 10_000)
    sizes = np.bincount(blocks)
    assert len(sizes) == 10 and sizes.max() < 1_200
    assert plan.n_blocks == 11 and plan.lengths[-1].tolist() == [5, 9]


@pytest.mark.slow
def test_ten_thousand_copies_stay_within_a_task_budget(words, tmp_path):
    """Held at once, the 50 million pairs of the copies would take 1.2 GB; the
    workers may use 700 MiB each, and would be killed above it."""
    table = ["n/a"] * 10_000 + words
    with two_workers(memory_limit="700MiB") as (_, dask_client):
        groups = group_duplicates(
            table, threshold=1, path=tmp_path / "groups", block_size=2_000, client=dask_client
        ).compute()
        found = similarity_join(
            table, threshold=0, path=tmp_path / "pairs", block_size=2_000, client=dask_client
        )
        n_pairs = len(found)
    assert (groups["group"][:10_000] == 0).all()
    repeated = pd.Series(words).value_counts()
    assert n_pairs == 10_000 * 9_999 // 2 + int((repeated * (repeated - 1) // 2).sum())


def test_bad_input_is_refused_before_any_work(client, words, tmp_path):
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "mine.txt").write_text("do not remove")
    with pytest.raises(FileExistsError, match="not an empty folder"):
        similarity_join(words, threshold=1, path=kept, client=client)
    assert (kept / "mine.txt").read_text() == "do not remove"
    with pytest.raises(ValueError, match="compares vectors"):
        similarity_join(words, threshold=1, metric="euclidean", path=tmp_path / "a", client=client)
    with pytest.raises(ValueError, match="method must be one of"):
        similarity_join(words, threshold=1, method="filter", path=tmp_path / "b", client=client)
    with pytest.raises(ValueError, match="block_size must be a positive int or 'auto'"):
        similarity_join(words, threshold=1, block_size=0, path=tmp_path / "c", client=client)
    with pytest.raises(ValueError, match="complete linkage needs every group"):
        group_duplicates(words, threshold=1, linkage="complete", path=tmp_path / "f", client=client)
    frame = dd.from_pandas(pd.DataFrame({"name": words}), npartitions=2)
    with pytest.raises(ValueError, match="pass the column of strings"):
        similarity_join(frame, threshold=1, path=tmp_path / "d", client=client)
    mixed = dask_bag.from_sequence(["ab", "cd", 3, "ef"], npartitions=2)
    with pytest.raises(TypeError, match=r"left \(partition \d\)"):
        similarity_join(mixed, threshold=1, path=tmp_path / "e", client=client)
