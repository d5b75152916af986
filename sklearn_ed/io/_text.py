"""Strings from text files: one per line, or a column of a CSV/TSV table."""

import csv
import os

from ._records import Records

COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")


class TextFileError(ValueError):
    """A text or table file that cannot be read as asked: the message names the file."""


def read_strings(path, *, column=None, name_column=None, delimiter=None):
    """Read strings from a text file (one per line) or from a column of a table.

    Compressed files (``.gz``, ``.bz2``, ``.xz``, ``.zst``) are read as they
    are. Lines end at ``\\n`` or ``\\r\\n`` only (a form feed or a Unicode line
    separator is part of its line), and a last line without a newline is a
    string too, so string ``i`` is what ``sed -n ip`` prints. Nothing is
    stripped but the line ending, so an empty line is an empty string.

    Parameters
    ----------
    path : str or path-like
        A UTF-8 text file.
    column : str, default=None
        Read this column of a table with a header row instead of whole
        lines.
    name_column : str, default=None
        The table's column of record names; without it, names are the row
        (or line) numbers counted from 1.
    delimiter : str, default=None
        The table's delimiter; by default a tab for ``.tsv``/``.tab`` files
        (in any case, compressed or not: ``data.TSV.xz``) and a comma
        otherwise.

    Returns
    -------
    records : :class:`Records`
        ``names`` and ``sequences`` (the strings); ``qualities`` is None.

    Raises
    ------
    TextFileError
        The file is empty, is not UTF-8 text, lacks the column asked for, or
        a row has fewer fields than the header.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_ed.io import read_strings
    >>> path = os.path.join(tempfile.mkdtemp(), "people.csv")
    >>> _ = open(path, "w").write("id,name\\np1,Ada Lovelace\\np2,Alan Turing\\n")
    >>> records = read_strings(path, column="name", name_column="id")
    >>> records.names.tolist(), records.sequences.tolist()
    (['p1', 'p2'], ['Ada Lovelace', 'Alan Turing'])
    """
    from xopen import xopen

    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path!r} is a directory, not a text file.")
    if name_column is not None and column is None:
        raise ValueError("name_column needs column: names come from a table's column.")
    try:
        if column is None:
            # newline="\n": str.splitlines and universal newlines would also
            # split at \r, \f and \u2028, and line numbers would drift from the file's.
            with xopen(path, "rt", encoding="utf-8", newline="\n") as file:
                strings = [_without_line_ending(line) for line in file]
            names = [str(line) for line in range(1, len(strings) + 1)]
        else:
            with xopen(path, "rt", encoding="utf-8", newline="") as file:
                names, strings = _table_column(file, path, column, name_column, delimiter)
    except UnicodeDecodeError as error:
        raise TextFileError(f"{path!r} is not UTF-8 text ({error.reason}).") from error
    if not strings:
        raise TextFileError(f"{path!r} holds no strings (empty file).")
    return Records(names, strings)


def uncompressed_name(path):
    """The file's name in lower case, without a compression suffix.

    Examples
    --------
    >>> from sklearn_ed.io import uncompressed_name
    >>> uncompressed_name("data/People.TSV.Zst")
    'data/people.tsv'
    """
    name = os.fspath(path).lower()
    for suffix in COMPRESSION_SUFFIXES:
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return name


def _without_line_ending(line):
    if line.endswith("\r\n"):
        return line[:-2]
    return line.removesuffix("\n")


def _table_column(file, path, column, name_column, delimiter):
    if delimiter is None:
        delimiter = "\t" if uncompressed_name(path).endswith((".tsv", ".tab")) else ","
    reader = csv.reader(file, delimiter=delimiter)
    header = next(reader, None)
    if header is None:
        raise TextFileError(f"{path!r} holds no header row (empty file).")
    wanted = [column] if name_column is None else [column, name_column]
    for name in wanted:
        if name not in header:
            raise TextFileError(
                f"{path!r} has no column {name!r}; its columns are {header} "
                f"(delimiter {delimiter!r})."
            )
    at = header.index(column)
    name_at = None if name_column is None else header.index(name_column)
    names, strings = [], []
    for row_number, row in enumerate(reader, start=1):
        if len(row) < len(header):
            raise TextFileError(
                f"{path!r}: row {row_number} has {len(row)} fields, the header {len(header)}."
            )
        strings.append(row[at])
        names.append(str(row_number) if name_at is None else row[name_at])
    return names, strings
