import pytest

from sklearn_ed.datasets import make_person_records


@pytest.fixture(scope="session")
def person_records():
    """3,000 generated person records (9 % planted duplicates) as a table, with a
    full-name column whose words are sorted by the comparison (swaps are equal)."""
    records = make_person_records(3000, as_frame=True, random_state=0)
    frame = records.frame.copy()
    frame.insert(0, "name", frame.first_name.fillna("") + " " + frame.last_name.fillna(""))
    return frame, records.entity, records.data
