"""What the tests of sklearn_ed.records share: the columns of the generated
person records and pair scores."""

import numpy as np

from sklearn_ed.records import Column

PERSON_COLUMNS = [
    Column("name", processor="default_sort_tokens"),
    Column("street_address", metric="normalized_indel", thresholds=(0.1, 0.25)),
    Column("city", metric="normalized_indel", thresholds=(0.1,)),
    Column("date_of_birth", metric="levenshtein", thresholds=(1,)),
]


def same_entity_pairs(labels):
    """Every pair of rows with the same label."""
    order = np.argsort(labels, kind="stable")
    groups = np.split(order, np.flatnonzero(np.diff(labels[order])) + 1)
    return {
        (min(a, b), max(a, b))
        for group in groups
        for position, a in enumerate(group)
        for b in group[position + 1 :]
    }


def pair_f1(found, truth):
    hits = len(found & truth)
    return 2 * hits / (len(found) + len(truth))
