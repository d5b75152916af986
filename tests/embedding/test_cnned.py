"""Tests of CNNEDEmbedder and the sklearn_ed.nn building blocks (CPU, seeded)."""

import pickle

import numpy as np
import pytest
import torch
from _testing import mutate, random_strings
from scipy.spatial.distance import cdist
from skorch.callbacks import Callback

from sklearn_ed import CGKEmbedder, CNNEDEmbedder
from sklearn_ed.distances import pairwise_distances, symmetric_pairwise_distances
from sklearn_ed.metrics import top_k_recall
from sklearn_ed.nn import (
    CNNEDModule,
    TopKTripletDataset,
    TrainingDistances,
    TripletApproximationLoss,
    affine_lookup_table,
    pad_symbols,
    top_k_neighbors,
)
from sklearn_ed.utils import UNKNOWN_SYMBOL

SMALL = dict(n_components=16, n_layers=3, max_epochs=2, n_neighbors=10, random_state=0)


@pytest.fixture(scope="module")
def strings():
    return random_strings(40, (20, 40), seed=7)


@pytest.fixture(scope="module")
def reads():
    """Overlapping noisy reads of one random genome: train / query / base."""
    rng = np.random.default_rng(0)
    genome = "".join(rng.choice(list("ACGT"), size=1500))
    starts = rng.integers(0, len(genome) - 120, size=330)
    reads = [mutate(genome[s : s + 120], int(rng.integers(2, 10)), rng) for s in starts]
    return reads[:150], reads[150:180], reads[180:]


# ------------------------------------------------------------------ modules
@pytest.mark.parametrize("length", [1, 7, 64, 301])
@pytest.mark.parametrize("n_layers", [1, 4])
def test_table_forms_equal_dense_one_hot_convolutions(length, n_layers):
    torch.manual_seed(0)
    module = CNNEDModule(6, length, n_components=8, n_layers=n_layers)
    symbols = torch.randint(0, 6, (9, length))
    dense = module.forward_one_hot(module.one_hot(symbols))
    torch.testing.assert_close(module.forward_table(symbols), dense, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(module.forward_collapsed(symbols), dense, rtol=1e-5, atol=1e-6)
    table, bias = affine_lookup_table(module)
    assert (table[0] == 0).all()  # padding contributes nothing
    positions = np.arange(length)
    looked_up = bias + table[symbols.numpy(), positions].sum(axis=1)
    np.testing.assert_allclose(looked_up, dense.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pooling, activation", [("avg", None), ("max", "relu"), ("avg", "relu")])
def test_channels_first_convolution_lookup_equals_dense(pooling, activation):
    torch.manual_seed(1)
    module = CNNEDModule(
        5,
        50,
        n_components=8,
        n_layers=3,
        pooling=pooling,
        activation=activation,
        input_mode="channels",
    )
    symbols = torch.randint(0, 5, (7, 50))
    symbols[:, 40:] = 0  # padded tail
    torch.testing.assert_close(
        module(symbols), module.forward_one_hot(module.one_hot(symbols)), rtol=1e-5, atol=1e-6
    )


def test_pad_symbols_truncates_without_loops():
    symbols = np.array([2, 3, 4, 5, 6, 7], dtype=np.int32)
    offsets = np.array([0, 1, 1, 6])
    np.testing.assert_array_equal(
        pad_symbols(symbols, offsets, 3), [[2, 0, 0], [0, 0, 0], [3, 4, 5]]
    )


def test_loss_matches_seed_formula():
    embeddings = torch.tensor([[[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]])
    distances = torch.tensor([[4.0, 12.0, 5.0]])  # d(a,p), d(a,n), d(p,n)
    loss = TripletApproximationLoss(alpha=0.1)(embeddings, distances)
    # |a-p| = 5, |a-n| = 10, |p-n| = 5: triplet max(0, 5 - 10 + 8) = 3
    expected = 3 + 0.1 * (abs(5 - 4) + abs(10 - 12) + abs(5 - 5))
    assert loss.item() == pytest.approx(expected, rel=1e-5)


def test_triplets_come_from_top_k_and_positive_is_closer():
    rng = np.random.default_rng(0)
    points = rng.normal(size=(30, 2))
    distances = np.round(cdist(points, points) * 10).astype(np.int32)
    neighbors = top_k_neighbors(distances, 5)
    assert not (neighbors == np.arange(30)[:, None]).any()
    dataset = TopKTripletDataset(distances, neighbors, n_triplets=200, scale=2.0, random_state=0)
    indices, scaled = dataset.indices.numpy(), dataset.triplet_distances.numpy()
    anchor, positive, negative = indices.T
    assert all(p in neighbors[a] and n in neighbors[a] and p != n for a, p, n in indices)
    assert (distances[anchor, positive] <= distances[anchor, negative]).all()
    np.testing.assert_allclose(scaled[:, 2] * 2.0, distances[positive, negative])
    before = indices.copy()
    dataset.resample()
    assert not np.array_equal(before, dataset.indices.numpy())


def test_symmetric_distances_equal_full_matrix(strings):
    matrix = symmetric_pairwise_distances(np.array(strings, dtype=object), n_jobs=2)
    np.testing.assert_array_equal(matrix, pairwise_distances(strings))


# ---------------------------------------------------------------- embedder
def test_output_float32_shape_and_feature_names(strings):
    embedder = CNNEDEmbedder(**SMALL).fit(strings)
    out = embedder.transform(strings + [""])
    assert out.dtype == np.float32 and out.shape == (41, 16) == (41, embedder.n_features_out_)
    assert embedder.get_feature_names_out()[0] == "cnnedembedder0"
    assert np.isfinite(out).all()


def test_lookup_inference_equals_dense_network(strings):
    embedder = CNNEDEmbedder(**SMALL).fit(strings)
    symbols = torch.from_numpy(embedder._pad(strings))
    with torch.no_grad():
        dense = embedder.module_.forward_one_hot(embedder.module_.one_hot(symbols)).numpy()
    np.testing.assert_allclose(embedder.transform(strings), dense, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize(
    "params", [dict(input_mode="channels", activation="relu"), dict(pooling="max")]
)
def test_non_affine_variants_train_and_embed(strings, params):
    embedder = CNNEDEmbedder(**SMALL, **params).fit(strings)
    assert not embedder.module_.is_affine
    out = embedder.transform(strings)
    assert out.shape == (40, 16) and np.isfinite(out).all()


def test_random_state_reproduces_and_varies(strings):
    first = CNNEDEmbedder(**SMALL).fit(strings).transform(strings)
    np.testing.assert_array_equal(first, CNNEDEmbedder(**SMALL).fit(strings).transform(strings))
    other = CNNEDEmbedder(**{**SMALL, "random_state": 1}).fit(strings).transform(strings)
    assert not np.array_equal(first, other)


def test_small_training_set_adapts_k_or_raises():
    with pytest.warns(UserWarning, match="using n_neighbors=4"):
        embedder = CNNEDEmbedder(**SMALL).fit(["AC", "AG", "CT", "GT", "ACGT"])
    assert embedder.n_neighbors_ == 4
    with pytest.raises(ValueError, match="at least 3 training strings"):
        CNNEDEmbedder(**SMALL).fit(["AC", "AG"])


def test_n_train_subsamples_and_distances_are_cached(strings, monkeypatch):
    embedder = CNNEDEmbedder(**{**SMALL, "n_train": 25}).fit(strings)
    assert embedder.n_train_ == 25 and embedder.train_distances_.shape == (25, 25)
    import sklearn_ed.nn._training_distances as module

    def fail(*args, **kwargs):
        raise AssertionError("distances recomputed")

    monkeypatch.setattr(module, "symmetric_pairwise_distances", fail)
    embedder.set_params(max_epochs=1).fit(strings)  # same sample: cache reused


def test_neighborhood_sampling_picks_distinct_seeded_overlapping_reads():
    from sklearn_ed.datasets import make_genome_reads

    reads = make_genome_reads(800, read_length=(150, 200), genome_length=4_000, random_state=0).data
    params = dict(SMALL, n_train=60, max_epochs=0)
    sampled = CNNEDEmbedder(**params, neighborhood_size=10).fit(reads)
    again = CNNEDEmbedder(**params, neighborhood_size=10).fit(reads)
    other_seed = CNNEDEmbedder(**{**params, "random_state": 1}).fit(reads)
    uniform = CNNEDEmbedder(**params, train_sampling="uniform").fit(reads)
    indices = sampled.train_indices_
    assert indices.shape == (60,) and np.unique(indices).size == 60
    assert np.all(np.diff(indices) > 0) and indices.max() < len(reads)
    np.testing.assert_array_equal(indices, again.train_indices_)
    assert not np.array_equal(indices, other_seed.train_indices_)
    np.testing.assert_array_equal(
        sampled.train_distances_,
        symmetric_pairwise_distances(list(np.asarray(reads, dtype=object)[indices])),
    )

    def nearest(embedder):
        distances = embedder.train_distances_.astype(float)
        np.fill_diagonal(distances, np.inf)
        return distances.min(1).mean()

    # 60 reads of 4 kbp cover it ~2.6x: uniform reads rarely overlap much.
    assert nearest(sampled) < 0.6 * nearest(uniform)
    # neighborhood_size=1 is a uniform sample of anchors; few strings: no sampling
    assert (
        np.unique(CNNEDEmbedder(**params, neighborhood_size=1).fit(reads).train_indices_).size == 60
    )
    small = CNNEDEmbedder(**params).fit(reads[:50])
    np.testing.assert_array_equal(small.train_indices_, np.arange(50))
    with pytest.raises(ValueError, match="train_sampling"):
        CNNEDEmbedder(train_sampling="knn").fit(reads[:5])


def test_training_distances_compute_only_the_pairs_asked(strings):
    items = np.array(strings, dtype=object)
    full = symmetric_pairwise_distances(items)
    distances = TrainingDistances(items, n_jobs=2)
    rows, cols = np.array([0, 3, 5, 3]), np.array([7, 0, 5, 0])
    np.testing.assert_array_equal(distances[rows, cols], full[rows, cols])
    known = ~np.isnan(distances.matrix)
    # (0, 7) and (0, 3), both ways, and the diagonal
    assert known.sum() == 2 * 2 + len(items)
    np.testing.assert_array_equal(distances.matrix[known], full[known])
    distances.compute_whole()
    np.testing.assert_array_equal(distances.matrix, full)


def test_pre_drawn_epochs_are_the_epoch_by_epoch_triplets():
    rng = np.random.default_rng(0)
    distances = rng.integers(0, 50, size=(30, 30))
    distances = distances + distances.T
    neighbors = top_k_neighbors(distances, 6)
    one = TopKTripletDataset(distances, neighbors, n_triplets=40, random_state=3)
    ahead = TopKTripletDataset(distances, neighbors, n_triplets=40, random_state=3, n_epochs=3)
    for epoch in range(4):  # the 4th is drawn when the pre-drawn ones are used up
        np.testing.assert_array_equal(one.indices.numpy(), ahead.indices.numpy())
        one.resample()
        ahead.resample()


def test_candidate_neighbors_hold_the_near_reads_and_compute_few_pairs():
    from sklearn_ed.datasets import make_genome_reads

    reads = make_genome_reads(400, read_length=(500, 600), genome_length=6_000, random_state=0)
    params = dict(SMALL, n_train=None, n_neighbors=20, max_epochs=1)
    ranked = CNNEDEmbedder(**params).fit(reads.data)
    whole = CNNEDEmbedder(**params, train_neighbors="exact").fit(reads.data)
    assert ranked.train_neighbors_ == "candidates" and whole.train_neighbors_ == "exact"
    known = ~np.isnan(ranked.train_distances_)
    assert known.sum() < 0.4 * known.size  # 40 candidates of 399 per read, and the triplets
    np.testing.assert_array_equal(ranked.train_distances_[known], whole.train_distances_[known])
    exact_lists = top_k_neighbors(whole.train_distances_, 20)
    ranked_lists = ranked._candidate_neighbors(reads.data, ranked._train_pairs)
    nearest_five = [set(row[:5]) for row in exact_lists]
    found = np.mean([len(near & set(row)) / 5 for near, row in zip(nearest_five, ranked_lists)])
    assert found > 0.95  # the q-gram candidates hold the reads near in edit distance
    assert not np.array_equal(exact_lists, ranked_lists)


def test_input_contract_and_unknown_characters(strings):
    embedder = CNNEDEmbedder(**SMALL).fit(strings)
    with pytest.raises(ValueError, match="single string"):
        embedder.transform("ACGT")
    with pytest.raises(ValueError, match=r"X\[1\] is missing"):
        embedder.transform(["AC", None])
    with pytest.raises(TypeError, match=r"X\[0\] is of type int"):
        embedder.transform([3])
    unknown = embedder.transform(["N\U0001f600"])
    same_bucket = embedder.transform(["XY"])
    np.testing.assert_array_equal(unknown, same_bucket)  # both map to UNKNOWN_SYMBOL
    assert embedder.alphabet_.encode(["N"])[0][0] == UNKNOWN_SYMBOL


def test_long_strings_follow_max_length_policy(strings):
    embedder = CNNEDEmbedder(**SMALL, max_length=30).fit([s[:30] for s in strings])
    with pytest.warns(UserWarning, match="longer than max_length=30"):
        long_out = embedder.transform([strings[0] + "ACGT" * 5])
    np.testing.assert_array_equal(long_out, embedder.transform([strings[0][:30]]))
    strict = CNNEDEmbedder(**SMALL, max_length=30, on_long_string="error")
    strict.fit([s[:30] for s in strings])
    with pytest.raises(ValueError, match="longer than max_length=30"):
        strict.transform(["A" * 31])


def test_parameter_validation():
    with pytest.raises(ValueError, match="pooling"):
        CNNEDEmbedder(pooling="sum").fit(["AC", "AG", "CT"])
    with pytest.raises(ValueError, match="device"):
        CNNEDEmbedder(device="tpu").fit(["AC", "AG", "CT"])
    with pytest.raises(ValueError, match="train_neighbors"):
        CNNEDEmbedder(train_neighbors="all").fit(["AC", "AG", "CT"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_cuda_raises_clearly(strings):
    with pytest.raises(ValueError, match="CUDA is not available"):
        CNNEDEmbedder(**SMALL, device="cuda").fit(strings)


def test_callbacks_verbose_and_history(strings, capsys):
    class CountEpochs(Callback):
        def initialize(self):
            self.epochs = 0
            return self

        def on_epoch_end(self, net, **kwargs):
            self.epochs += 1

    counter = CountEpochs()
    embedder = CNNEDEmbedder(**{**SMALL, "max_epochs": 3}, callbacks=[counter], verbose=1)
    embedder.fit(strings)
    assert len(embedder.history_) == 3 and "train_loss" in embedder.history_[-1]
    assert "train_loss" in capsys.readouterr().out
    assert embedder.callbacks[0] is counter  # the parameter is not mutated


def test_pickle_round_trip_and_estimate_distance(strings):
    embedder = CNNEDEmbedder(**SMALL).fit(strings)
    loaded = pickle.loads(pickle.dumps(embedder))
    np.testing.assert_array_equal(loaded.transform(strings), embedder.transform(strings))
    estimate = embedder.estimate_distance(strings[:3], strings)
    assert estimate.shape == (3, 40) and (estimate >= 0).all()
    slope, intercept = embedder.distance_map_
    assert slope > 0


def test_training_beats_untrained_network_and_cgk(reads):
    """Seeded small version of the genome-reads benchmark (shorter reads)."""
    train, query, base = reads
    exact = pairwise_distances(query, base, n_jobs=2)
    params = dict(n_components=32, n_layers=4, n_neighbors=30, random_state=0)
    untrained = CNNEDEmbedder(**params, max_epochs=0).fit(train)
    trained = CNNEDEmbedder(**params, max_epochs=40, lr=3e-3).fit(train)
    cgk = CGKEmbedder(random_state=0).fit(train)

    def recall(embedded_query, embedded_base, metric):
        return top_k_recall(
            exact, cdist(embedded_query, embedded_base, metric), k=5, n_candidates=10
        )

    r_trained = recall(trained.transform(query), trained.transform(base), "euclidean")
    r_untrained = recall(untrained.transform(query), untrained.transform(base), "euclidean")
    r_cgk = recall(cgk.transform(query), cgk.transform(base), "hamming")
    assert trained.history_[-1]["train_loss"] < trained.history_[0]["train_loss"]
    assert r_trained > r_untrained + 0.05
    assert r_trained > r_cgk + 0.05


# Empty, unseen, too long (max_length=30), and a character wider than a byte.
PROBES = ["", "A", "ZZZZ", "ACGT" * 12, "é\U0001f600A"]


def test_embedding_bag_equals_lookup_kernel(strings):
    """The GPU form of the affine network, run on the CPU against the numba kernel."""
    with pytest.warns(UserWarning, match="longer than max_length"):
        embedder = CNNEDEmbedder(**SMALL, max_length=30).fit(strings)
    probes = list(strings[:10]) + PROBES
    with pytest.warns(UserWarning, match="longer than max_length"):
        expected = embedder.transform(probes)
    np.testing.assert_allclose(embedder._embed_bag(probes, "cpu"), expected, rtol=1e-5, atol=1e-6)
    table, bias = embedder._lookup_table()
    symbols, offsets = embedder.alphabet_.encode(probes)  # the symbols, written out
    written = [
        bias + table[symbols[start:stop][:30], np.arange(min(stop - start, 30))].sum(axis=0)
        for start, stop in zip(offsets[:-1], offsets[1:])
    ]
    np.testing.assert_allclose(expected, written, rtol=1e-5, atol=1e-6)
    assert embedder._embed_bag([], "cpu").shape == (0, table.shape[2])


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.filterwarnings("ignore:.*longer than max_length")
def test_cuda_transform_uses_the_embedding_bag_and_matches_cpu(strings):
    embedder = CNNEDEmbedder(**SMALL).fit(strings)
    probes = list(strings) + PROBES
    on_cpu = embedder.transform(probes)
    embedder.set_params(device="cuda")
    np.testing.assert_allclose(embedder.transform(probes), on_cpu, rtol=1e-4, atol=1e-5)
    assert embedder._device_lookup[0] == "cuda"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_model_pickles_and_matches_on_cpu(strings):
    embedder = CNNEDEmbedder(**SMALL, device="cuda").fit(strings)
    on_gpu = embedder.transform(strings)
    loaded = pickle.loads(pickle.dumps(embedder))
    assert next(loaded.module_.parameters()).device.type == "cpu"
    loaded.set_params(device="cpu")
    np.testing.assert_allclose(loaded.transform(strings), on_gpu, rtol=1e-4, atol=1e-5)
