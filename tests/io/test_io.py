"""Sequence and text readers against hand-written files, and the neighbor tables."""

import bz2
import gzip

import numpy as np
import pytest

from sklearn_ed import FilterRefineNeighbors
from sklearn_ed.io import (
    Records,
    SequenceFileError,
    TextFileError,
    iter_sequences,
    neighbors_frame,
    read_sequences,
    read_strings,
    write_sequences,
)


def write(path, text, opener=open):
    with opener(path, "wt") as file:
        file.write(text)
    return path


def test_fasta_names_stop_at_whitespace_and_lines_join(tmp_path):
    path = write(tmp_path / "a.fa", ">r1 first read\nACGT\nAC\n>r2\n\n>r3\nT\n")
    records = read_sequences(path)
    assert records.names.tolist() == ["r1", "r2", "r3"]
    assert records.sequences.tolist() == ["ACGTAC", "", "T"]
    assert records.qualities is None


@pytest.mark.parametrize("suffix, opener", [("", open), (".gz", gzip.open), (".bz2", bz2.open)])
def test_fastq_reads_plain_and_compressed_alike(tmp_path, suffix, opener):
    text = "@a x\nACGT\n+\nIIII\n@b\nGG\n+\n#I\n"
    records = read_sequences(write(tmp_path / f"r.fq{suffix}", text, opener))
    assert records.names.tolist() == ["a", "b"]
    assert records.sequences.tolist() == ["ACGT", "GG"]
    assert records.qualities.tolist() == ["IIII", "#I"]


def test_written_records_read_back_equal(tmp_path):
    records = Records(["x", "y"], ["ACGT", "TT"], ["IIII", "II"])
    write_sequences(tmp_path / "out.fq.gz", records)
    back = read_sequences(tmp_path / "out.fq.gz")
    for field in ("names", "sequences", "qualities"):
        assert getattr(back, field).tolist() == getattr(records, field).tolist()


def test_chunks_concatenate_to_the_whole_file(tmp_path):
    text = "".join(f">s{i}\n{'ACGT'[i % 4] * (i + 1)}\n" for i in range(25))
    path = write(tmp_path / "s.fa", text)
    chunks = list(iter_sequences(path, chunk_size=10))
    assert [len(chunk) for chunk in chunks] == [10, 10, 5]
    whole = read_sequences(path)
    assert sum((chunk.sequences.tolist() for chunk in chunks), []) == whole.sequences.tolist()


@pytest.mark.parametrize(
    "text, message",
    [
        ("@r1\nACGT\n+\nIIII\n@r2\nACG\n", "Premature end of file"),
        ("@r1\nACGT\n+\nIII\n", "Length of sequence and qualities differ"),
        ("", "empty file"),
        ("hello\nworld\n", "not a FASTA or FASTQ file: it must start with"),
        ("@r1\nACGT\nIIII\nIIII\n", "expected to start with .[+]."),
    ],
    ids=["truncated", "quality-length", "empty", "text", "no-separator"],
)
def test_malformed_files_raise_naming_the_file(tmp_path, text, message):
    path = write(tmp_path / "bad.fq", text)
    with pytest.raises(SequenceFileError, match=message) as error:
        read_sequences(path)
    assert "bad.fq" in str(error.value)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory"):
        read_sequences(tmp_path)


def test_alphabet_names_record_letter_and_position(tmp_path):
    path = write(tmp_path / "p.fa", ">ok\nACGT\n>bad\nACNT\n")
    with pytest.raises(SequenceFileError, match=r"record 2 \('bad'\) has 'N' at position 3"):
        read_sequences(path, alphabet="dna")
    assert read_sequences(path, alphabet="dna_n").sequences.tolist() == ["ACGT", "ACNT"]


def test_soft_masked_letters_pass_once_uppercased(tmp_path):
    path = write(tmp_path / "m.fa", ">m\nACgt\n")
    with pytest.raises(SequenceFileError, match="uppercase=True"):
        read_sequences(path, alphabet="dna")
    assert read_sequences(path, alphabet="dna", uppercase=True).sequences.tolist() == ["ACGT"]


def test_unknown_alphabet_is_refused(tmp_path):
    path = write(tmp_path / "m.fa", ">m\nAC\n")
    with pytest.raises(ValueError, match="alphabet must be one of"):
        read_sequences(path, alphabet="")


def test_lines_keep_empty_strings_and_count_names_from_one(tmp_path):
    path = write(tmp_path / "w.txt", "kitten\n\nsitting\r\n")
    records = read_strings(path)
    assert records.names.tolist() == ["1", "2", "3"]
    assert records.sequences.tolist() == ["kitten", "", "sitting"]


def test_table_column_with_names_csv_and_tsv(tmp_path):
    csv_path = write(tmp_path / "p.csv", 'id,name\np1,"Lovelace, Ada"\np2,Alan Turing\n')
    records = read_strings(csv_path, column="name", name_column="id")
    assert records.names.tolist() == ["p1", "p2"]
    assert records.sequences.tolist() == ["Lovelace, Ada", "Alan Turing"]
    tsv_path = write(tmp_path / "p.tsv.gz", "id\tname\np1\tAda\n", gzip.open)
    assert read_strings(tsv_path, column="name").sequences.tolist() == ["Ada"]


@pytest.mark.parametrize(
    "text, kwargs, message",
    [
        ("id,name\np1,Ada\n", {"column": "surname"}, r"no column 'surname'; its columns are"),
        ("id,name\np1\n", {"column": "name"}, "row 1 has 1 fields, the header 2"),
        ("", {}, "empty file"),
        ("", {"column": "name"}, "no header row"),
    ],
)
def test_table_errors_name_the_problem(tmp_path, text, kwargs, message):
    with pytest.raises(TextFileError, match=message):
        read_strings(write(tmp_path / "t.csv", text), **kwargs)


def test_text_that_is_not_utf8_is_refused(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("café\n".encode("latin-1"))
    with pytest.raises(TextFileError, match="not UTF-8"):
        read_strings(path)


def test_records_need_a_name_per_sequence():
    with pytest.raises(ValueError, match="one name per sequence"):
        Records(["a"], ["AC", "GT"])


def test_neighbors_frame_carries_names_of_the_answer():
    base = ["ACGT", "ACGA", "TTTT", "TTTA"]
    search = FilterRefineNeighbors(n_neighbors=2, random_state=0).fit(base)
    distances, indices = search.kneighbors(["ACGG", "TTTC"])
    frame = neighbors_frame(distances, indices, ["q1", "q2"], ["b1", "b2", "b3", "b4"])
    assert frame["query"].tolist() == ["q1", "q1", "q2", "q2"]
    assert frame["target"].tolist() == [f"b{i + 1}" for i in indices.ravel()]
    np.testing.assert_array_equal(frame["distance"], distances.ravel())
    assert frame["rank"].tolist() == [1, 2, 1, 2]


def test_a_sequence_file_that_is_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "latin.fa"
    path.write_bytes(b">r1\nACGT\n>r2\nAC\xffGT\n")
    with pytest.raises(SequenceFileError, match=r"latin\.fa' is not a FASTA/FASTQ text file"):
        read_sequences(path)
