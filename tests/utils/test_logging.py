"""The estimators' verbose lines: on stderr by default, routed by the logging API."""

import contextlib
import io
import logging

import pytest

from sklearn_ed import FilterRefineNeighbors, QGramEmbedder
from sklearn_ed.utils import log_progress

WORDS = ["kitten", "sitting", "mitten", "bitten", "fitting", "smitten"]
FIRST_LINE = "[FilterRefineNeighbors] embedder: QGramEmbedder; filter index: auto"


@pytest.fixture(autouse=True)
def unconfigured():
    """The ``sklearn_ed`` logger as a fresh process has it, and as it was after."""
    logger = logging.getLogger("sklearn_ed")
    saved = logger.handlers[:], logger.level, logger.propagate
    logger.handlers[:], logger.level, logger.propagate = [], logging.NOTSET, True
    yield logger
    logger.handlers[:], logger.level, logger.propagate = saved


def fit_verbose(verbose=1):
    # An embedder given: "auto" would brute-force six words.
    FilterRefineNeighbors(QGramEmbedder(), n_neighbors=1, verbose=verbose).fit(WORDS)


def recorded(logger):
    """The records a handler added to ``logger`` receives."""
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger.addHandler(handler)
    return records


def test_verbose_lines_go_to_stderr_and_not_stdout(capsys):
    fit_verbose()
    out, err = capsys.readouterr()
    assert out == ""
    assert FIRST_LINE + "\n" in err
    assert "[FilterRefineNeighbors] 6 items: n_candidates_=6" in err


def test_no_line_without_verbose(unconfigured, capsys):
    records = recorded(unconfigured)
    fit_verbose(verbose=0)
    assert records == [] and capsys.readouterr() == ("", "")


def test_a_handler_of_the_users_receives_the_lines(unconfigured, capsys):
    lines = io.StringIO()
    unconfigured.addHandler(logging.StreamHandler(lines))
    fit_verbose()
    assert lines.getvalue().splitlines()[0] == FIRST_LINE
    assert FIRST_LINE not in capsys.readouterr().err  # the user's handler replaces stderr


def test_the_lines_are_info_records_of_the_subpackages_logger(unconfigured):
    records = recorded(unconfigured)
    fit_verbose()
    assert {(record.name, record.levelno) for record in records} == {
        ("sklearn_ed.neighbors", logging.INFO)
    }


def test_a_level_above_info_silences_them(unconfigured, capsys):
    unconfigured.setLevel(logging.WARNING)
    fit_verbose()
    assert "[FilterRefineNeighbors]" not in capsys.readouterr().err


def test_silenced_after_a_first_verbose_fit_too(unconfigured, capsys):
    fit_verbose()
    capsys.readouterr()
    unconfigured.setLevel(logging.WARNING)
    fit_verbose()
    assert "[FilterRefineNeighbors]" not in capsys.readouterr().err


def test_the_default_handler_writes_to_stderr_as_it_is_now(capsys):
    fit_verbose()
    capsys.readouterr()
    elsewhere = io.StringIO()
    with contextlib.redirect_stderr(elsewhere):
        fit_verbose()
    assert FIRST_LINE in elsewhere.getvalue()
    assert "[FilterRefineNeighbors]" not in capsys.readouterr().err


def test_a_root_configuration_prints_no_second_copy(unconfigured, caplog):
    caplog.set_level(logging.INFO)  # a handler on the root logger, as basicConfig adds
    fit_verbose()
    assert not [record for record in caplog.records if record.name.startswith("sklearn_ed")]


def test_a_null_handler_sends_the_lines_to_the_root_handlers(unconfigured, caplog, capsys):
    unconfigured.addHandler(logging.NullHandler())
    caplog.set_level(logging.INFO)
    fit_verbose()
    assert FIRST_LINE in caplog.messages
    assert "[FilterRefineNeighbors]" not in capsys.readouterr().err


def test_a_class_outside_the_package_logs_on_the_package_logger(unconfigured):
    class Outside:
        verbose = 2

    records = recorded(unconfigured)
    log_progress(Outside(), "step")
    assert [(record.name, record.getMessage()) for record in records] == [
        ("sklearn_ed", "[Outside] step")
    ]
