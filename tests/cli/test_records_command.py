"""``sklearn-ed records``: the groups and links of RecordDeduplicator, as TSV."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ed.cli import main
from sklearn_ed.datasets import make_person_records
from sklearn_ed.records import Column, RecordDeduplicator

COLUMNS = "first_name,last_name,street_address:normalized_indel,date_of_birth:levenshtein"


@pytest.fixture(scope="module")
def people(tmp_path_factory):
    frame = make_person_records(1500, as_frame=True, random_state=1).frame
    frame.insert(0, "id", [f"p{i}" for i in range(len(frame))])
    folder = tmp_path_factory.mktemp("records")
    frame.iloc[:1200].to_csv(folder / "people.csv", index=False)
    frame.iloc[1200:].to_csv(folder / "new.tsv", index=False, sep="\t")
    return frame, folder


def as_table(frame):
    return frame.fillna("").astype(str).set_index("id")


def test_groups_are_the_estimators(people):
    frame, folder = people
    out = folder / "groups.tsv"
    assert main([
        "records", str(folder / "people.csv"), "--columns", COLUMNS,
        "--name-column", "id", "-o", str(out), "-q",
    ]) == 0  # fmt: skip
    written = pd.read_csv(out, sep="\t")
    columns = [
        Column("first_name", thresholds=(0.08, 0.2)),
        Column("last_name", thresholds=(0.08, 0.2)),
        Column("street_address", metric="normalized_indel", thresholds=(0.08, 0.2)),
        Column("date_of_birth", metric="levenshtein", thresholds=(1, 2)),
    ]
    expected = RecordDeduplicator(columns, n_jobs=-1).fit(as_table(frame.iloc[:1200]))
    assert written["name"].tolist() == frame["id"].iloc[:1200].tolist()
    assert np.array_equal(written["group"], expected.labels_)


@pytest.mark.parametrize("one_to_one", [False, True])
def test_link_writes_the_matching_pairs_of_the_two_tables(people, one_to_one):
    frame, folder = people
    out = folder / f"links_{one_to_one}.tsv"
    assert main([
        "records", str(folder / "people.csv"), str(folder / "new.tsv"), "--columns", COLUMNS,
        "--name-column", "id", "-o", str(out), "-q", *(["--one-to-one"] if one_to_one else []),
    ]) == 0  # fmt: skip
    links = pd.read_csv(out, sep="\t")
    assert list(links.columns) == ["left", "right", "match_weight", "match_probability"]
    assert links["left"].isin(frame["id"].iloc[:1200]).all()
    assert links["right"].isin(frame["id"].iloc[1200:]).all()
    if one_to_one:
        assert not links["left"].duplicated().any() and not links["right"].duplicated().any()
    probability = links["match_probability"]
    assert len(links) and (probability > 0).all() and (probability <= 1).all()


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["--columns", "first_name,postcode"], 2, "no column 'postcode'"),
        (["--columns", "first_name:cosine"], 2, "NAME:METRIC"),
        (["--columns", "first_name", "--min-probability", "2"], 2, "min-probability"),
    ],
)
def test_bad_columns_and_options_name_the_problem(people, capsys, argv, code, message):
    _, folder = people
    try:
        status = main(["records", str(folder / "people.csv"), *argv, "-q"])
    except SystemExit as exit:
        status = exit.code
    assert status == code
    assert message in capsys.readouterr().err


def test_a_file_that_is_not_a_table_is_refused(tmp_path, capsys):
    lines = tmp_path / "names.txt"
    lines.write_text("ann\nanne\n")
    assert main(["records", str(lines), "--columns", "name", "-q"]) == 2
    assert "not a table" in capsys.readouterr().err
