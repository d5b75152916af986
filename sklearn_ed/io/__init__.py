"""Reading sequence and text files, and writing neighbor tables with names.

FASTA and FASTQ (plain or compressed) are parsed by dnaio; text files give
one string per line or a column of a CSV/TSV table. Every reader returns
:class:`Records` (names and strings in file order), so the names travel into
the tables of neighbors. Named alphabets for the checks: ``"dna"`` (ACGT),
``"dna_n"`` (ACGTN), ``"protein"`` (the 20 amino acids) and
``"protein_ext"`` (with B, J, O, U, X, Z and ``*``). :func:`character_codes`
and :func:`encode_symbols` turn strings into the byte codes or symbols the
embedders' kernels read, a byte per character where the text is Latin-1.
"""

from ._alphabet import (
    ALPHABETS,
    alphabet_letters,
    character_codes,
    describe,
    encode_symbols,
    first_foreign_letter,
    infer_alphabet,
    string_offsets,
    symbol_table,
)
from ._records import Records
from ._sequences import (
    DEFAULT_CHUNK_SIZE,
    SequenceFileError,
    check_alphabet,
    iter_sequences,
    read_sequences,
    write_sequences,
)
from ._tables import COLUMNS, neighbors_frame, tsv_field, write_groups, write_neighbors, write_pairs
from ._text import COMPRESSION_SUFFIXES, TextFileError, read_strings, uncompressed_name

__all__ = [
    "Records",
    "SequenceFileError",
    "TextFileError",
    "check_alphabet",
    "iter_sequences",
    "neighbors_frame",
    "read_sequences",
    "read_strings",
    "write_sequences",
]
