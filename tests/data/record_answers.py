"""Record the answers of the reduced benchmark cases (tests/_answers_cases.py).

Run at the commit whose answers are the reference, from a checkout of it
(its ``sklearn_ed`` first on the path), e.g. for 43a30ee::

    git worktree add /tmp/wt_answers 43a30ee
    cd /tmp/wt_answers && PYTHONPATH=/tmp/wt_answers python /path/to/tests/data/record_answers.py

The cases come from this file's ``tests/`` folder; the answers are written
next to this file as ``answers_<commit>.npz`` (``--output`` to change).
``tests/test_answers_unchanged.py`` compares the current code with them.
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _cases():
    sys.path.insert(0, str(HERE.parent))
    import _answers_cases

    return _answers_cases


def _commit(package_dir):
    return subprocess.run(
        ["git", "-C", str(package_dir), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def main(argv=None):
    cases = _cases()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("names", nargs="*", help="cases to run (default: all)")
    args = parser.parse_args(argv)

    import sklearn_ed

    package_dir = Path(sklearn_ed.__file__).resolve().parent
    commit = _commit(package_dir)
    print(f"sklearn_ed from {package_dir} at {commit}", file=sys.stderr)
    output = args.output or HERE / f"answers_{cases.RECORDED_AT}.npz"
    if commit != cases.RECORDED_AT and args.output is None:
        parser.error(f"the checkout is at {commit}, not {cases.RECORDED_AT}: give --output")

    answers = {}
    for name in args.names or cases.CASES:
        start = time.perf_counter()
        answers.update(cases.run_case(name))
        print(f"{time.perf_counter() - start:7.2f} s  {name}", file=sys.stderr)
    for key, array in answers.items():
        assert array.dtype != object, key
    np.savez_compressed(output, **answers)
    print(f"{len(answers)} arrays -> {output} ({output.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
