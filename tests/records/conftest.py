import numpy as np
import pytest

from sklearn_ed.datasets import make_person_records
from sklearn_ed.records import Column


@pytest.fixture(scope="session")
def person_records():
    """3,000 generated person records (9 % planted duplicates) as a table, with a
    full-name column whose words are sorted by the comparison (swaps are equal)."""
    records = make_person_records(3000, as_frame=True, random_state=0)
    frame = records.frame.copy()
    frame.insert(0, "name", frame.first_name.fillna("") + " " + frame.last_name.fillna(""))
    return frame, records.entity, records.data


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
