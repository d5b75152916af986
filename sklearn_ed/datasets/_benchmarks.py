"""The standard benchmark configurations of sklearn-ed (see DESIGN.md)."""

import re

from sklearn.utils import Bunch, check_random_state

from ._genome import make_genome_reads
from ._misspellings import load_misspellings
from ._proteins import load_proteins
from ._split import train_query_base_split
from ._words import load_english_words

_ALPHABETIC = re.compile(r"[a-z]+")

_SPELL_DESCR = """\
spell benchmark (codespell misspellings against wordfreq English words)
=======================================================================

- base: the n_base most frequent purely alphabetic (a-z) words of wordfreq's
  English "large" list, most frequent first (base_frequency).
- query: codespell misspellings, lowercased, purely alphabetic, not in the
  base, whose first (lowercased) correction is in the base; sampled without
  replacement with random_state.
- query_correction: codespell's first correction of each query.
- train: base words sampled without replacement with the same generator.

Report recall, and correction accuracy: the nearest base word (ties broken by
higher frequency) equals query_correction.
"""


def load_genome_reads_benchmark(
    n_base=50_000, n_query=1_000, n_train=1_000, random_state=0, genome_length=500_000
):
    """Load the genome reads benchmark: 50,000 noisy reads of a genome, 1,000 queries.

    ``n_train + n_query + n_base`` reads are simulated by
    :func:`make_genome_reads` with its default protocol (first 500,000 bp,
    lengths in [900, 1100], error rates in [0.01, 0.08]) and seed
    ``random_state``, then split by :func:`train_query_base_split` into
    train, query and base sets, drawing the permutation from the same random
    generator (continued after the simulation). The defaults give about 100x
    coverage, so every query has real overlapping neighbors.

    Parameters
    ----------
    n_base : int, default=50_000
        Number of base reads (the searched set).
    n_query : int, default=1_000
        Number of query reads.
    n_train : int, default=1_000
        Number of train reads.
    random_state : int, RandomState instance or None, default=0
        Seed of the simulation and of the split.
    genome_length : int, default=500_000
        Reads are drawn from the first ``genome_length`` bp. Scale it with
        the number of reads to keep the coverage (reads x 1,000 / length)
        of the standard configuration in smaller versions.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With ``train``, ``query``, ``base`` (lists of str),
        ``train_start``, ``query_start``, ``base_start`` (int64 arrays:
        positions of the reads in the genome) and ``DESCR``.

    Examples
    --------
    >>> from sklearn_ed.datasets import load_genome_reads_benchmark
    >>> bench = load_genome_reads_benchmark(n_base=50, n_query=5, n_train=5)
    >>> len(bench.train), len(bench.query), len(bench.base)
    (5, 5, 50)
    >>> bench.base_start.shape
    (50,)
    """
    rng = check_random_state(random_state)
    reads = make_genome_reads(
        n_train + n_query + n_base, genome_length=genome_length, random_state=rng
    )
    train, query, base, train_start, query_start, base_start = train_query_base_split(
        reads.data, reads.start, n_train=n_train, n_query=n_query, random_state=rng
    )
    return Bunch(
        train=train,
        query=query,
        base=base,
        train_start=train_start,
        query_start=query_start,
        base_start=base_start,
        DESCR="genome-reads benchmark\n\n" + reads.DESCR,
    )


def _spell_queries(base_words):
    """Misspellings usable as queries against ``base_words``, in file order."""
    base = set(base_words)
    misspellings = load_misspellings()
    queries, corrections, seen = [], [], set()
    for misspelling, fixes in zip(misspellings.data, misspellings.corrections):
        query = misspelling.lower()
        fixes = tuple(fix.lower() for fix in fixes)
        if (
            _ALPHABETIC.fullmatch(query)
            and query not in base
            and query not in seen
            and fixes[0] in base
        ):
            seen.add(query)
            queries.append(query)
            corrections.append(fixes)
    return queries, corrections


def load_spell_benchmark(n_base=100_000, n_query=1_000, n_train=1_000, random_state=0):
    """Load the spelling benchmark: 1,000 misspellings against 100,000 words.

    - base: the ``n_base`` most frequent purely alphabetic (a-z) words of
      wordfreq's English "large" list (:func:`load_english_words`).
    - query: ``n_query`` codespell misspellings drawn without replacement
      with ``random_state``. Misspellings and corrections are lowercased (as
      codespell does when it loads its dictionary; the base words are
      lowercase). A misspelling is eligible when it is purely alphabetic,
      not a base word, and its first correction is a base word; when two
      lines give the same lowercased misspelling, the first one is used.
    - train: ``n_train`` base words drawn without replacement (after the
      queries) with the same random generator; they are also in the base.

    Parameters
    ----------
    n_base : int, default=100_000
        Number of dictionary words in the base.
    n_query : int, default=1_000
        Number of misspelled queries.
    n_train : int, default=1_000
        Number of train words (a sample of the base).
    random_state : int, RandomState instance or None, default=0
        Seed of the query and train samples.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With ``train``, ``query``, ``base`` (lists of str),
        ``query_correction`` (list of str: codespell's first correction of
        each query, always a base word), ``query_corrections`` (list of
        tuples: all its corrections, lowercased), ``base_frequency``
        (float64 array: wordfreq frequency of each base word, decreasing)
        and ``DESCR``.

    Examples
    --------
    >>> from sklearn_ed.datasets import load_spell_benchmark
    >>> bench = load_spell_benchmark(n_base=5000, n_query=10, n_train=10)
    >>> len(bench.train), len(bench.query), len(bench.base)
    (10, 10, 5000)
    >>> base = set(bench.base)
    >>> all(word in base for word in bench.query_correction)
    True
    """
    rng = check_random_state(random_state)
    words = load_english_words(n_base)
    queries, corrections = _spell_queries(words.data)
    if n_query > len(queries):
        raise ValueError(
            f"n_query={n_query} is larger than the {len(queries)} misspellings "
            f"whose correction is among the {len(words.data)} base words"
        )
    if n_train > len(words.data):
        raise ValueError(f"n_train={n_train} is larger than n_base={len(words.data)}")
    query_index = rng.choice(len(queries), size=n_query, replace=False)
    train_index = rng.choice(len(words.data), size=n_train, replace=False)
    return Bunch(
        train=[words.data[i] for i in train_index],
        query=[queries[i] for i in query_index],
        base=words.data,
        query_correction=[corrections[i][0] for i in query_index],
        query_corrections=[corrections[i] for i in query_index],
        base_frequency=words.frequency,
        DESCR=_SPELL_DESCR,
    )


def load_protein_benchmark(n_query=200, n_train=200, random_state=0):
    """Load the ``proteins`` benchmark: a split of :func:`load_proteins`.

    Parameters
    ----------
    n_query : int, default=200
        Number of query proteins.
    n_train : int, default=200
        Number of train proteins; the other proteins form the base.
    random_state : int, RandomState instance or None, default=0
        Seed of the split (:func:`train_query_base_split`).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With ``train``, ``query``, ``base`` (lists of str), ``train_names``,
        ``query_names``, ``base_names`` (lists of str) and ``DESCR``.

    Examples
    --------
    >>> from sklearn_ed.datasets import load_protein_benchmark
    >>> bench = load_protein_benchmark()
    >>> len(bench.train), len(bench.query), len(bench.base)
    (200, 200, 1700)
    """
    proteins = load_proteins()
    train, query, base, train_names, query_names, base_names = train_query_base_split(
        proteins.data, proteins.names, n_train=n_train, n_query=n_query, random_state=random_state
    )
    return Bunch(
        train=train,
        query=query,
        base=base,
        train_names=train_names,
        query_names=query_names,
        base_names=base_names,
        DESCR="proteins benchmark\n\n" + proteins.DESCR,
    )
