"""Named alphabets, the check that every record uses only its letters, and the
encoding of strings into an alphabet's symbols at memory speed.

The encoders join the strings about 262,144 characters at a time and encode
each chunk as Latin-1, one byte per character (a copy, for the ``str`` of
DNA, proteins and most Western text), so a table of 256 entries maps them to
symbols; a chunk with a character beyond U+00FF takes the UTF-32 way, one
code point of 4 bytes per character.
"""

import functools

import numpy as np

# Characters joined at a time: a chunk's str and bytes stay in the cache and
# their memory is reused, where one join of every string wrote two fresh copies
# of the whole input (on 200M characters the page faults of those copies were
# most of the old encoding's time).
_CHUNK_CHARACTERS = 1 << 18

ALPHABETS = {
    "dna": "ACGT",
    "dna_n": "ACGTN",
    "protein": "ACDEFGHIKLMNPQRSTVWY",
    "protein_ext": "ACDEFGHIKLMNPQRSTVWYBJOUXZ*",
}


def alphabet_letters(alphabet):
    """The set of letters of a named alphabet, or of a string of letters."""
    if not isinstance(alphabet, str) or not alphabet:
        raise ValueError(
            f"alphabet must be one of {sorted(ALPHABETS)} or a non-empty string of "
            f"the allowed letters, got {alphabet!r}."
        )
    return frozenset(ALPHABETS.get(alphabet, alphabet))


def describe(alphabet):
    """``'dna (ACGT)'`` for a named alphabet, the letters themselves otherwise."""
    letters = ALPHABETS.get(alphabet)
    return f"{alphabet} ({letters})" if letters else repr("".join(sorted(set(alphabet))))


def first_foreign_letter(sequences, letters):
    """``(record, position, letter)`` of the first letter not in ``letters``, or None."""
    for record, sequence in enumerate(sequences):
        if not letters.issuperset(sequence):
            position = next(i for i, letter in enumerate(sequence) if letter not in letters)
            return record, position, sequence[position]
    return None


def infer_alphabet(sequences):
    """The smallest named alphabet holding every letter, or None (plain text)."""
    used = set().union(*map(set, sequences)) if len(sequences) else set()
    for name in ("dna", "dna_n", "protein", "protein_ext"):
        if used <= set(ALPHABETS[name]):
            return name
    return None


def string_offsets(strings):
    """Where each string starts in the concatenation, and where the last ends.

    Returns
    -------
    offsets : ndarray of int64, shape (n_strings + 1,)
    """
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def _joined_chunks(strings, offsets):
    """``(start, stop, text)``: consecutive strings joined, about a chunk of characters each."""
    starts = np.searchsorted(offsets[:-1], np.arange(0, offsets[-1], _CHUNK_CHARACTERS))
    bounds = np.unique(np.append(starts, len(strings)))
    for first, stop in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        yield offsets[first], offsets[stop], "".join(strings[first:stop])


def _translate(codes, table, out):
    for i in range(codes.shape[0]):
        out[i] = table[codes[i]]


@functools.cache
def _translator():
    """The numba kernel of ``_translate`` (3.6x ``bytes.translate``), built on first
    use, so that reading files through ``sklearn_ed.io`` never imports numba."""
    from numba import njit

    return njit(cache=True, nogil=True)(_translate)


def _encoded(strings, dtype, narrow, wide):
    """The strings chunk by chunk: ``narrow(Latin-1 bytes, into)`` or ``wide(code points)``."""
    offsets = string_offsets(strings)
    out = np.empty(offsets[-1], dtype=dtype)
    for start, stop, text in _joined_chunks(strings, offsets):
        try:
            data = np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
        except UnicodeEncodeError:
            # surrogatepass: a lone surrogate is one code point, as len() counts it.
            wide_text = text.encode("utf-32-le", "surrogatepass")
            encoded = wide(np.frombuffer(wide_text, dtype=np.uint32))
            out = out.astype(np.result_type(out, encoded), copy=False)
            out[start:stop] = encoded
        else:
            narrow(data, out[start:stop])
    return out, offsets


def character_codes(strings):
    """The characters of ``strings``, concatenated, as integer codes, and their offsets.

    Parameters
    ----------
    strings : sequence of str

    Returns
    -------
    codes : ndarray of uint8 or uint32, shape (n_characters,)
        One byte per character (Latin-1) when no character is beyond U+00FF,
        else the Unicode code points.
    offsets : ndarray of int64, shape (n_strings + 1,)
        String ``i`` is ``codes[offsets[i]:offsets[i + 1]]``.
    """
    return _encoded(
        strings, np.uint8, lambda data, into: np.copyto(into, data), lambda points: points
    )


def symbol_table(lookup, unknown):
    """The symbol of every code, for the codes of :func:`character_codes`.

    Parameters
    ----------
    lookup : ndarray of int, shape (n_codes,)
        The symbol of each code point up to the largest one known.
    unknown : int
        The symbol of every other code point.

    Returns
    -------
    table : ndarray of int32, shape (max(n_codes, 256) + 1,)
        ``lookup`` padded with ``unknown``: any byte indexes it, and code ``c``
        has symbol ``table[min(c, len(table) - 1)]``.
    """
    table = np.full(max(len(lookup), 256) + 1, unknown, dtype=np.int32)
    table[: len(lookup)] = lookup
    return table


def encode_symbols(strings, lookup, unknown):
    """The symbols of ``strings`` under ``lookup``, concatenated, and their offsets.

    Parameters
    ----------
    strings : sequence of str
    lookup, unknown :
        The symbol of each code point (:func:`symbol_table`).

    Returns
    -------
    symbols : ndarray of uint8 or int32, shape (n_characters,)
        uint8 when every symbol is below 256.
    offsets : ndarray of int64, shape (n_strings + 1,)
        String ``i`` is ``symbols[offsets[i]:offsets[i + 1]]``.
    """
    table = symbol_table(lookup, unknown)
    if table.max() < 256:
        table = table.astype(np.uint8)
    translate = _translator()
    return _encoded(
        strings,
        table.dtype,
        lambda data, into: translate(data, table, into),
        lambda points: table[np.minimum(points, len(table) - 1)],
    )
