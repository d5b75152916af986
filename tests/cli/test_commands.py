"""The subcommands come from one registry; parsing loads no scikit-learn; the
estimators' progress goes to stderr and the table alone to stdout."""

import io
import re
import subprocess
import sys
import types

import pandas as pd
import pytest

from sklearn_ed.cli import main
from sklearn_ed.cli._commands import COMMANDS

# Each argv answers while parsing (help, version, a wrong option or command).
NO_SKLEARN = """
import sys
from sklearn_ed.cli import main

for argv in ([], ["--help"], ["--version"], ["frob"], ["knn", "x.fa", "--bogus"],
             ["knn", "-k", "0", "x.fa"], *([name, "-h"] for name in sys.argv[1:])):
    try:
        main(argv)
    except SystemExit:
        pass
loaded = sorted(name for name in sys.modules if name.split(".")[0] == "sklearn")
assert not loaded, loaded
"""


def test_parsing_answers_without_loading_scikit_learn():
    done = subprocess.run(
        [sys.executable, "-c", NO_SKLEARN, *COMMANDS], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_help_lists_the_registry_in_order(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("commands:") + 1
    listed = [line.split()[0] for line in lines[start : start + len(COMMANDS)]]
    assert listed == list(COMMANDS) == ["knn", "index", "join", "dedup", "records"]


@pytest.mark.parametrize("name", COMMANDS)
def test_each_subcommands_help_is_its_modules(capsys, name):
    command = COMMANDS[name]
    with pytest.raises(SystemExit):
        main([name, "-h"])
    page = capsys.readouterr().out
    assert page.startswith(f"usage: sklearn-ed {name} [options] {command.OPERANDS}\n")
    assert command.DESCRIPTION in page and command.EXAMPLES in page


def test_a_module_and_its_registration_make_a_subcommand(monkeypatch, capsys):
    ran = []
    echo = types.SimpleNamespace(
        NAME="echo",
        HELP="print the input's name",
        OPERANDS="INPUT",
        DESCRIPTION="The input's name.",
        EXAMPLES="",
        add_arguments=lambda parser: parser.add_argument("input"),
        run=lambda options: ran.append((options.input, options.quiet)),
    )
    monkeypatch.setitem(COMMANDS, echo.NAME, echo)
    assert main(["echo", "words.txt", "-q"]) == 0
    assert ran == [("words.txt", True)]
    with pytest.raises(SystemExit):
        main(["--help"])
    assert re.search(r"^  echo +print the input's name$", capsys.readouterr().out, re.MULTILINE)


def test_progress_goes_to_stderr_and_the_table_alone_to_stdout(tmp_path, capsys):
    words = ["kitten", "sitting", "mitten", "bitten", "fitting"]
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n")
    assert main(["knn", str(tmp_path / "words.txt"), "-k", "2", "-t", "1"]) == 0
    out, err = capsys.readouterr()
    frame = pd.read_csv(io.StringIO(out), sep="\t")
    assert list(frame.columns) == ["query", "target", "distance", "rank"]
    assert len(frame) == 2 * len(words)
    assert "[FilterRefineNeighbors] 5 items: brute force, every item compared" in err
    assert "[sklearn-ed] wrote 10 neighbors to stdout" in err
