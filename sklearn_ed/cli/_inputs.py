"""Input files of any kind the command line takes, read into named records."""

import collections
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
    uncompressed_name,
)
from ._errors import input_error, usage_error

SEQUENCE_FIRST_BYTES = (">", "@")
TABLE_SUFFIXES = (".csv", ".tsv", ".tab")
SEQUENCE_SUFFIXES = (".fa", ".fasta", ".fna", ".faa", ".fq", ".fastq")
# Documents whose lines are markup, not strings: read as text they would
# give a few nonsense records and a puzzling error about -k or the alphabet.
DOCUMENT_SUFFIXES = (".json", ".html", ".htm", ".xml", ".pdf", ".xlsx", ".xls", ".parquet")
# Library hints that name a Python parameter, in the command line's words.
OPTION_NAMES = {"uppercase=True": "--uppercase"}


def input_kind(path, options):
    """``"sequences"`` (FASTA/FASTQ), ``"table"`` (a CSV/TSV column) or ``"text"`` (lines).

    ``--format`` decides; ``auto`` takes a ``.csv``/``.tsv``/``.tab`` name for
    a table, a ``.fa``/``.fq``/``.fasta``/``.fastq`` name or a file starting
    with ``>`` or ``@`` for FASTA/FASTQ, and any other for text (names in any
    case, compressed or not).
    """
    _check_file(path)
    if options.format != "auto":
        return {"fasta": "sequences", "fastq": "sequences"}.get(options.format, options.format)
    name = uncompressed_name(path)
    if name.endswith(TABLE_SUFFIXES):
        return "table"
    if name.endswith(SEQUENCE_SUFFIXES):
        return "sequences"
    if name.endswith(DOCUMENT_SUFFIXES):
        raise input_error(
            f"{path!r} is a {os.path.splitext(name)[1]} document, not FASTA/FASTQ, text "
            "or a CSV/TSV table; --format text reads its lines as strings"
        )
    return "sequences" if _first_character(path) in SEQUENCE_FIRST_BYTES else "text"


def check_inputs(paths, options):
    """Check every input's kind, and that the table options and the tables go together."""
    kinds = {path: input_kind(path, options) for path in paths}
    if "table" in kinds.values():
        if options.column is None:
            table = next(path for path, kind in kinds.items() if kind == "table")
            raise usage_error(
                f"{table!r} is a table: name the column of strings with --column NAME"
            )
        return
    for flag, value in (("--column", options.column), ("--name-column", options.name_column)):
        if value is not None:
            read_as = ", ".join(f"{path!r} is read as {kind}" for path, kind in kinds.items())
            raise usage_error(
                f"{flag} names a column of a CSV/TSV table, and no input is one ({read_as}); "
                "a .csv/.tsv/.tab name or --format table reads a table"
            )


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


def read_queries(path, options, alphabet):
    """The query file, read through and checked now, before the base is fitted.

    Returns a function that yields its chunks again: text and tables are
    kept (they are read whole anyway); a sequence file is read a second
    time, chunk by chunk, so it may be larger than memory.
    """
    kind = input_kind(path, options)
    chunks = iter_records(path, options, kind, alphabet=alphabet)
    if kind != "sequences":
        kept = list(chunks)
        return lambda: iter(kept)
    collections.deque(chunks, maxlen=0)
    return lambda: iter_records(path, options, kind, alphabet=alphabet)


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
    column, name_column = (options.column, options.name_column) if kind == "table" else (None,) * 2
    records = _checked(lambda: read_strings(path, column=column, name_column=name_column), "")
    _checked(lambda: check_alphabet(records, alphabet, path), hint)
    yield records


def _checked(read, hint):
    try:
        return read()
    except (SequenceFileError, TextFileError, OSError, EOFError) as error:
        message = str(error)
        for python_name, option in OPTION_NAMES.items():
            message = message.replace(python_name, option)
        raise input_error(f"{message}{hint}") from error


def _checked_iter(chunks, hint):
    while True:
        chunk = _checked(lambda: next(chunks, None), hint)
        if chunk is None:
            return
        yield chunk


def check_k(k, n_records, base, all_vs_all):
    """Refuse -k above the records each query can have as neighbors."""
    n_available = n_records - all_vs_all
    if n_available == 0:
        raise input_error(
            f"{base!r} holds a single record: all-vs-all needs two or more "
            "(is it the file you meant, in the format you meant?)"
        )
    if k > n_available:
        which = f"the {n_available} other records" if all_vs_all else f"the {n_records} records"
        raise usage_error(f"-k {k} is more neighbors than {which} of {base!r}; lower -k")
