"""The sklearn-ed command against the Python API, run as users run it."""

import gzip
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from sklearn_ed import FilterRefineNeighbors, StringDeduplicator, similarity_join
from sklearn_ed.cli import main
from sklearn_ed.datasets import make_genome_reads
from sklearn_ed.io import Records, write_sequences

K = 3
N_BASE = 120


def console_script():
    script = Path(sys.executable).with_name("sklearn-ed")
    return [str(script)] if script.exists() else [sys.executable, "-m", "sklearn_ed"]


def run(*args):
    """Run the installed console script; return (exit code, stdout, stderr)."""
    done = subprocess.run([*console_script(), *map(str, args)], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def reads(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reads")
    data = make_genome_reads(N_BASE + 20, read_length=(180, 220), genome_length=6000).data
    base = Records([f"read{i}" for i in range(N_BASE)], data[:N_BASE])
    queries = Records([f"query{i}" for i in range(20)], data[N_BASE:])
    fastq = Records(base.names, base.sequences, ["I" * len(s) for s in base.sequences])
    write_sequences(folder / "base.fq.gz", fastq)
    write_sequences(folder / "queries.fa", queries)
    return folder, base, queries


def api_answer(base, queries, **params):
    search = FilterRefineNeighbors(n_neighbors=K, random_state=0, **params).fit(base)
    return search.kneighbors(queries)


def table(path_or_text):
    return pd.read_csv(path_or_text, sep="\t", keep_default_na=False)


def assert_table_is(frame, distances, indices, query_names, base_names):
    assert list(frame.columns) == ["query", "target", "distance", "rank"]
    assert frame["query"].tolist() == list(np.repeat(query_names, K))
    assert frame["target"].tolist() == [base_names[i] for i in indices.ravel()]
    np.testing.assert_array_equal(frame["distance"], distances.ravel())
    assert frame["rank"].tolist() == [1, 2, 3] * len(query_names)


def test_knn_fastq_against_fasta_equals_the_python_api(reads, tmp_path):
    folder, base, queries = reads
    out = tmp_path / "hits.tsv"
    code, stdout, stderr = run(
        "knn", folder / "base.fq.gz", folder / "queries.fa", "-k", K, "-t", 1, "-o", out
    )
    assert code == 0, stderr
    assert stdout == "" and "wrote 60 neighbors" in stderr
    distances, indices = api_answer(base.sequences, queries.sequences, n_jobs=1)
    assert_table_is(table(out), distances, indices, queries.names, base.names)


def test_all_vs_all_exact_equals_brute_force_without_self(reads):
    folder, base, _ = reads
    code, stdout, stderr = run("knn", folder / "base.fq.gz", "-k", K, "--exact", "-q")
    assert code == 0, stderr
    assert stderr == ""
    frame = table(__import__("io").StringIO(stdout))
    exact = cdist(base.sequences, base.sequences, scorer=Levenshtein.distance)
    np.fill_diagonal(exact, np.iinfo(exact.dtype).max)
    kth = np.sort(exact, axis=1)[:, :K]
    np.testing.assert_array_equal(frame["distance"].to_numpy().reshape(-1, K), kth)
    assert not (frame["query"] == frame["target"]).any()


def test_saved_index_answers_as_the_fitted_base(reads, tmp_path):
    folder, _, _ = reads
    index = tmp_path / "base.sked"
    assert main(["index", str(folder / "base.fq.gz"), "-o", str(index), "-k", str(K), "-q"]) == 0
    for base, out in ((folder / "base.fq.gz", "direct.tsv"), (index, "indexed.tsv")):
        args = ["knn", str(base), str(folder / "queries.fa"), "-k", str(K), "-q"]
        assert main([*args, "-o", str(tmp_path / out)]) == 0
    assert (tmp_path / "direct.tsv").read_text() == (tmp_path / "indexed.tsv").read_text()


def test_text_lines_and_csv_column_with_names(tmp_path):
    words = ["kitten", "sitting", "mitten", "bitten", "fitting"]
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n")
    (tmp_path / "typos.csv").write_text("id,word\nt1,kiten\nt2,sittin\n")
    code, stdout, stderr = run(
        "knn",
        tmp_path / "words.txt",
        tmp_path / "typos.csv",
        "-k",
        "1",
        "-q",
        "--column",
        "word",
        "--name-column",
        "id",
    )
    assert code == 0, stderr
    frame = table(__import__("io").StringIO(stdout))
    search = FilterRefineNeighbors(n_neighbors=1, random_state=0).fit(words)
    distances, indices = search.kneighbors(["kiten", "sittin"])
    assert frame["query"].tolist() == ["t1", "t2"]
    assert frame["target"].tolist() == (indices.ravel() + 1).tolist() == [1, 2]  # line numbers
    assert frame["distance"].tolist() == distances.ravel().tolist() == [1, 1]


def write_bad(folder, name, text=None, opener=open):
    path = folder / name
    if text is None:
        path.mkdir()
    else:
        with opener(path, "wt") as file:
            file.write(text)
    return path


@pytest.mark.parametrize(
    "name, text, extra, message",
    [
        ("trunc.fq", "@r1\nACGT\n+\nIIII\n@r2\nACG\n", [], "Premature end of file"),
        ("qual.fq.gz", "@r1\nACGT\n+\nIII\n", [], "Length of sequence and qualities differ"),
        ("protein.fa", ">p\nMKVLE\n", ["--alphabet", "dna"], "'M' at position 1, outside"),
        ("empty.fa", "", [], "(empty file)"),
        ("folder", None, [], "is a directory"),
    ],
    ids=["truncated-fastq", "quality-length-gzip", "non-acgt", "empty", "directory"],
)
def test_malformed_base_gives_one_line_and_no_output(tmp_path, name, text, extra, message):
    opener = gzip.open if name.endswith(".gz") else open
    bad = write_bad(tmp_path, name, text, opener)
    out = tmp_path / "out.tsv"
    code, stdout, stderr = run("knn", bad, "-o", out, *extra)
    assert code == 3
    assert stderr.count("\n") == 1 and stderr.startswith("sklearn-ed: error: ")
    assert message in stderr and "Traceback" not in stderr
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]


def test_query_outside_the_index_alphabet_is_refused(reads, tmp_path, capsys):
    folder, _, _ = reads
    queries = write_bad(tmp_path, "q.fa", ">q1\nACGT\n>q2\nACGTRYK\n")
    out = tmp_path / "out.tsv"
    assert main(["knn", str(folder / "base.fq.gz"), str(queries), "-q", "-o", str(out)]) == 3
    error = capsys.readouterr().err
    assert "record 2 ('q2') has 'R' at position 5" in error and "dna (ACGT)" in error
    assert not out.exists()


def test_a_failure_late_in_the_queries_leaves_no_partial_output(reads, tmp_path, capsys):
    folder, _, _ = reads
    text = "".join(f">q{i}\nACGTACGTAC\n" for i in range(10_000)) + ">last\nACGTX\n"
    queries = write_bad(tmp_path, "many.fa", text)
    out = tmp_path / "out.tsv"
    assert main(["knn", str(folder / "base.fq.gz"), str(queries), "-q", "-o", str(out)]) == 3
    assert "record 10001 ('last')" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [queries]


def test_output_that_exists_needs_force(reads, tmp_path, capsys):
    folder, _, _ = reads
    out = tmp_path / "out.tsv"
    out.write_text("keep me")
    args = ["knn", str(folder / "base.fq.gz"), str(folder / "queries.fa"), "-q", "-o", str(out)]
    assert main(args) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert out.read_text() == "keep me"
    assert main([*args, "--force"]) == 0
    assert out.read_text().startswith("query\ttarget\tdistance\trank\n")


def test_k_larger_than_the_base_is_refused(reads, capsys):
    folder, _, _ = reads
    assert main(["knn", str(folder / "base.fq.gz"), "-k", str(N_BASE), "-q"]) == 2
    assert f"-k {N_BASE} is more neighbors than the {N_BASE - 1} other records" in (
        capsys.readouterr().err
    )


def test_a_saved_index_keeps_its_search_options(reads, tmp_path, capsys):
    folder, _, _ = reads
    index = tmp_path / "i.sked"
    assert main(["index", str(folder / "base.fq.gz"), "-o", str(index), "-q"]) == 0
    assert main(["knn", str(index), str(folder / "queries.fa"), "--exact", "-q"]) == 2
    assert "--exact: fixed when the index was built" in capsys.readouterr().err


def test_force_replaces_only_an_index_folder(reads, tmp_path, capsys):
    folder, _, _ = reads
    precious = tmp_path / "results"
    precious.mkdir()
    (precious / "notes.txt").write_text("mine")
    assert main(["index", str(folder / "base.fq.gz"), "-o", str(precious), "-f", "-q"]) == 2
    assert "not an index" in capsys.readouterr().err
    assert (precious / "notes.txt").read_text() == "mine"


def test_help_leads_with_usage_and_common_options():
    code, stdout, _ = run("knn", "--help")
    assert code == 0
    lines = stdout.splitlines()
    assert lines[0] == "usage: sklearn-ed knn [options] BASE|INDEX [QUERIES]"
    assert stdout.index("common options") < stdout.index("input:") < stdout.index("other:")


def test_join_two_files_equals_similarity_join(tmp_path, capsys):
    left = ["kitten", "sitting", "mitten", "smitten", "bitten"]
    right = ["kiten", "fitting", "mittens"]
    (tmp_path / "left.txt").write_text("\n".join(left) + "\n")
    (tmp_path / "right.txt").write_text("\n".join(right) + "\n")
    args = ["join", str(tmp_path / "left.txt"), str(tmp_path / "right.txt"), "--threshold", "2"]
    assert main([*args, "-q"]) == 0
    frame = table(__import__("io").StringIO(capsys.readouterr().out))
    rows, columns, distances = similarity_join(left, right, threshold=2)
    expected = sorted(zip((rows + 1).tolist(), (columns + 1).tolist(), distances.tolist()))
    assert list(frame.columns) == ["left", "right", "distance"]
    assert sorted(frame.itertuples(index=False, name=None)) == expected


@pytest.mark.parametrize(
    "strings, options, n_pairs",
    [
        # token_set_ratio 85, fuzz.ratio 600/7: pairs exactly at the cut-off.
        (["abcdefghijklmnopqrst", "abcdefghijklmnopqxyz"], ["--metric", "token_set"], 1),
        (["anne", "ann"], ["--metric", "normalized_indel"], 1),
    ],
)
def test_join_keeps_the_pairs_at_the_cut_off(tmp_path, capsys, strings, options, n_pairs):
    (tmp_path / "names.txt").write_text("\n".join(strings) + "\n")
    similarity = "0.85" if "token_set" in options else str(6 / 7)
    args = ["join", str(tmp_path / "names.txt"), "--min-similarity", similarity, *options]
    assert main([*args, "-q"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + n_pairs


def test_a_threshold_beyond_every_distance_joins_and_groups_everything(tmp_path, capsys):
    (tmp_path / "words.txt").write_text("ab\nabc\nxyz\n")
    for command in ("join", "dedup"):
        assert main([command, str(tmp_path / "words.txt"), "--threshold", "inf", "-q"]) == 0
    join_out, dedup_out = capsys.readouterr().out.split("name\tgroup")
    assert len(join_out.splitlines()) == 1 + 3 and dedup_out.count("\t0\t") == 3


def test_dedup_table_names_groups_and_representatives(tmp_path, capsys):
    (tmp_path / "people.csv").write_text(
        'id,name\np1,Jon Smith\np2,John Smith\np3,"Smith, John"\np4,Ann Lee\np5,Anne Lee\n'
    )
    args = [
        "dedup",
        str(tmp_path / "people.csv"),
        "--column",
        "name",
        "--name-column",
        "id",
        "--min-similarity",
        "0.85",
        "--metric",
        "normalized_indel",
        "--processor",
        "default_sort_tokens",
        "-q",
    ]
    assert main(args) == 0
    frame = table(__import__("io").StringIO(capsys.readouterr().out))
    dedup = StringDeduplicator(
        min_similarity=0.85, metric="normalized_indel", processor="default_sort_tokens"
    ).fit(["Jon Smith", "John Smith", "Smith, John", "Ann Lee", "Anne Lee"])
    assert frame["name"].tolist() == ["p1", "p2", "p3", "p4", "p5"]
    assert frame["group"].tolist() == dedup.labels_.tolist() == [0, 0, 0, 1, 1]
    names = np.array(["p1", "p2", "p3", "p4", "p5"])
    assert frame["representative"].tolist() == names[dedup.representatives_[dedup.labels_]].tolist()


@pytest.mark.parametrize(
    "extra, message",
    [
        ([], "give one of --threshold"),
        (["--min-similarity", "0.9"], "--min-similarity needs a normalized metric"),
        (["--threshold", "2", "--metric", "normalized_levenshtein"], r"in \[0, 1\]"),
    ],
)
def test_join_thresholds_are_usage_errors(tmp_path, capsys, extra, message):
    (tmp_path / "w.txt").write_text("a\nb\n")
    assert main(["join", str(tmp_path / "w.txt"), "-q", *extra]) == 2
    assert re.search(message, capsys.readouterr().err)


def test_threads_default_to_every_core():
    from sklearn_ed.cli._parser import build_parser

    options = build_parser().parse_args(["knn", "base.fa"])
    assert options.threads == -1
    assert build_parser().parse_args(["join", "a.txt", "-t", "2"]).threads == 2
