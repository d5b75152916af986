"""Output that appears whole or not at all: written aside, renamed when done."""

import contextlib
import os
import shutil
import tempfile

from ._errors import EXIT_OUTPUT, CommandError, usage_error


def check_output_path(path, force):
    """Refuse, before any work, an output that exists (without --force) or has no folder."""
    if path is None or path == "-":
        return
    if os.path.exists(path) and not force:
        raise usage_error(f"output {path!r} exists; pass --force to replace it")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CommandError(f"cannot write {path!r}: folder {folder!r} does not exist", EXIT_OUTPUT)


@contextlib.contextmanager
def output_text(path, stdout):
    """A text file to write to; it replaces ``path`` only if the block succeeds."""
    if path is None or path == "-":
        yield stdout
        stdout.flush()
        return
    with _aside(path, make=_temporary_file) as temporary:
        with open(temporary, "w", encoding="utf-8", newline="") as file:
            yield file


@contextlib.contextmanager
def output_folder(path):
    """A folder to fill; it replaces ``path`` only if the block succeeds."""
    with _aside(path, make=tempfile.mkdtemp) as temporary:
        yield temporary


def _temporary_file(dir, prefix):
    handle, name = tempfile.mkstemp(dir=dir, prefix=prefix)
    os.close(handle)
    return name


@contextlib.contextmanager
def _aside(path, make):
    folder, name = os.path.split(os.path.abspath(path))
    try:
        temporary = make(dir=folder, prefix=f".{name}.partial-")
    except OSError as error:
        raise CommandError(f"cannot write {path!r}: {error.strerror}", EXIT_OUTPUT) from error
    try:
        yield temporary
        _replace(temporary, path)
    except BaseException:
        _remove(temporary)
        raise


def _replace(temporary, path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    try:
        os.replace(temporary, path)
    except OSError as error:
        raise CommandError(f"cannot write {path!r}: {error.strerror}", EXIT_OUTPUT) from error


def _remove(temporary):
    if os.path.isdir(temporary):
        shutil.rmtree(temporary, ignore_errors=True)
    elif os.path.exists(temporary):
        os.unlink(temporary)
