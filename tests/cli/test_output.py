"""Every command that writes, against every kind of output target: nothing but
the output path ever changes, and each refusal has its documented exit code."""

import os
import stat
import threading

import pytest

from sklearn_ed.cli import main
from sklearn_ed.cli._saved_index import read_index

WORDS = "kitten sitting mitten bitten fitting smitten kitchen written bitter sitter mittens kittens"
INPUT = os.path.join("data", "words.txt")
COMMANDS = {
    "knn": ["knn", INPUT, "-k", "1"],
    "join": ["join", INPUT, "--threshold", "1"],
    "dedup": ["dedup", INPUT, "--threshold", "1"],
    "index": ["index", INPUT, "-k", "1"],
}
HEADERS = {
    "knn": "query\ttarget\tdistance\trank\n",
    "join": "left\tright\tdistance\n",
    "dedup": "name\tgroup\trepresentative\n",
}


def existing_file(root):
    (root / "old.tsv").write_text("keep me\n")
    return "old.tsv"


def folder_with_content(root):
    (root / "results").mkdir()
    (root / "results" / "notes.txt").write_text("mine\n")
    return "results"


def existing_index(root):
    assert main(["index", INPUT, "-k", "1", "-q", "-o", "old.sked"]) == 0
    return "old.sked"


def link_to_file(root):
    (root / "target.txt").write_text("linked\n")
    (root / "link").symlink_to("target.txt")
    return "link"


def link_to_folder(root):
    folder_with_content(root)
    (root / "link").symlink_to("results")
    return "link"


def fifo(root):
    os.mkfifo(root / "pipe")
    return "pipe"


def null_device(root):
    """/dev/null; as root, who could replace /dev/null itself, a private node like it."""
    if os.geteuid() != 0:
        return os.devnull
    try:
        os.mknod(root / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as error:
        pytest.skip(f"as root only a private null device is safe to write to ({error})")
    return "null"


def read_only_folder(root):
    (root / "locked").mkdir(mode=0o555)
    return os.path.join("locked", "out")


# name: (make the target in the folder, the output path), then the exit codes
# of a table command without and with --force, and of index without and with.
TARGETS = {
    "new": (lambda root: "out", (0, 0), (0, 0)),
    "stdout": (lambda root: "-", (0, 0), (2, 2)),
    "new-folder-name": (lambda root: "out" + os.sep, (2, 2), (0, 0)),
    "existing-file": (existing_file, (2, 0), (2, 2)),
    "folder-with-content": (folder_with_content, (2, 2), (2, 2)),
    "existing-index": (existing_index, (2, 2), (2, 0)),
    "current-folder": (lambda root: ".", (2, 2), (2, 2)),
    "input-folder": (lambda root: "data", (2, 2), (2, 2)),
    "link-to-file": (link_to_file, (2, 0), (2, 2)),
    "link-to-folder": (link_to_folder, (2, 2), (2, 2)),
    "fifo": (fifo, (0, 0), (2, 2)),
    "null-device": (null_device, (0, 0), (2, 2)),
    "missing-folder": (lambda root: os.path.join("missing", "out"), (4, 4), (4, 4)),
    "inside-a-file": (lambda root: os.path.join(INPUT, "out"), (4, 4), (4, 4)),
    "read-only-folder": (read_only_folder, (4, 4), (4, 4)),
}


def snapshot(root):
    """Each path under ``root``: a folder's existence, anything else's kind, size, mtime, link."""
    state = {}
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else None
            state[path] = (
                None
                if stat.S_ISDIR(info.st_mode)
                else (stat.S_IFMT(info.st_mode), info.st_size, info.st_mtime_ns, link)
            )
    return state


def outside(state, path):
    return {
        key: value
        for key, value in state.items()
        if key != path and not key.startswith(path + os.sep)
    }


class FifoReader:
    """Reads a FIFO on a thread, as a pipeline's next program would."""

    def __init__(self, path):
        self.path, self.text = path, None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        with open(self.path, encoding="utf-8") as file:
            self.text = file.read()

    def finish(self):
        if self.text is None and self.thread.is_alive():
            with open(self.path, "w"):  # the command never opened it: end the reader's wait
                pass
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()
        return self.text


@pytest.mark.parametrize("force", [False, True], ids=["no-force", "force"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("command", COMMANDS)
def test_only_the_output_changes_and_exit_codes_are_documented(
    tmp_path, monkeypatch, capsys, command, target, force
):
    make, table_codes, index_codes = TARGETS[target]
    if target == "read-only-folder" and os.geteuid() == 0:
        pytest.skip("root writes into a read-only folder: permissions are not enforced")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / INPUT).write_text("\n".join(WORDS.split()) + "\n")
    output = make(tmp_path)
    expected = (index_codes if command == "index" else table_codes)[force]
    reader = FifoReader(output) if target == "fifo" else None
    before = snapshot(tmp_path)
    capsys.readouterr()

    code = main([*COMMANDS[command], "-q", "-o", output] + ["--force"] * force)

    piped = reader.finish() if reader else None
    printed, error = capsys.readouterr()
    assert code == expected, error
    after = snapshot(tmp_path)
    if code != 0:
        assert after == before
        assert error.startswith("sklearn-ed: error: ") and error.count("\n") == 1
        return
    assert error == "" and (printed == "") == (target != "stdout")
    written = os.path.abspath(output)
    assert outside(after, written) == outside(before, written)
    if command == "index":
        assert len(read_index(output)[1]) == len(WORDS.split())
    elif target == "fifo":
        assert stat.S_ISFIFO(os.lstat(output).st_mode) and piped.startswith(HEADERS[command])
    elif target == "null-device":
        assert stat.S_ISCHR(os.lstat(output).st_mode)
    elif target == "stdout":
        assert printed.startswith(HEADERS[command])
    else:
        assert not os.path.islink(output)
        assert open(output, encoding="utf-8").read().startswith(HEADERS[command])


@pytest.fixture
def words(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / INPUT).write_text("\n".join(WORDS.split()) + "\n")
    return INPUT


def test_a_folder_with_an_index_json_is_not_replaced(words, tmp_path, capsys):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "index.json").write_text("{}")
    (tmp_path / "app" / "main.py").write_text("print('mine')\n")
    before = snapshot(tmp_path)
    assert main(["index", words, "-q", "-o", "app", "--force"]) == 2
    assert "is a folder but not an index" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_an_index_with_a_file_added_is_not_replaced(words, tmp_path, capsys):
    assert main(["index", words, "-q", "-o", "idx"]) == 0
    (tmp_path / "idx" / "estimator" / "notes.txt").write_text("mine\n")
    assert main(["index", words, "-q", "-o", "idx", "--force"]) == 2
    assert "notes.txt" in capsys.readouterr().err
    assert (tmp_path / "idx" / "estimator" / "notes.txt").read_text() == "mine\n"


def test_an_index_holding_the_current_folder_or_an_input_is_not_replaced(
    words, tmp_path, monkeypatch, capsys
):
    assert main(["index", words, "-q", "-o", "idx"]) == 0
    monkeypatch.chdir(tmp_path / "idx" / "estimator")
    before = snapshot(tmp_path)
    assert main(["index", str(tmp_path / INPUT), "-q", "-o", str(tmp_path / "idx"), "-f"]) == 2
    assert "holds the current folder" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    moved = os.path.join("idx", "words.txt")
    os.rename(INPUT, moved)
    assert main(["index", moved, "-q", "-o", "idx", "-f"]) == 2
    assert "holds the input" in capsys.readouterr().err
    os.rename(moved, INPUT)
    assert snapshot(tmp_path) == before


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def test_outputs_get_the_permissions_of_the_umask(words, tmp_path, umask_027):
    assert main(["knn", words, "-k", "1", "-q", "-o", "new.tsv"]) == 0
    assert stat.S_IMODE(os.stat("new.tsv").st_mode) == 0o640
    assert main(["index", words, "-k", "1", "-q", "-o", "new.sked"]) == 0
    assert stat.S_IMODE(os.stat("new.sked").st_mode) == 0o750
    assert stat.S_IMODE(os.stat(os.path.join("new.sked", "index.json")).st_mode) == 0o640
    os.chmod("new.tsv", 0o604)  # a replaced file keeps its mode, as open() would
    assert main(["knn", words, "-k", "1", "-q", "-o", "new.tsv", "--force"]) == 0
    assert stat.S_IMODE(os.stat("new.tsv").st_mode) == 0o604


def test_a_descriptor_name_is_written_through_its_descriptor(words, tmp_path):
    # As a shell's "> out.txt" then "-o /dev/stdout" does; /dev/fd/N is safe to
    # test as root: no run can replace an entry of /proc/self/fd.
    descriptor = os.open(tmp_path / "out.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        os.write(descriptor, b"before\n")
        assert main(["join", words, "--threshold", "1", "-q", "-o", f"/dev/fd/{descriptor}"]) == 0
        os.write(descriptor, b"after\n")
    finally:
        os.close(descriptor)
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert lines[:2] == ["before", "left\tright\tdistance"] and lines[-1] == "after"
    assert len(lines) > 3


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
@pytest.mark.parametrize("command", COMMANDS)
def test_an_unwritable_folder_fails_before_any_input_is_read(words, monkeypatch, capsys, command):
    # /proc takes no new file, even from root: the folder exists, writing fails.
    import sklearn_ed.cli._inputs as inputs

    def no_reading(*args, **kwargs):
        raise AssertionError("an input was read before the output was checked")

    monkeypatch.setattr(inputs, "iter_records", no_reading)
    code = main([*COMMANDS[command], "-q", "-o", "/proc/sklearn-ed-output"])
    assert code == 4
    assert "cannot write '/proc/sklearn-ed-output'" in capsys.readouterr().err
