"""Where a command's output goes, and what it may replace.

A table goes to stdout, into a FIFO or character device as it is (``-o
/dev/null``, a named pipe: nothing to replace), or to a new file beside its
destination that is renamed over it once complete. An index is a new folder
made the same way. The file or folder to fill is made before any input is
read, so an output that cannot be written fails before the work, and a run
that fails leaves nothing. ``--force`` replaces a file, or a folder that is
provably an index that ``sklearn-ed index`` wrote; never any other folder,
the current folder or one that holds an input.
"""

import contextlib
import os
import re
import shutil
import stat
import sys

from ._errors import EXIT_OUTPUT, CommandError, usage_error
from ._saved_index import check_replaceable_index

# The names of this process's open descriptors. Whatever a descriptor is (a
# regular file included) it is written through itself, never replaced: a new
# open of the name would write at its own offset, over what the shell writes.
STANDARD_STREAMS = {"/dev/stdout": 1, "/dev/stderr": 2}
DESCRIPTOR_NAME = re.compile(r"/(?:dev|proc/self)/fd/(\d+)")


@contextlib.contextmanager
def table_output(path, force, inputs):
    """The text file to write a table to, made before the block reads any input.

    ``path`` None or ``-`` is ``sys.stdout``; a FIFO, a character device or a
    descriptor's name (``/dev/stdout``) is written into directly; any other
    output is a new file that replaces ``path`` only if the block succeeds.
    """
    if path is None or path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    descriptor = _descriptor(path)
    if descriptor is not None or _is_fifo_or_device(path):
        try:
            where = path if descriptor is None else os.dup(descriptor)
            file = open(where, "w", encoding="utf-8", newline="")
        except OSError as error:
            raise _cannot_write(path, error) from error
        with file:
            yield file
        return
    _check_table_target(path, force, inputs)
    with _aside(path, _new_file) as temporary:
        with open(temporary, "w", encoding="utf-8", newline="") as file:
            yield file


@contextlib.contextmanager
def index_output(path, force, inputs):
    """A new folder to fill, made first; it replaces ``path`` only if the block succeeds."""
    if path == "-":
        raise usage_error("an index is a folder: name it with -o FOLDER, not '-' (stdout)")
    path = path.rstrip(os.sep) or os.sep  # "link/" would be the folder a link leads to
    _check_index_target(path, force, inputs)
    with _aside(path, _new_folder) as temporary:
        yield temporary


def _descriptor(path):
    """The open descriptor ``path`` names (``/dev/stdout``, ``/dev/fd/3``), or None."""
    path = os.path.abspath(path)
    match = DESCRIPTOR_NAME.fullmatch(path)
    return int(match[1]) if match else STANDARD_STREAMS.get(path)


def _is_fifo_or_device(path):
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _check_table_target(path, force, inputs):
    if path.endswith(os.sep) or os.path.isdir(path):
        raise usage_error(f"output {path!r} is a folder; a table is written to a file: name one")
    _check_folder(path)
    if not os.path.lexists(path):
        return
    if os.path.exists(path) and not os.path.isfile(path):
        raise usage_error(f"output {path!r} is neither a file, a FIFO nor a character device")
    for input_path in inputs:
        if os.path.exists(path) and os.path.samefile(path, input_path):
            raise usage_error(f"output {path!r} is the input {input_path!r}; name another file")
    if not force:
        raise usage_error(f"output {path!r} exists; pass --force to replace it")


def _check_index_target(path, force, inputs):
    _check_folder(path)
    if not os.path.lexists(path):
        return
    if os.path.islink(path) or not os.path.isdir(path):
        raise usage_error(
            f"output {path!r} exists and is not a folder; an index is a folder: name another"
        )
    target = os.path.realpath(path)
    if _holds(target, os.getcwd()):
        raise usage_error(f"output {path!r} holds the current folder; --force never replaces it")
    for input_path in inputs:
        if _holds(target, os.path.realpath(input_path)):
            raise usage_error(f"output {path!r} holds the input {input_path!r}; name another")
    check_replaceable_index(path, full=True)
    if not force:
        raise usage_error(f"output {path!r} exists; pass --force to replace the index")


def _holds(folder, path):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _check_folder(path):
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        problem = "is not a folder" if os.path.lexists(folder) else "does not exist"
        raise CommandError(f"cannot write {path!r}: {folder!r} {problem}", EXIT_OUTPUT)


def _cannot_write(path, error):
    return CommandError(f"cannot write {path!r}: {error.strerror or error}", EXIT_OUTPUT)


def _new_file(name):
    # Mode 0o666 as open() gives: the umask decides, where mkstemp would give 0600.
    os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))


def _new_folder(name):
    os.mkdir(name, 0o777)


def _unused_name(path, role):
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(folder, f".{name}.{role}-{os.urandom(6).hex()}")


@contextlib.contextmanager
def _aside(path, make):
    temporary = _unused_name(path, "partial")
    try:
        make(temporary)
    except OSError as error:
        raise _cannot_write(path, error) from error
    try:
        yield temporary
        _replace(temporary, path)
    except BaseException:
        _remove(temporary)
        raise


def _replace(temporary, path):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            _replace_index(temporary, path)
        else:
            if os.path.isfile(path) and not os.path.islink(path):
                os.chmod(temporary, stat.S_IMODE(os.stat(path).st_mode))
            os.replace(temporary, path)
    except OSError as error:
        raise _cannot_write(path, error) from error


def _replace_index(temporary, path):
    """Swap the new index in; the old one, moved aside first, is deleted last."""
    check_replaceable_index(path, full=False)  # nothing was added to it during the run
    old = _unused_name(path, "old")
    os.rename(path, old)
    try:
        os.rename(temporary, path)
    except OSError:
        os.rename(old, path)
        raise
    shutil.rmtree(old)


def _remove(temporary):
    if os.path.isdir(temporary):
        shutil.rmtree(temporary, ignore_errors=True)
    elif os.path.exists(temporary):
        os.unlink(temporary)
