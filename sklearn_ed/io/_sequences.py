"""FASTA and FASTQ files (plain or compressed) through dnaio."""

import os

from ._alphabet import alphabet_letters, describe, first_foreign_letter
from ._records import Records

DEFAULT_CHUNK_SIZE = 10_000


class SequenceFileError(ValueError):
    """A sequence file that cannot be read as asked: the message names the file."""


def read_sequences(path, *, alphabet=None, uppercase=False):
    """Read every record of a FASTA or FASTQ file, gzip, bzip2, xz or plain.

    The format is recognised from the first character (``>`` or ``@``) and
    the compression from the file's magic bytes, whatever the extension.

    Parameters
    ----------
    path : str or path-like
        The file.
    alphabet : {"dna", "dna_n", "protein", "protein_ext"} or str, default=None
        When given, every letter of every sequence must belong to it (a
        string lists the allowed letters); the first letter that does not
        raises :class:`SequenceFileError` naming the record and position.
        ``None`` accepts any letters.
    uppercase : bool, default=False
        Convert sequences to upper case before the check (soft-masked FASTA
        marks repeats in lower case).

    Returns
    -------
    records : :class:`Records`
        ``names`` (header up to the first whitespace), ``sequences`` and,
        for FASTQ, ``qualities``.

    Raises
    ------
    SequenceFileError
        The file is empty, is neither FASTA nor FASTQ, is not UTF-8 text, is
        truncated, has a quality string whose length differs from its
        sequence, or holds a letter outside ``alphabet``. ``FileNotFoundError`` and
        ``IsADirectoryError`` as ``open`` raises them.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_ed.io import read_sequences
    >>> path = os.path.join(tempfile.mkdtemp(), "reads.fa")
    >>> _ = open(path, "w").write(">r1 first read\\nACGT\\nAC\\n>r2\\nTTGA\\n")
    >>> records = read_sequences(path, alphabet="dna")
    >>> records.names.tolist(), records.sequences.tolist()
    (['r1', 'r2'], ['ACGTAC', 'TTGA'])
    """
    chunks = list(iter_sequences(path, chunk_size=None, alphabet=alphabet, uppercase=uppercase))
    return chunks[0]


def iter_sequences(path, *, chunk_size=DEFAULT_CHUNK_SIZE, alphabet=None, uppercase=False):
    """Read a FASTA or FASTQ file chunk by chunk, for files larger than memory.

    Parameters
    ----------
    path : str or path-like
        The file (compressed or plain).
    chunk_size : int or None, default=10_000
        Records per chunk; ``None`` reads the whole file as one chunk.
    alphabet, uppercase
        As in :func:`read_sequences`.

    Yields
    ------
    records : :class:`Records`
        Consecutive records of the file. Record numbers in error messages
        count from the start of the file.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_ed.io import iter_sequences
    >>> path = os.path.join(tempfile.mkdtemp(), "reads.fq")
    >>> _ = open(path, "w").write("@a\\nAC\\n+\\nII\\n@b\\nGT\\n+\\nII\\n@c\\nTT\\n+\\nII\\n")
    >>> [chunk.names.tolist() for chunk in iter_sequences(path, chunk_size=2)]
    [['a', 'b'], ['c']]
    """
    import dnaio

    if alphabet is not None:
        alphabet_letters(alphabet)
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path!r} is a directory, not a FASTA/FASTQ file.")
    fileformat = _format_of(path)
    done = 0
    try:
        with dnaio.open(path, fileformat=fileformat) as reader:
            for chunk in _chunks(reader, chunk_size, uppercase):
                check_alphabet(chunk, alphabet, path, done)
                done += len(chunk)
                yield chunk
    except (dnaio.FileFormatError, EOFError) as error:
        raise SequenceFileError(f"{path!r}: {error}") from error
    except UnicodeDecodeError as error:
        byte = error.object[error.start : error.start + 1]
        raise SequenceFileError(
            f"{path!r} is not a FASTA/FASTQ text file: it holds the byte {byte!r}, "
            f"which is not UTF-8 ({error.reason})."
        ) from error
    if done == 0:
        raise SequenceFileError(f"{path!r} holds no FASTA or FASTQ record (empty file).")


def _format_of(path):
    """FASTA or FASTQ from the first character, whatever the file's name says."""
    from xopen import xopen

    with xopen(path, "rb") as file:
        first = file.read(1)
    if first in (b"", b">"):
        return "fasta"
    if first == b"@":
        return "fastq"
    raise SequenceFileError(
        f"{path!r} is not a FASTA or FASTQ file: it must start with '>' or '@', "
        f"not {first.decode('latin-1')!r}."
    )


def _chunks(reader, chunk_size, uppercase):
    names, sequences, qualities = [], [], []
    for record in reader:
        names.append(record.name.split(maxsplit=1)[0] if record.name.strip() else "")
        sequences.append(record.sequence.upper() if uppercase else record.sequence)
        qualities.append(record.qualities)
        if chunk_size is not None and len(names) == chunk_size:
            yield _records(names, sequences, qualities)
            names, sequences, qualities = [], [], []
    if names:
        yield _records(names, sequences, qualities)


def _records(names, sequences, qualities):
    return Records(names, sequences, None if qualities[0] is None else qualities)


def check_alphabet(records, alphabet, path, offset=0):
    """Raise :class:`SequenceFileError` at the first letter outside ``alphabet``.

    Parameters
    ----------
    records : :class:`Records`
        The records to check.
    alphabet : str or None
        As in :func:`read_sequences`; ``None`` checks nothing.
    path : str or path-like
        The file the records come from, named in the message.
    offset : int, default=0
        Number of records of the file before ``records`` (for the record
        number in the message).

    Examples
    --------
    >>> from sklearn_ed.io import Records, check_alphabet
    >>> check_alphabet(Records(["r1"], ["ACGT"]), "dna", "reads.fa")
    >>> try:
    ...     check_alphabet(Records(["r1"], ["ACXT"]), "dna", "reads.fa")
    ... except ValueError as error:
    ...     print(error)
    'reads.fa': record 1 ('r1') has 'X' at position 3, outside the alphabet dna (ACGT).
    """
    if alphabet is None:
        return
    found = first_foreign_letter(records.sequences, alphabet_letters(alphabet))
    if found is not None:
        record, position, letter = found
        raise SequenceFileError(
            f"{os.fspath(path)!r}: record {offset + record + 1} ({records.names[record]!r}) "
            f"has {letter!r} at position {position + 1}, outside the alphabet "
            f"{describe(alphabet)}."
            + (" Pass uppercase=True for soft-masked sequences." if letter.islower() else "")
        )


def write_sequences(path, records):
    """Write records as FASTA, or as FASTQ when they carry qualities.

    The compression follows the extension (``.gz``, ``.bz2``, ``.xz``).

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists).
    records : :class:`Records`
        What to write.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_ed.io import Records, read_sequences, write_sequences
    >>> path = os.path.join(tempfile.mkdtemp(), "reads.fa.gz")
    >>> write_sequences(path, Records(["r1", "r2"], ["ACGT", "GGA"]))
    >>> read_sequences(path).sequences.tolist()
    ['ACGT', 'GGA']
    """
    import dnaio

    qualities = records.qualities
    fastq = qualities is not None
    with dnaio.open(os.fspath(path), mode="w", fileformat="fastq" if fastq else "fasta") as out:
        for i, (name, sequence) in enumerate(zip(records.names, records.sequences)):
            out.write(dnaio.SequenceRecord(name, sequence, qualities[i] if fastq else None))
