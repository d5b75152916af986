"""The peers of the benchmark matrix: candidates from another library, exact refine.

Each peer builds its structure from the processed base (its "fit"), then for
the queries proposes candidates that are refined with the cell's exact metric
(``rapidfuzz.process.cpdist``): the answer is the k nearest of the candidates
(fewer candidates than k: the rest at infinite distance).

- ``symspellpy``: symmetric-delete lookup within 2 edits (its own OSA
  distance), ``Verbosity.CLOSEST`` for k=1 and ``ALL`` otherwise; on words,
  names and codes, for the edit-count metrics Levenshtein, OSA and
  Damerau-Levenshtein.
- ``tf-idf``: string_grouper's engine, ``TfidfVectorizer(analyzer="char_wb",
  ngram_range=(3, 3))`` and ``sparse_dot_topn`` top-50 cosine; every base but
  reads. As a join: each string's top 50 (no cosine floor), pairs verified
  exactly.
- ``mappy``: minimap2 (preset ``"map-ont"``, ``best_n=50``) over the reads,
  the hits' references as candidates; reads only.
"""

import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from benchmarks._matrix_metrics import N_JOBS, paired_distances, process_strings, within

TOP_N = 50
SYMSPELL_METRICS = ("levenshtein", "osa", "damerau_levenshtein")
SYMSPELL_BASES = ("words", "multilingual", "names", "codes")


def knn_peers(base_name, metric):
    """The peers of a kNN cell."""
    peers = []
    if base_name in SYMSPELL_BASES and metric in SYMSPELL_METRICS:
        peers.append("symspellpy")
    peers.append("mappy" if base_name == "reads" else "tf-idf")
    return peers


def refine(queries, base, candidates, metric, k):
    """The k nearest of each query's candidates (ragged lists of base positions)."""
    counts = np.array([len(c) for c in candidates])
    rows = np.repeat(np.arange(len(queries)), counts)
    columns = np.concatenate([np.asarray(c, dtype=np.int64) for c in candidates] or [[]])
    columns = columns.astype(np.int64)
    values = paired_distances(queries[rows], base[columns], metric) if len(rows) else np.zeros(0)
    out = np.full((len(queries), k), np.inf)
    order = np.lexsort((values, rows))
    rows, values = rows[order], values[order]
    starts = np.concatenate([[0], np.cumsum(counts)])
    for i in range(len(queries)):
        top = values[starts[i] : starts[i + 1]][:k]
        out[i, : len(top)] = top
    return out


def _symspell(base):
    from symspellpy import SymSpell, Verbosity

    speller = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
    where = {}
    for rank, word in enumerate(base):
        speller.create_dictionary_entry(word, len(base) - rank)
        where.setdefault(word, []).append(rank)

    def candidates(queries, k):
        verbosity = Verbosity.CLOSEST if k == 1 else Verbosity.ALL
        found = []
        for query in queries:
            terms = speller.lookup(query, verbosity, max_edit_distance=2, transfer_casing=False)
            found.append([i for term in terms for i in where.get(term.term, ())])
        return found

    return candidates


def _tfidf(base):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sparse_dot_topn import sp_matmul_topn

    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3), dtype=np.float32)
    base_t = vectorizer.fit_transform(base).T.tocsr()

    def candidates(queries, k):
        top = sp_matmul_topn(vectorizer.transform(queries), base_t, top_n=TOP_N, n_threads=N_JOBS)
        return np.split(top.indices, top.indptr[1:-1])

    return candidates


def _mappy(base, directory):
    import mappy

    path = os.path.join(directory, "base.fa")
    with open(path, "w") as file:
        for i, read in enumerate(base):
            file.write(f">{i}\n{read}\n")
    aligner = mappy.Aligner(path, preset="map-ont", best_n=TOP_N)

    def map_part(part):
        buffer = mappy.ThreadBuffer()
        return [sorted({int(hit.ctg) for hit in aligner.map(q, buf=buffer)}) for q in part]

    def candidates(queries, k):
        parts = np.array_split(np.asarray(queries, dtype=object), N_JOBS)
        with ThreadPoolExecutor(N_JOBS) as pool:
            return [c for part in pool.map(map_part, parts) for c in part]

    return candidates


def _import(peer):
    if peer == "symspellpy":
        import symspellpy  # noqa: F401
    elif peer == "mappy":
        import mappy  # noqa: F401
    else:
        import sklearn.feature_extraction.text  # noqa: F401
        import sparse_dot_topn  # noqa: F401


def knn_peer(peer, base, query_sets, metric, processor, ks):
    """Build the peer on the processed base, answer every processed query set.

    Returns ``fit_s`` and, per query set and k, ``(query_s, distances)``; the
    processing of the strings is timed with the build and the queries.
    """
    _import(peer)  # untimed, as the other methods' imports
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        base = process_strings(processor, base)
        if peer == "symspellpy":
            candidates = _symspell(base)
        elif peer == "tf-idf":
            candidates = _tfidf(base)
        else:
            candidates = _mappy(base, directory)
        fit_s = time.perf_counter() - start
        answers = {}
        for name, queries in query_sets.items():
            for k in ks:
                start = time.perf_counter()
                processed = process_strings(processor, queries)
                found = refine(processed, base, candidates(processed, k), metric, k)
                answers[name, k] = (time.perf_counter() - start, found)
    return fit_s, answers


def tfidf_join(strings, metric, threshold):
    """Pairs (i < j) within the threshold among each string's top-50 tf-idf cosines."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sparse_dot_topn import sp_matmul_topn

    vectors = TfidfVectorizer(
        analyzer="char_wb", ngram_range=(3, 3), dtype=np.float32
    ).fit_transform(strings)
    top = sp_matmul_topn(vectors, vectors.T.tocsr(), top_n=TOP_N, n_threads=N_JOBS).tocoo()
    keep = top.row != top.col
    left, right = top.row[keep].astype(np.int64), top.col[keep].astype(np.int64)
    # The top-n is not symmetric: a pair found from either side counts once.
    pairs = np.unique(np.stack([np.minimum(left, right), np.maximum(left, right)], axis=1), axis=0)
    values = paired_distances(strings[pairs[:, 0]], strings[pairs[:, 1]], metric)
    return pairs[within(values, threshold, metric)]
