"""Input files of any kind the command line takes, read into named records."""

import os

from ..io import (
    DEFAULT_CHUNK_SIZE,
    SequenceFileError,
    TextFileError,
    check_alphabet,
    describe,
    infer_alphabet,
    iter_sequences,
    read_strings,
)
from ._errors import input_error, usage_error

SEQUENCE_FIRST_BYTES = (">", "@")


TABLE_SUFFIXES = (".csv", ".tsv", ".tab")
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")


def input_kind(path, options):
    """``"sequences"`` (FASTA/FASTQ), ``"table"`` (a CSV/TSV column) or ``"text"`` (lines).

    ``--format`` decides; ``auto`` takes a ``.csv``/``.tsv`` file for a table,
    a file starting with ``>`` or ``@`` for FASTA/FASTQ, and any other for text.
    """
    _check_file(path)
    if options.format != "auto":
        return {"fasta": "sequences", "fastq": "sequences"}.get(options.format, options.format)
    if _uncompressed_name(path).endswith(TABLE_SUFFIXES):
        return "table"
    return "sequences" if _first_character(path) in SEQUENCE_FIRST_BYTES else "text"


def _uncompressed_name(path):
    name = os.fspath(path).lower()
    for suffix in COMPRESSED_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def _first_character(path):
    from xopen import xopen

    try:
        with xopen(path, "rt", encoding="utf-8", errors="replace") as file:
            return file.read(1)
    except (OSError, EOFError) as error:
        raise input_error(f"cannot read {path!r}: {error}") from error


def _check_file(path):
    if os.path.isdir(path):
        raise input_error(f"{path!r} is a directory, not a file of strings or sequences")
    if not os.path.exists(path):
        raise input_error(f"{path!r} does not exist")


def read_base(path, options):
    """All records of the base file and the alphabet queries must keep to."""
    kind = input_kind(path, options)
    records = next(iter_records(path, options, kind, chunk_size=None, alphabet=None))
    alphabet = options.alphabet
    if alphabet == "any":
        return records, None
    if alphabet is None:
        return records, infer_alphabet(records.sequences) if kind == "sequences" else None
    _checked(lambda: check_alphabet(records, alphabet, path), hint="")
    return records, alphabet


def iter_records(path, options, kind=None, chunk_size=DEFAULT_CHUNK_SIZE, alphabet=None):
    """Records of a file chunk by chunk (a sequence file is streamed), alphabet-checked."""
    kind = kind or input_kind(path, options)
    hint = (
        f" The base's alphabet is {describe(alphabet)}; --alphabet names another "
        "(--alphabet any accepts every letter)."
        if alphabet is not None
        else ""
    )
    if kind == "sequences":
        chunks = iter_sequences(path, chunk_size=chunk_size, uppercase=options.uppercase)
        offset = 0
        for chunk in _checked_iter(chunks, hint=""):
            _checked(lambda: check_alphabet(chunk, alphabet, path, offset), hint)
            offset += len(chunk)
            yield chunk
        return
    if kind == "table" and options.column is None:
        raise usage_error(f"{path!r} is a table: name the column of strings with --column NAME")
    column, name_column = (options.column, options.name_column) if kind == "table" else (None,) * 2
    records = _checked(lambda: read_strings(path, column=column, name_column=name_column), "")
    _checked(lambda: check_alphabet(records, alphabet, path), hint)
    yield records


def _checked(read, hint):
    try:
        return read()
    except (SequenceFileError, TextFileError, OSError, EOFError) as error:
        raise input_error(f"{error}{hint}") from error


def _checked_iter(chunks, hint):
    while True:
        chunk = _checked(lambda: next(chunks, None), hint)
        if chunk is None:
            return
        yield chunk


def check_k(k, n_records, base, all_vs_all):
    """Refuse -k above the records each query can have as neighbors."""
    n_available = n_records - all_vs_all
    if k > n_available:
        which = f"the {n_available} other records" if all_vs_all else f"the {n_records} records"
        raise usage_error(f"-k {k} is more neighbors than {which} of {base!r}; lower -k")
