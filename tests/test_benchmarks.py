"""The benchmark suite (``benchmarks/_suite.py``) matches the scripts, the
result files and ``benchmarks/README.md``, and no recorded result is older
than its script."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from benchmarks import _suite as suite  # noqa: E402 - the repository root is on the path


def test_every_script_is_a_run_and_listed_in_the_readme():
    readme = (ROOT / "benchmarks" / "README.md").read_text()
    scripts = {path.stem for path in (ROOT / "benchmarks").glob("bench_*.py")}
    assert scripts == {run.module for run in suite.RUNS}
    assert [name for name in sorted(scripts) if f"| `{name}.py` |" not in readme] == []


def test_every_result_file_comes_from_a_run():
    produced = {output for run in suite.RUNS for output in run.outputs}
    produced |= set(suite.RENDERED) | {suite.PROVENANCE.name}
    present = {path.name for path in suite.RESULTS.iterdir() if path.suffix != ".png"}
    assert sorted(present - produced) == []
    assert sorted(produced - present - {suite.PROVENANCE.name}) == []


def test_readme_table_is_the_suite():
    table = subprocess.run(
        [sys.executable, "-m", "benchmarks", "list", "--markdown"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert table in (ROOT / "benchmarks" / "README.md").read_text()


def test_no_recorded_result_is_older_than_its_script():
    records = suite.provenance()
    assert set(records) <= set(suite.RUNS_BY_NAME)
    stale = [name for name in records if suite.status(suite.RUNS_BY_NAME[name], records) == "stale"]
    assert stale == [], (
        "results older than their script; rerun them with "
        f"python -m benchmarks run {' '.join(stale)}"
    )


def test_runs_reading_a_cache_name_the_run_that_writes_it():
    # The tuning script reads the exact matrices the retrieval script caches:
    # on a clean clone the runner must make them first.
    for run in suite.RUNS:
        if run.module == "bench_triplet_tuning":
            writer = suite.RUNS_BY_NAME[run.needs]
            assert writer.module == "bench_triplet_retrieval", run.name
            assert writer.cache_file == run.cache_file, run.name


def test_rendered_tables_are_those_of_the_committed_results(tmp_path, monkeypatch):
    # The docs include the CSVs; they must be rendered from the JSON results
    # committed beside them (copying a rerun's JSON without rendering left
    # the docs showing the previous run).
    import shutil

    from benchmarks import render_tables

    for path in suite.RESULTS.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.setattr(render_tables, "RESULTS", str(tmp_path))
    shutil.copy(render_tables.README, tmp_path / "README.md")
    monkeypatch.setattr(render_tables, "README", str(tmp_path / "README.md"))
    render_tables.main()
    for rendered in tmp_path.glob("*.csv"):
        committed = suite.RESULTS / rendered.name
        assert rendered.read_text() == committed.read_text(), (
            f"{rendered.name} differs from its JSON: run python -m benchmarks.render_tables"
        )


def test_the_readme_results_are_the_docs_results():
    from benchmarks import render_tables

    readme = (suite.REPOSITORY / "README.md").read_text()
    assert readme == render_tables.readme_with_results(readme), (
        "README.md's results differ from benchmarks/results/headline.csv (the docs' table): "
        "run python -m benchmarks.render_tables"
    )
