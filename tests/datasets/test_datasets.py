"""Tests of sklearn_ed.datasets: real-data loaders, generators and splits."""

import sys

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from sklearn_ed.datasets import (
    load_english_words,
    load_genome,
    load_genome_reads_benchmark,
    load_misspellings,
    load_protein_benchmark,
    load_proteins,
    load_spell_benchmark,
    make_genome_reads,
    make_hard_cases,
    train_query_base_split,
)
from sklearn_ed.datasets._lazy import _import_optional
from sklearn_ed.datasets._misspellings import _parse_dictionary_line


def test_misspellings_counts_and_known_lines():
    misspellings = load_misspellings()
    n_samples = len(misspellings.data)
    assert n_samples > 60_000
    assert len(misspellings.target) == len(misspellings.corrections) == n_samples
    # "abandonned->abandoned" and "aas->ass, as," are lines of the dictionary.
    i = misspellings.data.index("abandonned")  # codespell:ignore
    assert misspellings.target[i] == "abandoned"
    assert misspellings.corrections[i] == ("abandoned",)
    j = misspellings.data.index("aas")  # codespell:ignore
    assert misspellings.corrections[j] == ("ass", "as")
    assert misspellings.target[j] == "ass"
    assert i > j  # file order is kept
    assert all(fix and fix == fix.strip() for fixes in misspellings.corrections for fix in fixes)


def test_misspellings_returns_copies():
    misspellings = load_misspellings()
    misspellings.data[0] = "changed"
    assert load_misspellings().data[0] != "changed"


@pytest.mark.parametrize(
    "line, expected",
    [
        ("teh->the\n", ("teh", ("the",), "")),  # codespell:ignore
        ("aas->ass, as,\n", ("aas", ("ass", "as"), "")),  # codespell:ignore
        ("qqx->qqy, qqz, rare word\n", ("qqx", ("qqy", "qqz"), "rare word")),
    ],
)
def test_parse_dictionary_line(line, expected):
    assert _parse_dictionary_line(line) == expected


def test_english_words_ordered_and_alphabetic():
    words = load_english_words(2000)
    assert len(words.data) == 2000
    assert words.frequency.dtype == np.float64
    assert words.data[:3] == ["the", "to", "and"]
    assert np.all(np.diff(words.frequency) <= 0)
    assert np.all(words.frequency > 0)
    assert all(word.isascii() and word.isalpha() and word.islower() for word in words.data)


def test_english_words_unfiltered_contains_non_alphabetic():
    words = load_english_words(500, alphabetic_only=False)
    assert "don't" in words.data
    assert not all(word.isalpha() for word in words.data)
    filtered = load_english_words(100).data
    assert filtered == [word for word in words.data if word.isascii() and word.isalpha()][:100]


def test_genome_length_and_alphabet():
    genome = load_genome()
    assert len(genome) == 2_463_666
    assert set(genome) == set("ACGT")


def test_genome_reads_lengths_and_determinism():
    reads = make_genome_reads(200, read_length=(90, 110), error_rate=(0.01, 0.08))
    assert len(reads.data) == 200
    assert reads.start.dtype == np.int64 and reads.error_rate.dtype == np.float64
    assert reads.length.min() >= 90 and reads.length.max() <= 110
    assert np.all(reads.start >= 0) and np.all(reads.start + reads.length <= 500_000)
    assert reads.error_rate.min() >= 0.01 and reads.error_rate.max() <= 0.08
    assert all(set(read) <= set("ACGT") for read in reads.data)
    same = make_genome_reads(200, read_length=(90, 110), random_state=0)
    assert same.data == reads.data and np.array_equal(same.start, reads.start)
    other = make_genome_reads(200, read_length=(90, 110), random_state=1)
    assert other.data != reads.data


def test_genome_reads_without_errors_are_genome_slices():
    genome = load_genome()
    reads = make_genome_reads(20, read_length=(50, 60), error_rate=0.0, random_state=3)
    for read, start, length in zip(reads.data, reads.start, reads.length):
        assert read == genome[start : start + length]


@pytest.mark.parametrize("error_rate", [(0.01, 0.08), (0.1, 0.2)])
def test_genome_reads_measured_error_rate(error_rate):
    genome = load_genome()
    reads = make_genome_reads(50, error_rate=error_rate, random_state=0)
    distances = np.array(
        [
            Levenshtein.distance(read, genome[start : start + length])
            for read, start, length in zip(reads.data, reads.start, reads.length)
        ]
    )
    measured = np.mean(distances / reads.length)
    # Edits can cancel out, so the distance is at most (and close to) the errors.
    assert 0.8 * reads.error_rate.mean() < measured < 1.05 * reads.error_rate.mean()
    lengths = np.array([len(read) for read in reads.data])
    assert abs(np.mean(lengths / reads.length) - 1) < 0.02  # insertions ~ deletions


def test_hard_cases_are_shifts_and_substitutions_of_genome_slices():
    cases = make_hard_cases(50, length=60, random_state=3)
    genome = load_genome()
    assert len(cases.query) == 50 and len(cases.base) == 100
    assert all(len(s) == 60 and s in genome for s in cases.query)
    assert cases.base_kind.tolist() == ["shift", "substitution"] * 50
    for string, query, kind, edits in zip(
        cases.base, cases.base_query, cases.base_kind, cases.base_edits
    ):
        original = cases.query[query]
        if kind == "shift":
            assert edits in (1, 2) and string[edits:] == original[:-edits]
            assert Levenshtein.distance(original, string) <= 2 * edits
        else:
            assert edits in (3, 4) and len(string) == len(original)
            assert sum(a != b for a, b in zip(original, string)) == edits
    again = make_hard_cases(50, length=60, random_state=3)
    assert again.base == cases.base
    assert make_hard_cases(50, length=60, random_state=4).base != cases.base


@pytest.mark.parametrize(
    "kwargs, match", [(dict(n_queries=0), "n_queries"), (dict(n_queries=2, length=4), "length")]
)
def test_hard_cases_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_hard_cases(**kwargs)


def test_proteins():
    proteins = load_proteins()
    assert len(proteins.data) == len(proteins.names) == 2100
    assert len(set(proteins.names)) == 2100
    assert all(sequence and "*" not in sequence for sequence in proteins.data)
    assert all(sequence.isupper() for sequence in proteins.data)


def test_train_query_base_split_sizes_and_disjoint():
    words = [f"w{i}" for i in range(30)]
    index = np.arange(30)
    w_train, w_query, w_base, i_train, i_query, i_base = train_query_base_split(
        words, index, n_train=5, n_query=7, random_state=0
    )
    assert isinstance(w_train, list) and isinstance(i_base, np.ndarray)
    assert (len(w_train), len(w_query), len(w_base)) == (5, 7, 18)
    assert set(w_train).isdisjoint(w_query) and set(w_base).isdisjoint(w_train + w_query)
    assert sorted(w_train + w_query + w_base) == sorted(words)
    assert [words[i] for i in i_query] == w_query  # same permutation for all arrays
    again = train_query_base_split(words, n_train=5, n_query=7, random_state=0)
    assert again == [w_train, w_query, w_base]


@pytest.mark.parametrize(
    "arrays, kwargs, match",
    [
        ((list(range(10)),), dict(n_train=5, n_query=5), "smaller than the number of samples"),
        ((list(range(10)), list(range(9))), dict(n_train=1, n_query=1), "same number"),
        ((list(range(10)),), dict(n_train=-1, n_query=1), "n_train"),
    ],
)
def test_train_query_base_split_errors(arrays, kwargs, match):
    with pytest.raises(ValueError, match=match):
        train_query_base_split(*arrays, **kwargs)


def test_missing_package_error_message(monkeypatch):
    from sklearn_ed.datasets import _misspellings

    monkeypatch.setitem(sys.modules, "codespell_lib", None)  # makes the import fail
    _misspellings._read_dictionary.cache_clear()
    try:
        with pytest.raises(ImportError) as excinfo:
            load_misspellings()
    finally:
        _misspellings._read_dictionary.cache_clear()
    message = str(excinfo.value)
    assert message == (
        "load_misspellings requires the 'codespell' package; "
        "install it with: pip install 'sklearn-ed[datasets]'"
    )


def test_import_optional_names_caller():
    def load_something():
        return _import_optional("a_module_that_does_not_exist_123")

    with pytest.raises(ImportError, match=r"load_something requires the 'a_module_that"):
        load_something()


def test_spell_benchmark_small():
    bench = load_spell_benchmark(n_base=5000, n_query=50, n_train=20, random_state=0)
    assert (len(bench.train), len(bench.query), len(bench.base)) == (20, 50, 5000)
    base = set(bench.base)
    assert all(correction in base for correction in bench.query_correction)
    assert all(query not in base and query.isalpha() for query in bench.query)
    assert len(set(bench.query)) == 50
    assert set(bench.train) <= base
    assert bench.base_frequency.shape == (5000,)
    assert np.all(np.diff(bench.base_frequency) <= 0)
    again = load_spell_benchmark(n_base=5000, n_query=50, n_train=20, random_state=0)
    assert again.query == bench.query and again.train == bench.train
    other = load_spell_benchmark(n_base=5000, n_query=50, n_train=20, random_state=1)
    assert other.query != bench.query


def test_genome_reads_benchmark_small():
    bench = load_genome_reads_benchmark(n_base=60, n_query=10, n_train=5, random_state=0)
    assert (len(bench.train), len(bench.query), len(bench.base)) == (5, 10, 60)
    assert bench.base_start.shape == (60,) and bench.query_start.shape == (10,)
    reads = make_genome_reads(75, random_state=0)
    assert sorted(bench.train + bench.query + bench.base) == sorted(reads.data)
    start_of = dict(zip(reads.data, reads.start))
    assert [start_of[read] for read in bench.query] == list(bench.query_start)


def test_protein_benchmark():
    bench = load_protein_benchmark(n_query=20, n_train=10)
    assert (len(bench.train), len(bench.query), len(bench.base)) == (10, 20, 2070)
    assert set(bench.query).isdisjoint(bench.train)


def test_person_records_are_seeded_and_plant_the_asked_share_of_duplicates():
    from sklearn_ed.datasets import make_person_records

    first = make_person_records(2000, duplicate_share=0.1, random_state=3)
    again = make_person_records(2000, duplicate_share=0.1, random_state=3)
    assert first.data.tolist() == again.data.tolist()
    assert first.entity.tolist() == again.entity.tolist()
    # 200 duplicates point at originals; every original appears once.
    originals, counts = np.unique(first.entity, return_counts=True)
    assert counts.sum() - len(originals) == 200
    assert all(record.count(",") in (1, 2) for record in first.data)
    with pytest.raises(ValueError, match="duplicate_share"):
        make_person_records(10, duplicate_share=1.5)
