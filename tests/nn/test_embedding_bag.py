"""CNN-ED's lookup sum: the numba kernel on character codes, and the
``embedding_bag`` form whose indices the device builds, against the sum
written out over ``Alphabet.encode``'s symbols."""

import numpy as np
import pytest

from sklearn_ed.io import character_codes, symbol_table
from sklearn_ed.nn import lookup_sum
from sklearn_ed.utils import UNKNOWN_SYMBOL, Alphabet

torch = pytest.importorskip("torch")
embedding_bag = pytest.importorskip("sklearn_ed.nn._embedding_bag")

MAX_LENGTH = 12
LATIN1 = ["ACGT" * 5, "", "A", "NNNN", "ACé", "T" * 40, "", "CAT", "ÿé"]
# A character beyond U+00FF makes the codes uint32 code points.
WIDE = LATIN1 + ["GT\U0001f600AC", "中文", "\ud800"]


def _network(alphabet, seed=0, d=5):
    """A random lookup table (padding row zero) and bias over the alphabet's symbols."""
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(alphabet.n_symbols, MAX_LENGTH, d)).astype(np.float32)
    table[0] = 0
    return table, rng.normal(size=d).astype(np.float32)


def _written_out(alphabet, strings, table, bias):
    symbols, offsets = alphabet.encode(strings)
    return np.array(
        [
            bias + sum(table[s, t] for t, s in enumerate(symbols[start:stop][:MAX_LENGTH]))
            for start, stop in zip(offsets[:-1], offsets[1:])
        ],
        dtype=np.float32,
    )


def _inputs(strings):
    alphabet = Alphabet.from_strings(["ACGTé\U0001f600"])  # N, ÿ, 中, ... are unseen
    table, bias = _network(alphabet)
    codes, offsets = character_codes(strings)
    code_symbols = symbol_table(alphabet.lookup, UNKNOWN_SYMBOL)
    return alphabet, codes, offsets, code_symbols, table, bias


def _kernel(codes, offsets, code_symbols, table, bias):
    out = np.empty((len(offsets) - 1, table.shape[2]), dtype=np.float32)
    return lookup_sum(codes, offsets, code_symbols, table, bias, out)


@pytest.mark.parametrize("strings", [LATIN1, WIDE], ids=["latin-1 bytes", "code points"])
def test_kernel_reads_codes_as_the_symbols_of_the_alphabet(strings):
    alphabet, codes, offsets, code_symbols, table, bias = _inputs(strings)
    assert codes.dtype == (np.uint8 if strings is LATIN1 else np.uint32)
    np.testing.assert_allclose(
        _kernel(codes, offsets, code_symbols, table, bias),
        _written_out(alphabet, strings, table, bias),
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.parametrize("strings", [LATIN1, WIDE], ids=["latin-1 bytes", "code points"])
@pytest.mark.parametrize("batch", [None, 7], ids=["one batch", "batches of 7 characters"])
def test_device_path_on_the_cpu_equals_the_kernel(strings, batch, monkeypatch):
    if batch is not None:  # a string of 40 characters then fills a batch alone
        monkeypatch.setattr(embedding_bag, "characters_per_batch", lambda device: batch)
    inputs = _inputs(strings)[1:]
    np.testing.assert_allclose(
        embedding_bag.embedding_bag_lookup(*inputs, device="cpu"),
        _kernel(*inputs),
        rtol=1e-5,
        atol=1e-5,
    )


def test_device_path_of_no_strings_and_of_empty_strings():
    alphabet, codes, offsets, code_symbols, table, bias = _inputs([])
    assert embedding_bag.embedding_bag_lookup(codes, offsets, code_symbols, table, bias).shape == (
        0,
        table.shape[2],
    )
    _, codes, offsets, *_ = _inputs(["", ""])
    empty = embedding_bag.embedding_bag_lookup(codes, offsets, code_symbols, table, bias)
    np.testing.assert_array_equal(empty, np.vstack([bias, bias]))


def test_a_batch_takes_a_share_of_the_free_memory():
    assert embedding_bag.characters_per_batch("cpu") >= 1 << 20


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("strings", [LATIN1, WIDE], ids=["latin-1 bytes", "code points"])
def test_device_path_on_cuda_equals_the_cpu_kernel(strings, monkeypatch):
    inputs = _inputs(strings)[1:]
    expected = _kernel(*inputs)
    code_symbols, table, bias = (torch.as_tensor(array, device="cuda") for array in inputs[2:])
    on_cuda = embedding_bag.embedding_bag_lookup(*inputs[:2], code_symbols, table, bias, "cuda")
    np.testing.assert_allclose(on_cuda, expected, rtol=1e-5, atol=1e-5)
    assert embedding_bag.characters_per_batch("cuda") >= 1 << 20
    monkeypatch.setattr(embedding_bag, "characters_per_batch", lambda device: 7)
    batched = embedding_bag.embedding_bag_lookup(*inputs, device="cuda")  # moved per call
    np.testing.assert_allclose(batched, expected, rtol=1e-5, atol=1e-5)
