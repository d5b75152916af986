"""GRUEmbedder (Zhang, Yuan and Indyk, 2020): network, learned CGK' walk, Algorithm 4, phases."""

import pickle
import warnings

import numpy as np
import pytest
import torch
from _testing import random_strings
from scipy.spatial.distance import cdist

from sklearn_ed import GRUEmbedder
from sklearn_ed.datasets import make_hard_cases
from sklearn_ed.distances import pairwise_distances
from sklearn_ed.metrics import top_k_recall
from sklearn_ed.nn import GRUModule, HalfSquaredTripletLoss, LearnedCGKPrime, PairAbsoluteLoss

SMALL = dict(n_step_components=3, hidden_size=8, epochs_per_phase=2, n_neighbors=10, random_state=0)


@pytest.fixture(scope="module")
def strings():
    return random_strings(40, (10, 20), seed=3)


# ----------------------------------------------------------- Algorithm 3
def cgk_prime_oracle(steps, symbols, table, threshold):
    """Algorithm 3 written as in the paper: one output list per string."""
    outputs = []
    for string_steps, string_symbols in zip(steps, symbols):
        out, j = [], 0
        for step, symbol in zip(string_steps, string_symbols):
            twice = symbol != 0 and table[symbol, j] >= threshold
            out += [step, step] if twice else [step]
            j += 2 if twice else 1
        out += [np.zeros_like(steps[0, 0])] * (2 * len(string_symbols) - len(out))
        outputs.append(np.stack(out))
    return np.stack(outputs)


def test_learned_walk_equals_algorithm_3():
    generator = torch.Generator().manual_seed(0)
    layer = LearnedCGKPrime(n_symbols=5, max_length=9, generator=generator)
    symbols = torch.tensor([[2, 3, 4, 1, 2, 0, 0, 0, 0], [4, 4, 4, 4, 4, 4, 4, 4, 4]])
    steps = torch.randn(2, 9, 3, generator=generator)
    walked, duplicated = layer(steps, symbols)
    expected = cgk_prime_oracle(
        steps.numpy(), symbols.numpy(), layer.table.numpy(), float(layer.threshold)
    )
    np.testing.assert_array_equal(walked.numpy(), expected)
    assert not duplicated[0, 5:].any()  # padding is written once


def algorithm_4_oracle(walked_x, walked_y, symbols_x, distance, table, threshold, eps, eta):
    """Algorithm 4 for one pair, with explicit removals and insertions."""
    table, length = table.copy(), walked_x.shape[0]

    def loss(a):
        return abs(0.5 * ((a - walked_y) ** 2).sum() - distance)

    current = loss(walked_x)
    j = 0
    for symbol in symbols_x:
        if symbol == 0:
            break
        twice = table[symbol, j] >= threshold
        if twice:  # remove the second copy; later positions move left
            changed = np.concatenate(
                [walked_x[: j + 1], walked_x[j + 2 :], np.zeros_like(walked_x[:1])]
            )
        else:  # insert a second copy; later positions move right, the last drops
            changed = np.concatenate([walked_x[: j + 1], walked_x[j:]])[:length]
        if loss(changed) < current:
            threshold += eps if twice else -eps
            table[symbol, j] += -eta if twice else eta
        j += 2 if twice else 1
    return table, threshold


@pytest.mark.parametrize("seed", range(4))
def test_hash_update_equals_algorithm_4(seed):
    generator = torch.Generator().manual_seed(seed)
    layer = LearnedCGKPrime(n_symbols=4, max_length=12, generator=generator)
    symbols = torch.randint(1, 4, (2, 12), generator=generator)
    symbols[1, 9:] = 0
    steps = torch.randn(2, 12, 2, generator=generator)
    walked, _ = layer(steps, symbols)
    distance = torch.tensor([3.0])
    table_before, threshold_before = layer.table.numpy().copy(), float(layer.threshold)
    layer.learn_from_pairs(walked[:1], walked[1:], symbols[:1], distance, 0.01, 0.1)
    table, threshold = algorithm_4_oracle(
        walked[0].numpy(),
        walked[1].numpy(),
        symbols[0].numpy(),
        3.0,
        table_before,
        threshold_before,
        0.01,
        0.1,
    )
    np.testing.assert_allclose(layer.table.numpy(), table, atol=1e-6)
    assert float(layer.threshold) == pytest.approx(threshold, abs=1e-6)
    assert not np.array_equal(table, table_before)  # the case exercises an update


# --------------------------------------------------------------- network
def test_steps_past_the_end_are_zero_and_do_not_change_earlier_steps():
    torch.manual_seed(0)
    module = GRUModule(n_symbols=5, max_length=6, hidden_size=4, n_step_components=2).eval()
    short = torch.tensor([[2, 3, 4, 0, 0, 0]])
    longer = torch.tensor([[2, 3, 4, 2, 1, 0]])
    with torch.no_grad():
        steps_short, steps_long = module.steps(short), module.steps(longer)
    assert torch.all(steps_short[0, 3:] == 0)
    torch.testing.assert_close(steps_short[0, :3], steps_long[0, :3])


def test_dropout_masks_whole_steps_only_in_training():
    torch.manual_seed(0)
    module = GRUModule(n_symbols=5, max_length=50, hidden_size=4, dropout=0.5)
    symbols = torch.randint(1, 5, (3, 50))
    module.train()
    assert not torch.equal(module.steps(symbols), module.steps(symbols))
    module.eval()
    assert torch.equal(module.steps(symbols), module.steps(symbols))


def test_losses_match_seed_000_formulas():
    embeddings = torch.tensor([[[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]])  # a, p, n
    distances = torch.tensor([[1.0, 3.0, 2.0]])  # d(a,p), d(a,n), d(p,n)
    # d_H: (a,p) 0.5, (a,n) 2.0, (p,n) 2.5
    assert float(PairAbsoluteLoss()(embeddings, distances)) == pytest.approx(0.5 + 1.0 + 0.5)
    assert float(HalfSquaredTripletLoss()(embeddings, distances)) == pytest.approx(
        max(0.0, 0.5 - 2.0 + (3.0 - 1.0))
    )


# ------------------------------------------------------------- estimator
def test_phases_change_training_and_output_dimension(strings):
    untrained = GRUEmbedder(**SMALL, phases=()).fit(strings)
    phase_1 = GRUEmbedder(**SMALL, phases=(1,)).fit(strings)
    phase_12 = GRUEmbedder(**SMALL, phases=(1, 2)).fit(strings)
    phase_123 = GRUEmbedder(**SMALL).fit(strings)
    assert untrained.history_ == []
    assert [entry["phase"] for entry in phase_123.history_] == [1, 1, 2, 2, 3, 3]
    assert [("insertion_loss" in entry) for entry in phase_123.history_] == [False] * 4 + [True] * 2
    m = untrained.max_length_
    assert phase_12.n_features_out_ == m * 3 and phase_123.n_features_out_ == 2 * m * 3
    outputs = [e.transform(strings) for e in (untrained, phase_1, phase_12)]
    assert not np.allclose(outputs[0], outputs[1])
    assert not np.allclose(outputs[1], outputs[2])
    assert phase_123.transform(strings).shape == (40, 2 * m * 3)
    # the first phase runs identically whatever follows it
    assert phase_12.history_[0]["train_loss"] == phase_1.history_[0]["train_loss"]


def test_phase_3_learns_hash_table_and_threshold(strings):
    before = GRUEmbedder(**{**SMALL, "epochs_per_phase": 0}, phases=(3,)).fit(strings)
    after = GRUEmbedder(**SMALL, phases=(3,), threshold_lr=0.01).fit(strings)
    assert before.threshold_ == pytest.approx(0.5)
    assert after.threshold_ != pytest.approx(0.5)
    assert (
        before.hash_table_.shape
        == after.hash_table_.shape
        == (after.alphabet_.n_symbols, 2 * after.max_length_)
    )
    assert not np.allclose(before.hash_table_, after.hash_table_)
    assert all(np.isfinite(entry["insertion_loss"]) for entry in after.history_)
    frozen = GRUEmbedder(**SMALL, phases=(3,), threshold_lr=0.0, hash_lr=0.0).fit(strings)
    np.testing.assert_array_equal(frozen.hash_table_, before.hash_table_)


def test_phase_3_beats_phases_1_2_and_identity_on_hard_cases():
    """Seeded small Table 6 (Zhang et al. 2020, Appendix A.3): shifts against substitutions."""
    train_set = make_hard_cases(100, length=40, random_state=1)
    test = make_hard_cases(100, length=40, random_state=0)
    exact = pairwise_distances(test.query, test.base)
    params = dict(
        hidden_size=32, n_step_components=8, epochs_per_phase=5, n_neighbors=20, random_state=0
    )

    def recall(embedder):
        embedder.fit(train_set.query + train_set.base)
        embedded = cdist(embedder.transform(test.query), embedder.transform(test.base))
        return top_k_recall(exact, embedded, k=1, n_candidates=1)

    with_phase_3 = recall(GRUEmbedder(**params))
    without = recall(GRUEmbedder(**params, phases=(1, 2)))
    as_codes = [
        np.frombuffer("".join(s).encode(), np.uint8).reshape(len(s), -1)
        for s in (test.query, test.base)
    ]
    identity = top_k_recall(exact, cdist(*as_codes, "hamming"), k=1, n_candidates=1)
    assert with_phase_3 > without + 0.1
    assert with_phase_3 > identity + 0.1


def test_epochs_per_phase_per_entry_and_validation(strings):
    embedder = GRUEmbedder(**{**SMALL, "epochs_per_phase": (1, 3)}, phases=(2, 1)).fit(strings)
    assert [entry["phase"] for entry in embedder.history_] == [2, 1, 1, 1]
    for phases, message in [((1, 1), "distinct"), ((4,), "among 1, 2 and 3"), ((True,), "among")]:
        with pytest.raises(ValueError, match=message):
            GRUEmbedder(**SMALL, phases=phases).fit(strings)
    with pytest.raises(ValueError, match="one per phase"):
        GRUEmbedder(**{**SMALL, "epochs_per_phase": (1, 2)}, phases=(1,)).fit(strings)
    with pytest.raises(ValueError, match="output_dtype"):
        GRUEmbedder(output_dtype="int8").fit(strings)


def test_small_training_set_adapts_k_or_raises():
    with pytest.warns(UserWarning, match="n_neighbors=2"):
        embedder = GRUEmbedder(**{**SMALL, "n_neighbors": 50}).fit(["ACG", "ACT", "AGT"])
    assert embedder.n_neighbors_ == 2
    with pytest.raises(ValueError, match="at least 3 training strings"):
        GRUEmbedder(**SMALL).fit(["ACG", "ACT"])


def test_output_dtype_and_size_warning(strings):
    embedder = GRUEmbedder(**SMALL, output_dtype="float16").fit(strings)
    out = embedder.transform(strings)
    assert out.dtype == np.float16 and out.shape == (40, embedder.n_features_out_)
    embedder.set_params(max_output_bytes=out.nbytes - 1)
    with pytest.warns(UserWarning, match="above max_output_bytes"):
        embedder.transform(strings)
    embedder.set_params(max_output_bytes=out.nbytes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        embedder.transform(strings)


def test_long_strings_and_unknown_characters(strings):
    with pytest.warns(UserWarning, match="only embeds their first 12"):
        embedder = GRUEmbedder(**SMALL, max_length=12).fit(strings)
    long_string = strings[0] * 3
    with pytest.warns(UserWarning, match="only embeds their first 12"):
        truncated = embedder.transform([long_string])
    np.testing.assert_array_equal(truncated, embedder.transform([long_string[:12]]))
    assert embedder.transform(["ACGNNN"]).shape == (1, embedder.n_features_out_)
    with pytest.raises(ValueError, match="longer than"):
        embedder.set_params(on_long_string="error").transform([long_string])


def test_pickle_round_trip_and_estimate_distance(strings):
    embedder = GRUEmbedder(**SMALL).fit(strings)
    loaded = pickle.loads(pickle.dumps(embedder))
    np.testing.assert_array_equal(loaded.transform(strings), embedder.transform(strings))
    estimate = embedder.estimate_distance(strings[:3], strings)
    assert estimate.shape == (3, 40) and (estimate >= 0).all()
    np.testing.assert_allclose(np.diag(estimate[:, :3]), 0.0, atol=1e-3)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_model_pickles_and_matches_on_cpu(strings):
    embedder = GRUEmbedder(**SMALL, device="cuda").fit(strings)
    on_gpu = embedder.transform(strings)
    loaded = pickle.loads(pickle.dumps(embedder))
    assert next(loaded.module_.parameters()).device.type == "cpu"
    loaded.set_params(device="cpu")
    np.testing.assert_allclose(loaded.transform(strings), on_gpu, rtol=1e-4, atol=1e-4)


def test_insertion_loss_is_eq_8():
    """The recorded batch value equals eq. 8 computed from the two embeddings."""
    from sklearn_ed.nn import HashLearningNet

    torch.manual_seed(0)
    module = GRUModule(n_symbols=5, max_length=10, hidden_size=4, n_step_components=2)
    module.attach_cgk()
    inputs = torch.randint(1, 5, (6, 10))
    net = HashLearningNet(
        module, criterion=PairAbsoluteLoss, inputs=inputs, threshold_lr=0.0, hash_lr=0.0, lr=0.0
    ).initialize()
    net.module_.eval()
    net._device_inputs = inputs
    indices = torch.tensor([[0, 1, 2], [3, 4, 5]])
    distances = torch.tensor([[1.0, 2.0, 3.0], [0.5, 1.5, 2.5]])
    with torch.no_grad():
        walked = net.module_(inputs[indices.reshape(-1)]).reshape(2, 3, 20, 2)
        steps = net.module_.steps(inputs[indices.reshape(-1)]).reshape(2, 3, -1)
    pairs = ((0, 1, 0), (0, 2, 1), (1, 2, 2))
    expected = np.mean(
        [
            (
                (0.5 * ((walked[:, x] - walked[:, y]) ** 2).sum((-1, -2)) - distances[:, c]).abs()
                - (0.5 * ((steps[:, x] - steps[:, y]) ** 2).sum(-1) - distances[:, c]).abs()
            ).mean()
            for x, y, c in pairs
        ]
    )
    positions, _ = net.module_.cgk.walk(inputs[indices.reshape(-1)])
    assert net._insertion_loss(
        walked, positions.reshape(2, 3, -1), distances, pairs
    ) == pytest.approx(float(expected), rel=1e-5)
