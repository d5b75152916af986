"""Text files: records are the file's lines as sed counts them; tables split
at the delimiter their name (compressed, in any case) says."""

import bz2
import gzip
import lzma
import shutil
import subprocess

import pytest

from sklearn_ed.io import read_strings, uncompressed_name


@pytest.mark.parametrize(
    "data, strings",
    [
        (b"first\x0cpage two\nsecond\n", ["first\x0cpage two", "second"]),
        ("a\u2028b\x85c\x1cd\nnext\n".encode(), ["a\u2028b\x85c\x1cd", "next"]),
        (b"one\r\ntwo\r\n", ["one", "two"]),
        (b"carriage\rinside\n", ["carriage\rinside"]),
        (b"no newline at the end", ["no newline at the end"]),
        (b"last\nwithout\r\nnewline", ["last", "without", "newline"]),
        (b"\n\nthird\n", ["", "", "third"]),
    ],
    ids=["form-feed", "unicode-breaks", "crlf", "lone-cr", "no-final-newline", "mixed", "empty"],
)
def test_strings_are_the_lines_sed_numbers(tmp_path, data, strings):
    path = tmp_path / "lines.txt"
    path.write_bytes(data)
    records = read_strings(path)
    assert records.sequences.tolist() == strings
    assert records.names.tolist() == [str(number) for number in range(1, len(strings) + 1)]


@pytest.mark.skipif(shutil.which("sed") is None, reason="needs sed")
def test_line_names_match_sed(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_bytes("alpha\x0cbeta\ngamma\u2028delta\r\nepsilon".encode())
    records = read_strings(path)
    for name, string in zip(records.names, records.sequences):
        printed = subprocess.run(["sed", "-n", f"{name}p", path], capture_output=True, check=True)
        assert printed.stdout.decode().removesuffix("\n").removesuffix("\r") == string


def write_zstd(path, data):
    if shutil.which("zstd") is None:
        pytest.skip("needs the zstd program")
    subprocess.run(["zstd", "-q", "-o", path], input=data, check=True)


WRITERS = {
    ".tsv.gz": lambda path, data: path.write_bytes(gzip.compress(data)),
    ".tsv.bz2": lambda path, data: path.write_bytes(bz2.compress(data)),
    ".tsv.xz": lambda path, data: path.write_bytes(lzma.compress(data)),
    ".tsv.zst": write_zstd,
    ".TSV": lambda path, data: path.write_bytes(data),
    ".Tab.GZ": lambda path, data: path.write_bytes(gzip.compress(data)),
}


@pytest.mark.parametrize("suffix", WRITERS)
def test_a_compressed_or_upper_case_tsv_splits_at_tabs(tmp_path, suffix):
    path = tmp_path / f"people{suffix}"
    WRITERS[suffix](path, b"id\tname\np1\tSmith, John\np2\tAda\n")
    records = read_strings(path, column="name", name_column="id")
    assert records.sequences.tolist() == ["Smith, John", "Ada"]
    assert records.names.tolist() == ["p1", "p2"]


def test_uncompressed_name_strips_one_compression_suffix_in_any_case():
    assert uncompressed_name("A/People.TSV.Zst") == "a/people.tsv"
    assert uncompressed_name("reads.fq.BZ2") == "reads.fq"
    assert uncompressed_name("notes.txt") == "notes.txt"
