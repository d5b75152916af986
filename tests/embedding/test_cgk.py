import pickle

import numpy as np
import pytest
from _testing import random_strings
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from sklearn_ed import CGKEmbedder
from sklearn_ed.utils import PAD_SYMBOL, UNKNOWN_SYMBOL


def reference_cgk(symbols, bits, out_length):
    """Algorithm 1 written literally."""
    out, i = [PAD_SYMBOL] * out_length, 0
    for j in range(out_length):
        if i < len(symbols):
            out[j] = symbols[i]
            i += bits[j, symbols[i]]
    return out


def reference_cgk_prime(symbols, bits, out_length):
    """Algorithm 2 (CGK') written literally."""
    out, j = [PAD_SYMBOL] * out_length, 0
    for symbol in symbols:
        if bits[j, symbol]:
            out[j] = symbol
            j += 1
        else:
            out[j] = out[j + 1] = symbol
            j += 2
    return out


@pytest.mark.parametrize(
    "variant, reference, factor", [("cgk", reference_cgk, 3), ("cgk_prime", reference_cgk_prime, 2)]
)
def test_kernel_matches_literal_algorithm(variant, reference, factor):
    strings = random_strings(30, (0, 25), seed=3)
    embedder = CGKEmbedder(variant, n_repetitions=2, random_state=0).fit(strings)
    symbols = embedder.transform_symbols(strings)
    out_length = factor * embedder.max_length_
    for row, string in zip(symbols, strings):
        encoded = list(embedder.alphabet_.encode([string])[0])
        for r in range(2):
            expected = reference(encoded, embedder.walk_bits_[r], out_length)
            np.testing.assert_array_equal(row[r * out_length : (r + 1) * out_length], expected)


def test_output_is_float32_with_documented_width():
    strings = ["ACGT", "AC", ""]
    for variant, factor in (("cgk", 3), ("cgk_prime", 2)):
        embedder = CGKEmbedder(variant, n_repetitions=3, random_state=0).fit(strings)
        out = embedder.transform(strings)
        assert out.dtype == np.float32
        assert out.shape == (3, 3 * factor * 4) == (3, embedder.n_features_out_)
        assert (out[2] == PAD_SYMBOL).all()  # the empty string is all padding


def test_padding_never_collides_with_characters():
    strings = ["\x00\x01", "ab"]  # NUL and U+0001 are real characters here
    embedder = CGKEmbedder(random_state=0).fit(strings)
    first = embedder.transform_symbols(["\x00"])[0]
    assert first[0] not in (PAD_SYMBOL, UNKNOWN_SYMBOL)


def test_unseen_characters_map_to_unknown_bucket():
    embedder = CGKEmbedder(random_state=0).fit(["ACGT"])
    out = embedder.transform_symbols(["N", "\U0001f600"])
    assert out[0, 0] == UNKNOWN_SYMBOL == out[1, 0]


def test_long_strings_truncate_with_warning_or_raise():
    embedder = CGKEmbedder(random_state=0).fit(["ACGT"])
    with pytest.warns(UserWarning, match="longer than max_length=4"):
        long_out = embedder.transform(["ACGTAAAA"])
    np.testing.assert_array_equal(long_out, embedder.transform(["ACGT"]))
    strict = CGKEmbedder(on_long_string="error", random_state=0).fit(["ACGT"])
    with pytest.raises(ValueError, match="index 0, length 8"):
        strict.transform(["ACGTAAAA"])
    with pytest.raises(ValueError, match="longer than max_length=2"):
        CGKEmbedder(max_length=2, on_long_string="error").fit(["ACGT"])


def test_random_state_reproduces_and_varies():
    strings = random_strings(10, seed=4)
    first = CGKEmbedder(random_state=1).fit(strings).transform(strings)
    np.testing.assert_array_equal(
        first, CGKEmbedder(random_state=1).fit(strings).transform(strings)
    )
    assert not np.array_equal(first, CGKEmbedder(random_state=2).fit(strings).transform(strings))


def test_hamming_distance_tracks_edit_distance(families):
    """Near-duplicates are closer in Hamming space than unrelated strings."""
    strings, labels = families
    codes = CGKEmbedder(n_repetitions=3, random_state=0).fit(strings).transform_symbols(strings)
    hamming = (codes[:, None, :] != codes[None, :, :]).sum(axis=2)
    same = labels[:, None] == labels[None, :]
    off_diagonal = ~np.eye(len(strings), dtype=bool)
    assert np.median(hamming[same & off_diagonal]) < 0.5 * np.median(hamming[~same])


def test_pickle_round_trip_keeps_output():
    strings = random_strings(5, seed=5)
    embedder = CGKEmbedder(random_state=0).fit(strings)
    clone = pickle.loads(pickle.dumps(embedder))
    np.testing.assert_array_equal(clone.transform(strings), embedder.transform(strings))


def test_feature_names_and_pandas_output():
    pd = pytest.importorskip("pandas")
    embedder = CGKEmbedder(random_state=0).fit(["ab", "abc"])
    names = embedder.get_feature_names_out()
    assert names[0] == "cgkembedder0" and len(names) == 9
    frame = embedder.set_output(transform="pandas").transform(pd.Series(["ab"]))
    assert list(frame.columns) == list(names)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), length=st.integers(1, 40))
def test_cgk_prime_theorem_1_lower_bound(data, length):
    """Zhang et al. (2020), Theorem 1(2): d_E(x, y) / 2 <= d_H(f(x, r), f(y, r)) for every r."""
    bit_strings = st.text(alphabet="01", min_size=length, max_size=length)
    x, y = data.draw(bit_strings), data.draw(bit_strings)
    embedder = CGKEmbedder("cgk_prime", max_length=length).fit(["0", "1"])
    bits = data.draw(
        st.lists(
            st.integers(0, 1),
            min_size=2 * length * embedder.alphabet_.n_symbols,
            max_size=2 * length * embedder.alphabet_.n_symbols,
        )
    )
    embedder.walk_bits_ = np.array(bits, dtype=np.uint8).reshape(embedder.walk_bits_.shape)
    fx, fy = embedder.transform_symbols([x, y])
    assert Levenshtein.distance(x, y) / 2 <= np.count_nonzero(fx != fy)
