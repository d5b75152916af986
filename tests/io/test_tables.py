"""The TSV writers: every name stays one field of one row, as pandas reads it."""

import io

import numpy as np
import pytest

from sklearn_ed.io import tsv_field, write_groups, write_neighbors, write_pairs

NAMES = ["a\tb", 'say "hi"', "two\nlines", "carriage\rreturn", '"quoted', "plain", ""]


def read_back(text, header):
    pd = pytest.importorskip("pandas")
    return pd.read_csv(io.StringIO(header + text), sep="\t", keep_default_na=False, dtype=str)


def test_neighbors_pairs_and_groups_read_back_with_their_names():
    n = len(NAMES)
    out = io.StringIO()
    indices = np.arange(n)[::-1].reshape(-1, 1)
    write_neighbors(out, np.ones((n, 1)), indices, NAMES, NAMES)
    frame = read_back(out.getvalue(), "query\ttarget\tdistance\trank\n")
    assert frame["query"].tolist() == NAMES and frame["target"].tolist() == NAMES[::-1]
    assert frame["distance"].tolist() == ["1"] * n and frame["rank"].tolist() == ["1"] * n

    out = io.StringIO()
    write_pairs(out, np.arange(n), np.arange(n)[::-1], np.full(n, 0.5), NAMES, NAMES)
    frame = read_back(out.getvalue(), "left\tright\tdistance\n")
    assert frame["left"].tolist() == NAMES and frame["right"].tolist() == NAMES[::-1]

    out = io.StringIO()
    write_groups(out, NAMES, np.zeros(n, dtype=int), [NAMES[0]] * n)
    frame = read_back(out.getvalue(), "name\tgroup\trepresentative\n")
    assert frame["name"].tolist() == NAMES and frame["representative"].tolist() == [NAMES[0]] * n


def test_plain_names_are_written_as_they_are():
    assert [tsv_field(name) for name in ("read1", "Smith, John", "x y", 7)] == [
        "read1",
        "Smith, John",
        "x y",
        "7",
    ]
