"""Metrics, processors and thresholds of the benchmark matrix, on rapidfuzz's side.

The brute force of every cell is ``rapidfuzz.process.cdist`` with the
scorer the package uses for the metric (``SCORERS``: scorer, unit and
keyword arguments), on strings the benchmark processes itself with the same
functions as the package's processors (``process``); a metric the package
registers that is missing here is reported and skipped.
"""

import re

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import (
    OSA,
    DamerauLevenshtein,
    Hamming,
    Indel,
    Jaro,
    JaroWinkler,
    LCSseq,
    Levenshtein,
)
from rapidfuzz.utils import default_process

N_JOBS = 2
# Processor labels of the matrix -> the package's processor names.
PROCESSORS = {"none": None, "default": "default", "sort_tokens": "default_sort_tokens"}
SCORERS = {
    "levenshtein": (Levenshtein.distance, "edits", {}),
    "damerau_levenshtein": (DamerauLevenshtein.distance, "edits", {}),
    "osa": (OSA.distance, "edits", {}),
    "indel": (Indel.distance, "edits", {}),
    "lcsseq": (LCSseq.distance, "edits", {}),
    "hamming": (Hamming.distance, "edits", {"pad": True}),
    "normalized_levenshtein": (Levenshtein.normalized_distance, "share", {}),
    "normalized_indel": (Indel.normalized_distance, "share", {}),
    "jaro": (Jaro.normalized_distance, "share", {}),
    "jaro_winkler": (JaroWinkler.normalized_distance, "share", {}),
    "token_set": (fuzz.token_set_ratio, "percent", {}),
}
# Three join thresholds per metric (distances in the metric's unit), for
# short strings (words, names) and long ones (records: median over 20 characters).
THRESHOLDS = {
    "edits": {"short": (1, 2, 3), "long": (2, 4, 6)},
    "indel": {"short": (2, 4, 6), "long": (4, 8, 12)},
    "share": {"short": (0.1, 0.15, 0.2), "long": (0.1, 0.15, 0.2)},
    "jaro": {"short": (0.05, 0.1, 0.15), "long": (0.05, 0.1, 0.15)},
}
_TOKENS = re.compile(r"\S+")


def string_metrics():
    """Every registered metric on strings, and those of them rapidfuzz lacks here."""
    from sklearn_ed.distances import available_metrics, get_metric

    names = [m for m in available_metrics() if get_metric(m).input_type == "strings"]
    return [m for m in names if m in SCORERS], [m for m in names if m not in SCORERS]


def _sort_tokens(string):
    return " ".join(sorted(_TOKENS.findall(default_process(string))))


def process_strings(label, strings):
    """The strings as the package's processor ``PROCESSORS[label]`` makes them."""
    name = PROCESSORS[label]
    if name is None:
        return np.asarray(strings, dtype=object)
    function = default_process if name == "default" else _sort_tokens
    return np.array([function(s) for s in strings], dtype=object)


def distances(queries, base, metric, cutoff=None, workers=N_JOBS, native=False):
    """cdist of ``queries`` x ``base`` as distances (float64, or with ``native``
    the int32 rapidfuzz returns for edit counts; beyond ``cutoff``: some value
    above it)."""
    scorer, unit, kwargs = SCORERS[metric]
    if unit == "percent":
        score_cutoff = None if cutoff is None else max(100.0 * (1.0 - cutoff) - 1e-4, 0.0)
        scores = process.cdist(
            queries,
            base,
            scorer=scorer,
            score_cutoff=score_cutoff,
            dtype=np.float64,
            workers=workers,
            scorer_kwargs=kwargs or None,
        )
        return (100.0 - scores) / 100.0
    dtype = np.int32 if unit == "edits" else np.float64
    if cutoff is not None and unit == "share":
        cutoff = min(cutoff + 1e-6, 1.0)
    found = process.cdist(
        queries,
        base,
        scorer=scorer,
        score_cutoff=cutoff,
        dtype=dtype,
        workers=workers,
        scorer_kwargs=kwargs or None,
    )
    return found if native else found.astype(np.float64)


def paired_distances(left, right, metric, workers=N_JOBS):
    """Distance of ``left[i]`` to ``right[i]`` for every i (cpdist)."""
    scorer, unit, kwargs = SCORERS[metric]
    values = process.cpdist(
        left, right, scorer=scorer, dtype=np.float64, workers=workers, scorer_kwargs=kwargs or None
    )
    return (100.0 - values) / 100.0 if unit == "percent" else values


def thresholds(metric, strings):
    """The three default thresholds of ``metric`` for these strings."""
    unit = SCORERS[metric][1]
    family = {"indel": "indel", "jaro": "jaro", "jaro_winkler": "jaro"}.get(metric)
    family = family or ("share" if unit != "edits" else "edits")
    length = "long" if np.median([len(s) for s in strings[:2000]]) > 20 else "short"
    return THRESHOLDS[family][length]


def limit(metric, threshold):
    """The largest computed distance within ``threshold``: the package's
    (``Metric.limit``). A normalized metric's threshold is widened by its
    scorer's rounding, so that a pair exactly at it is kept (Jaro-Winkler
    similarity 0.95 is the distance 0.050000000000000044, not 0.05)."""
    from sklearn_ed.distances import get_metric

    return get_metric(metric).limit(threshold)


def within(values, threshold, metric):
    """Mask of distances within the threshold (exactly at it: kept, as the package)."""
    return values <= limit(metric, threshold)
