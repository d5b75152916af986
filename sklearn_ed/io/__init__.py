"""Reading sequence and text files, and writing neighbor tables with names.

FASTA and FASTQ (plain or compressed) are parsed by dnaio; text files give
one string per line or a column of a CSV/TSV table. Every reader returns
:class:`Records` (names and strings in file order), so the names travel into
the tables of neighbors. Named alphabets for the checks: ``"dna"`` (ACGT),
``"dna_n"`` (ACGTN), ``"protein"`` (the 20 amino acids) and
``"protein_ext"`` (with B, J, O, U, X, Z and ``*``).
"""

from ._alphabet import ALPHABETS, alphabet_letters, describe, first_foreign_letter, infer_alphabet
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
