"""Run the benchmark suite: ``python -m benchmarks {list,run,stale}`` (from the repository root).

- ``list``: every run, its script, expected minutes, the docs page that quotes
  it and whether its results are fresh (``--markdown``: the table of
  ``benchmarks/README.md``);
- ``run NAME [NAME ...]``: run them, keep the report as ``results/NAME.txt``,
  re-render the docs' CSV tables and record the script's SHA-256, the git
  commit and the duration in ``results/provenance.json``;
- ``stale``: the runs whose script or library source changed since their
  results were made, or whose results predate the runner; exits 1 if there
  are any.

``run`` refuses a working tree with uncommitted changes (outside
``benchmarks/results``): a result names the commit whose code made it.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone

from benchmarks import _suite
from benchmarks._common import _git_commit
from benchmarks.render_tables import main as render_tables


def _refuse_a_dirty_tree():
    commit = _git_commit()
    if commit.endswith("with uncommitted changes"):
        raise SystemExit(
            "The working tree has uncommitted changes (git status): commit them first, "
            "so that each result names the code that made it."
        )


def _run(run):
    _refuse_a_dirty_tree()
    _suite.CACHE.mkdir(parents=True, exist_ok=True)
    needed = _suite.RUNS_BY_NAME.get(run.needs)
    if needed is not None and not needed.cache_file.exists():
        print(f"[{run.name}] reads the cache of {needed.name}: running it first", file=sys.stderr)
        _run(needed)
    # What ran: the code at the start (the tree may change while a long run goes on).
    ran = {
        "script_sha256": _suite.script_digest(run),
        "library_sha256": _suite.library_digest(),
        "commit": _git_commit(),
    }
    report = _suite.RESULTS / run.outputs[0]
    partial = report.with_suffix(".txt.partial")
    command = run.command(sys.executable)
    print(f"[{run.name}] {' '.join(command[1:])} (about {run.minutes} min)", file=sys.stderr)
    start = time.perf_counter()
    with open(partial, "w") as out:
        # The report is what the script prints; its progress goes to stderr.
        code = subprocess.run(command, stdout=out, cwd=_suite.REPOSITORY).returncode
    if code != 0:
        raise SystemExit(
            f"[{run.name}] failed with exit status {code}; its partial report is {partial}"
        )
    os.replace(partial, report)
    render_tables()
    records = _suite.provenance()
    records[run.name] = {
        "script": str(run.script.relative_to(_suite.REPOSITORY)),
        **ran,
        "finished": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "seconds": round(time.perf_counter() - start),
    }
    _suite.PROVENANCE.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")


def _list(markdown):
    records, library = _suite.provenance(), _suite.library_digest()
    if markdown:
        print("| run | script | minutes | docs page | results |")
        print("|---|---|---|---|---|")
    for run in _suite.RUNS:
        fields = [
            run.name,
            f"{run.module}.py",
            str(run.minutes),
            f"docs/{run.docs}.rst",
            ", ".join(run.outputs),
        ]
        if markdown:
            print(
                "| "
                + " | ".join(f"`{f}`" if i in (0, 1) else f for i, f in enumerate(fields))
                + " |"
            )
        else:
            print(
                f"{run.name:30s} {_suite.status(run, records, library):15s} "
                f"{run.minutes:4d} min  "
                f"{run.module}.py {run.arguments}"
            )


def _stale():
    records, library = _suite.provenance(), _suite.library_digest()
    states = [(run.name, _suite.status(run, records, library)) for run in _suite.RUNS]
    stale = [(name, state) for name, state in states if state != "fresh"]
    for name, state in stale:
        print(f"{name:30s} {state}")
    return 1 if stale else 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n", 1)[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="every run and its status")
    listing.add_argument(
        "--markdown", action="store_true", help="print the table of benchmarks/README.md"
    )
    running = commands.add_parser("run", help="run benchmarks by name")
    running.add_argument("names", nargs="+", choices=sorted(_suite.RUNS_BY_NAME), metavar="NAME")
    commands.add_parser("stale", help="runs whose results are older than their script")
    args = parser.parse_args(argv)
    if args.command == "list":
        return _list(args.markdown)
    if args.command == "stale":
        return _stale()
    for name in args.names:
        _run(_suite.RUNS_BY_NAME[name])
    return 0


if __name__ == "__main__":
    sys.exit(main())
