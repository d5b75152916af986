"""The byte encoding of strings (``character_codes``, ``encode_symbols``) against
``Alphabet.encode``, the code-point encoding every estimator used before it."""

import numpy as np
import pytest

from sklearn_ed.io import _alphabet, character_codes, encode_symbols, symbol_table
from sklearn_ed.utils import UNKNOWN_SYMBOL, Alphabet, to_code_points

ASTRAL = "\U0001f600"  # an emoji: beyond the Basic Multilingual Plane
CASES = {
    "ascii": (["ACGT", "GATTACA"], ["ACGT", "TTTT", "", "GA"]),
    "ascii, unseen": (["ACGT"], ["ACNGT", "xyz", "N"]),
    "latin-1": (["café", "naïve"], ["café", "ÿ\x00", "é", "CAFÉ"]),
    "astral": (["A" + ASTRAL], [ASTRAL, "A", ASTRAL + "A" + ASTRAL]),
    "astral, unseen": (["ACGT"], ["AC" + ASTRAL + "GT", "\U0001f601"]),
    "latin-1 read by an astral alphabet": (["é" + ASTRAL], ["éé", "Aé", "ÿ"]),
    "mixed": (["ACé" + ASTRAL], ["AC", "é", ASTRAL, "x" + ASTRAL + "é", "中文", "ÿ"]),
    "lone surrogate": (["A\ud800"], ["\ud800A", "\udfff"]),
    "only empty strings": (["AC"], ["", ""]),
    "no strings": (["AC"], []),
}


@pytest.fixture(params=[1 << 18, 3], ids=["one chunk", "chunks of 3"])
def chunk(request, monkeypatch):
    """Small chunks put Latin-1 and wider chunks in one call, and strings across them."""
    monkeypatch.setattr(_alphabet, "_CHUNK_CHARACTERS", request.param)
    return request.param


@pytest.mark.parametrize("fitted, strings", CASES.values(), ids=CASES.keys())
def test_symbols_equal_the_code_point_encoding(fitted, strings, chunk):
    alphabet = Alphabet.from_strings(fitted)
    expected, expected_offsets = alphabet.encode(strings)
    symbols, offsets = encode_symbols(strings, alphabet.lookup, UNKNOWN_SYMBOL)
    np.testing.assert_array_equal(symbols, expected)
    np.testing.assert_array_equal(offsets, expected_offsets)
    assert symbols.dtype == np.uint8  # every alphabet here has under 254 letters


@pytest.mark.parametrize("fitted, strings", CASES.values(), ids=CASES.keys())
def test_codes_are_the_code_points_a_byte_each_where_they_fit(fitted, strings, chunk):
    expected, expected_offsets = to_code_points(strings)
    codes, offsets = character_codes(strings)
    np.testing.assert_array_equal(codes, expected)
    np.testing.assert_array_equal(offsets, expected_offsets)
    latin1 = all(ord(character) < 256 for string in strings for character in string)
    assert codes.dtype == (np.uint8 if latin1 else np.uint32)
    table = symbol_table(Alphabet.from_strings(fitted).lookup, UNKNOWN_SYMBOL)
    symbols = table[np.minimum(codes.astype(np.int64), len(table) - 1)]  # as the kernels read
    np.testing.assert_array_equal(symbols, Alphabet.from_strings(fitted).encode(strings)[0])


def test_an_alphabet_of_more_than_254_letters_gets_int32_symbols(chunk):
    letters = "".join(map(chr, range(0x100, 0x200)))  # 256 letters, none of them Latin-1
    alphabet = Alphabet.from_strings([letters])
    strings = [letters[::-1], "ACé", letters[:5] + "A" + ASTRAL]
    symbols, offsets = encode_symbols(strings, alphabet.lookup, UNKNOWN_SYMBOL)
    assert symbols.dtype == np.int32
    np.testing.assert_array_equal(symbols, alphabet.encode(strings)[0])
    np.testing.assert_array_equal(offsets, alphabet.encode(strings)[1])


def test_symbol_table_pads_the_lookup_so_every_byte_indexes_it():
    table = symbol_table(np.array([UNKNOWN_SYMBOL, 2, 3], dtype=np.int32), UNKNOWN_SYMBOL)
    assert table.shape == (257,) and table.dtype == np.int32
    assert table[:3].tolist() == [UNKNOWN_SYMBOL, 2, 3]
    assert (table[3:] == UNKNOWN_SYMBOL).all()
    wide = symbol_table(np.arange(1000, dtype=np.int32), UNKNOWN_SYMBOL)
    assert wide.shape == (1001,) and wide[-1] == UNKNOWN_SYMBOL
