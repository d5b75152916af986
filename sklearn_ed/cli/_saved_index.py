"""An index folder: the fitted estimator (sklearn_ed.save) and its records' names."""

import json
import os

from .. import load
from ..utils import read_json, save
from ._errors import CommandError, input_error, usage_error

INFO_FILE = "index.json"
ESTIMATOR = "estimator"
# The files sklearn_ed.save documents that it writes.
SAVED_FILES = {"manifest.json", "arrays.npz", "torch.pt"}
FORMAT = "sklearn-ed-index"
VERSION = 1


def is_saved_index(path):
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, INFO_FILE))


def check_replaceable_index(path, full):
    """Refuse (a usage error) to replace the folder ``path`` unless it is an index, whole.

    It must hold what :func:`write_index` writes and nothing else; ``full``
    also reads it as ``knn`` would, the estimator's manifest and hashes
    checked by ``sklearn_ed.load``: the proof that sklearn-ed wrote it.
    """
    problem = _unexpected_entry(path)
    if problem is None and full:
        try:
            read_index(path)
        except CommandError as error:
            problem = str(error)
    if problem is not None:
        raise usage_error(
            f"{path!r} is a folder but not an index ({problem}); --force replaces only "
            "an index folder that sklearn-ed index wrote"
        )


def _unexpected_entry(path):
    """What in ``path`` is not part of an index, or None."""
    allowed = {path: {INFO_FILE, ESTIMATOR}, os.path.join(path, ESTIMATOR): SAVED_FILES}
    for folder, names in allowed.items():
        if os.path.islink(folder) or not os.path.isdir(folder):
            return f"no folder {folder!r}"
        try:
            extra = sorted(set(os.listdir(folder)) - names)
        except OSError as error:
            return f"cannot list {folder!r}: {error.strerror}"
        if extra:
            return f"it holds {os.path.join(folder, extra[0])!r}"
    return None


def write_index(folder, estimator, names, alphabet):
    """Fill ``folder`` with the estimator and a JSON of names and alphabet."""
    save(estimator, os.path.join(folder, ESTIMATOR))
    info = {"format": FORMAT, "version": VERSION, "alphabet": alphabet, "names": list(names)}
    with open(os.path.join(folder, INFO_FILE), "w", encoding="utf-8") as file:
        json.dump(info, file)


def read_index(path):
    """``(estimator, names, alphabet)`` of an index folder; load() builds no code from it."""
    try:
        # Bounded depth: a file of nested brackets is malformed input, not a RecursionError.
        info = read_json(os.path.join(path, INFO_FILE))
    except (OSError, ValueError) as error:
        raise input_error(f"{path!r}: cannot read {INFO_FILE} ({error})") from error
    _check_info(path, info)
    try:
        estimator = load(os.path.join(path, ESTIMATOR))
    except ValueError as error:
        raise input_error(str(error)) from error
    if len(info["names"]) != estimator.n_samples_fit_:
        raise input_error(
            f"{path!r}: {INFO_FILE} names {len(info['names'])} records, the index holds "
            f"{estimator.n_samples_fit_}"
        )
    return estimator, info["names"], info["alphabet"]


def _check_info(path, info):
    valid = (
        isinstance(info, dict)
        and info.keys() == {"format", "version", "alphabet", "names"}
        and info["format"] == FORMAT
        and isinstance(info["names"], list)
        and all(isinstance(name, str) for name in info["names"])
        and (info["alphabet"] is None or isinstance(info["alphabet"], str))
    )
    if not valid:
        raise input_error(f"{path!r}: {INFO_FILE} is not an index written by sklearn-ed index")
    if info["version"] != VERSION:
        raise input_error(
            f"{path!r}: index format version {info['version']!r}; this sklearn-ed reads "
            f"version {VERSION}"
        )
