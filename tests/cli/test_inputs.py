"""How the command line reads its inputs: each kind recognized, every input
checked before the fit, and each mistake named with its exit code."""

import bz2
import csv
import gzip
import io

import pandas as pd
import pytest

from sklearn_ed import FilterRefineNeighbors
from sklearn_ed.cli import main

WORDS = "kitten\nsitting\nmitten\nbitten\nfitting\n"


@pytest.fixture
def fits(monkeypatch):
    """The sizes of the bases fitted during the test."""
    fitted, fit = [], FilterRefineNeighbors.fit

    def recorded(self, X, y=None):
        fitted.append(len(X))
        return fit(self, X, y)

    monkeypatch.setattr(FilterRefineNeighbors, "fit", recorded)
    return fitted


def one_line_error(capsys):
    error = capsys.readouterr().err
    assert error.startswith("sklearn-ed: error: ") and error.count("\n") == 1, error
    return error


def test_a_fasta_that_is_not_utf8_is_an_input_error_naming_it(tmp_path, capsys):
    (tmp_path / "reads.fa").write_bytes(b">r1\nACGT\n>r2\nAC\xffGT\n")
    assert main(["knn", str(tmp_path / "reads.fa"), "-k", "1", "-q"]) == 3
    error = one_line_error(capsys)
    assert "reads.fa" in error and "not UTF-8" in error


def test_exact_with_a_metric_without_a_lower_bound_is_a_usage_error(tmp_path, capsys):
    args = ["knn", str(tmp_path / "not-read.txt"), "--metric", "token_set", "--exact", "-q"]
    assert main(args) == 2  # before the (missing) input is looked at
    error = one_line_error(capsys)
    assert "--exact needs a metric with a lower bound" in error and "token_set has none" in error


@pytest.mark.parametrize(
    "name, text",
    [("page.html", "<html><body>hi</body></html>\n"), ("data.json", '{"a": 1}\n')],
    ids=["html", "json"],
)
def test_a_document_is_refused_as_an_input_not_blamed_on_k(tmp_path, capsys, name, text):
    (tmp_path / name).write_text(text)
    assert main(["knn", str(tmp_path / name), "-k", "5", "-q"]) == 3
    error = one_line_error(capsys)
    assert name in error and "document" in error and "more neighbors" not in error


def test_a_base_of_one_record_says_so_rather_than_blame_k(tmp_path, capsys):
    (tmp_path / "one.txt").write_text("kitten\n")
    assert main(["knn", str(tmp_path / "one.txt"), "-k", "5", "-q"]) == 3
    assert "'" + str(tmp_path / "one.txt") + "' holds a single record" in one_line_error(capsys)


def test_a_bad_query_file_stops_the_run_before_the_fit(tmp_path, capsys, fits):
    (tmp_path / "base.txt").write_text(WORDS)
    (tmp_path / "queries.txt").write_bytes("café\n".encode("latin-1"))
    args = ["knn", str(tmp_path / "base.txt"), str(tmp_path / "queries.txt"), "-k", "1", "-q"]
    assert main(args) == 3
    assert "queries.txt" in one_line_error(capsys) and fits == []


def test_a_bad_record_late_in_a_query_fasta_stops_the_run_before_the_fit(tmp_path, capsys, fits):
    (tmp_path / "base.fa").write_text(">b1\nACGT\n>b2\nACGA\n>b3\nTTGA\n")
    text = "".join(f">q{i}\nACGTAC\n" for i in range(10_001)) + ">last\nACGTX\n"
    (tmp_path / "queries.fa").write_text(text)
    args = ["knn", str(tmp_path / "base.fa"), str(tmp_path / "queries.fa"), "-k", "1", "-q"]
    assert main(args) == 3
    assert "record 10002 ('last')" in one_line_error(capsys) and fits == []


def test_good_queries_are_read_again_after_the_fit(tmp_path, capsys, fits):
    (tmp_path / "base.fa").write_text(">b1\nACGT\n>b2\nTTGA\n")
    (tmp_path / "queries.fq").write_text("@q1\nACGA\n+\nIIII\n@q2\nTTGG\n+\nIIII\n")
    assert (
        main(["knn", str(tmp_path / "base.fa"), str(tmp_path / "queries.fq"), "-k", "1", "-q"]) == 0
    )
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t")
    assert frame["query"].tolist() == ["q1", "q2"] and frame["target"].tolist() == ["b1", "b2"]
    assert fits == [2]


@pytest.mark.parametrize("name", ["README.fq", "notes.fasta", "notes.FA.gz", "notes.fastq.bz2"])
def test_a_sequence_name_is_read_as_sequences_and_a_text_there_refused(tmp_path, capsys, name):
    opener = {".gz": gzip.open, "bz2": bz2.open}.get(name[-3:], open)
    with opener(tmp_path / name, "wt") as file:
        file.write("# Project\n\nSome words about it.\nMore words.\n")
    assert main(["knn", str(tmp_path / name), "-k", "1", "-q"]) == 3
    error = one_line_error(capsys)
    assert name in error and "not a FASTA or FASTQ file" in error


@pytest.mark.parametrize("flag", ["--name-column", "--column"])
@pytest.mark.parametrize(
    "name, text",
    [("words.txt", WORDS), ("reads.fa", ">r1\nACGT\n>r2\nACGA\n")],
    ids=["text", "fasta"],
)
def test_a_column_option_without_a_table_is_a_usage_error(tmp_path, capsys, flag, name, text):
    (tmp_path / name).write_text(text)
    assert main(["knn", str(tmp_path / name), "-k", "1", "-q", flag, "id"]) == 2
    error = one_line_error(capsys)
    assert f"{flag} names a column of a CSV/TSV table, and no input is one" in error
    assert f"{name}' is read as" in error


def test_the_soft_masking_hint_names_the_command_line_option(tmp_path, capsys):
    (tmp_path / "masked.fa").write_text(">r1\nACgt\n>r2\nACGT\n")
    args = ["knn", str(tmp_path / "masked.fa"), "-k", "1", "-q", "--alphabet", "dna"]
    assert main(args) == 3
    error = one_line_error(capsys)
    assert "Pass --uppercase for soft-masked sequences" in error and "uppercase=True" not in error
    assert main([*args, "--uppercase"]) == 0


def test_a_compressed_upper_case_tsv_is_split_at_tabs(tmp_path, capsys):
    with bz2.open(tmp_path / "people.TSV.BZ2", "wt") as file:
        file.write("id\tname\np1\tSmith, John\np2\tJohn Smith\np3\tAnn Lee\n")
    args = ["dedup", str(tmp_path / "people.TSV.BZ2"), "--column", "name", "--name-column", "id"]
    assert main([*args, "--threshold", "0", "-q"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t")
    assert frame["name"].tolist() == ["p1", "p2", "p3"] and frame["group"].nunique() == 3


def test_names_with_tabs_quotes_and_line_breaks_survive_the_tsv(tmp_path, capsys):
    names = ["a\tb", 'say "hi"', "two\nlines", "carriage\rreturn", '"quoted"', "plain"]
    people = pd.DataFrame({"id": names, "name": ["Ann", "Anne", "Bob", "Rob", "Eve", "Ava"]})
    # QUOTE_ALL: with minimal quoting pandas, as csv, would leave the lone \r bare.
    people.to_csv(tmp_path / "people.csv", index=False, quoting=csv.QUOTE_ALL)
    table = [str(tmp_path / "people.csv"), "--column", "name", "--name-column", "id", "-q"]
    first_columns = {"dedup": "name", "join": "left", "knn": "query"}
    for command, first in first_columns.items():
        limit = ["-k", "1"] if command == "knn" else ["--threshold", "1"]
        assert main([command, *table, *limit]) == 0, command
        frame = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", keep_default_na=False)
        assert set(frame[first]) <= set(names) and len(frame.columns) == 3 + (command == "knn")
    assert frame["query"].tolist() == names
