"""Saving fitted estimators as plain files, and loading them without pickle.

``save(estimator, path)`` writes a directory:

- ``manifest.json``: the object tree (classes by qualified name and layout
  version, parameters, scalars, strings) with references to arrays, the
  format version, the files written and a SHA-256 of each file and of the
  tree;
- ``arrays.npz``: every NumPy array, including the serialized faiss index and
  string collections (one UTF-8 buffer plus offsets), read back with
  ``allow_pickle=False``;
- ``torch.pt`` (only when the estimator holds a network): the ``state_dict``
  of every torch module, read back with ``torch.load(weights_only=True)``.

What ``load`` trusts and refuses, and what an edited directory can still
do, is in the docstring of :func:`load` and the user guide's persistence
section. Pickle still works and is faster, but unpickling runs whatever the
file says: use it only for files you made.
"""

import hashlib
import json
import os
import zipfile
import zlib

import numpy as np

from ._manifest import Builder, Checker, ManifestError
from ._manifest_writer import Writer
from ._optional import require_neural
from ._saved_classes import import_deferred

# Version 3 writes each class's layout version beside its name; versions 1
# and 2 did not (their classes' layouts are read as version 1).
FORMAT_VERSION = 3
_READABLE_VERSIONS = (1, 2, 3)
# Version 1 (sklearn-ed 0.1 and 0.2.dev) always wrote both files and no tree hash.
_VERSION_1_FILES = ("arrays.npz", "torch.pt")
# Deepest nesting of lists and objects a manifest may have: a saved estimator's
# is under 30 (a Pipeline in a classifier: 24), and the check, the build and
# the tree's hash recurse once or twice per level, far from Python's limit.
MAX_JSON_DEPTH = 200


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


def _tree_sha256(tree):
    return hashlib.sha256(json.dumps(tree, sort_keys=True).encode()).hexdigest()


def save(estimator, path):
    """Write a fitted estimator to the directory ``path`` without pickle.

    Parameters
    ----------
    estimator : estimator
        Any sklearn-ed estimator (fitted or not), alone or in a
        :class:`~sklearn.pipeline.Pipeline` of sklearn-ed estimators.
    path : str or path-like
        Directory to create (or overwrite the files of).

    Returns
    -------
    path : str
        The directory written.

    Raises
    ------
    TypeError
        When the estimator holds an object that :func:`load` would not build
        (a user function, a scikit-learn transformer other than a
        ``Pipeline``): use pickle for it.

    Examples
    --------
    >>> import tempfile
    >>> from sklearn_ed import FilterRefineNeighbors, load, save
    >>> search = FilterRefineNeighbors(n_neighbors=1, random_state=0).fit(["cat", "dog"])
    >>> folder = save(search, tempfile.mkdtemp() + "/search")
    >>> load(folder).kneighbors(["cap"])[1].tolist()
    [[0]]
    """
    writer = Writer()
    tree = writer.encode(estimator)
    path = os.fspath(path)
    os.makedirs(path, exist_ok=True)
    files = ["arrays.npz"]
    np.savez(os.path.join(path, "arrays.npz"), **writer.arrays)
    if writer.modules:
        torch = require_neural("Saving an estimator that holds a network")
        torch.save(writer.modules, os.path.join(path, "torch.pt"))
        files.append("torch.pt")
    digests = {name: _sha256(os.path.join(path, name)) for name in files}
    manifest = {
        "format": "sklearn-ed",
        "version": FORMAT_VERSION,
        "files": files,
        "tree": tree,
        "sha256": {**digests, "tree": _tree_sha256(tree)},
    }
    with open(os.path.join(path, "manifest.json"), "w") as file:
        json.dump(manifest, file)
    return path


def load(path):
    """Read a directory written by :func:`save`, building only registered classes.

    What is checked and refused is in :func:`sklearn_ed.load`'s docstring.
    That function imports the package's subpackages first, so that every
    class sklearn-ed saves has registered itself (``saved_class``); this one
    builds the classes registered so far, and refuses any other.

    Parameters
    ----------
    path : str or path-like
        Directory written by :func:`save`.

    Returns
    -------
    estimator : estimator
        The estimator, answering as the saved one did.

    Raises
    ------
    ValueError
        When :func:`sklearn_ed.load` would raise it, or the directory names
        a class not registered yet.
    """
    path = os.fspath(path)
    manifest = _read_manifest(path)
    files = _checked_files(path, manifest)
    try:
        with np.load(os.path.join(path, "arrays.npz"), allow_pickle=False) as arrays:
            arrays = {key: arrays[key] for key in arrays.files}
    except (EOFError, zipfile.BadZipFile, zlib.error) as error:
        raise ValueError(f"{path!r}: arrays.npz is not a NumPy archive ({error}).") from None
    modules = {}
    # Format 1 wrote torch.pt for every estimator: read it only if a network needs it.
    if "torch.pt" in files and _holds_network(manifest["tree"]):
        torch = require_neural(f"Loading {path!r}, which holds a network (torch.pt),")
        import_deferred("torch_module")  # the networks register as they are imported
        modules = torch.load(os.path.join(path, "torch.pt"), weights_only=True)
        if not isinstance(modules, dict):
            raise ValueError(f"{path!r}: torch.pt holds no table of state_dicts.")
    Checker(arrays, modules).check(manifest["tree"])
    try:
        return Builder(arrays, modules).build(manifest["tree"])
    except ManifestError:  # a saved array that breaks its class's invariants
        raise
    except Exception as error:  # a checked tree whose values the classes reject
        raise ValueError(
            f"{path!r}: the saved estimator could not be rebuilt ({type(error).__name__}: "
            f"{error}); the manifest's values do not fit its classes."
        ) from error


def _holds_network(tree):
    """Whether any node of the (unchecked, so walked without recursion) tree is a network."""
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, dict) and node.get("kind") == "torch_module":
            return True
        if isinstance(node, (dict, list)):
            pending.extend(_children(node))
    return False


def _read_manifest(path):
    manifest_path = os.path.join(path, "manifest.json")
    if not os.path.isfile(manifest_path):
        raise ValueError(
            f"{path!r} holds no manifest.json: not a directory written by sklearn_ed.save."
        )
    manifest = read_json(manifest_path)
    if not isinstance(manifest, dict) or manifest.get("format") != "sklearn-ed":
        raise ValueError(f"{manifest_path!r} is not an sklearn-ed manifest.")
    version = manifest.get("version")
    if version not in _READABLE_VERSIONS:
        raise ValueError(
            f"{manifest_path!r} has format version {version!r}; this sklearn-ed reads "
            f"versions 1 to {FORMAT_VERSION}. Save it again with the version that wrote it."
        )
    if "tree" not in manifest or not isinstance(manifest.get("sha256"), dict):
        raise ValueError(f"{manifest_path!r} lacks its tree or its hashes.")
    return manifest


def read_json(path, max_depth=MAX_JSON_DEPTH):
    """The JSON document in the file ``path``, nested at most ``max_depth`` deep.

    Raises
    ------
    ValueError
        When the file is not UTF-8 JSON or nests deeper (the parser and any
        walk of the document recurse per level: a file of 100,000 brackets
        would raise RecursionError).
    """
    too_deep = ValueError(f"{path!r} nests lists and objects more than {max_depth} deep.")
    try:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path!r} is not valid JSON ({error}).") from None
    except RecursionError:
        raise too_deep from None
    if _deeper_than(document, max_depth):
        raise too_deep
    return document


def _deeper_than(document, limit):
    """Whether lists and objects nest deeper than ``limit`` (walked without recursion)."""
    pending = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, (dict, list)):
            if depth > limit:
                return True
            pending.extend((item, depth + 1) for item in _children(value))
    return False


def _children(value):
    return value.values() if isinstance(value, dict) else value


def _checked_files(path, manifest):
    """The manifest's files, each present and matching its hash (and the tree's)."""
    hashes = manifest["sha256"]
    if manifest["version"] == 1:
        files = list(_VERSION_1_FILES)
    else:
        files = manifest.get("files")
        if not (isinstance(files, list) and "arrays.npz" in files) or not set(files) <= set(
            _VERSION_1_FILES
        ):
            raise ManifestError("files", f"{files!r} is not a list of the format's files")
        if hashes.get("tree") != _tree_sha256(manifest["tree"]):
            raise ValueError(
                f"{path!r}: the manifest's tree does not match its hash: manifest.json "
                "was truncated or changed after saving."
            )
    for name in files:
        file_path = os.path.join(path, name)
        if not os.path.isfile(file_path):
            raise ValueError(f"{file_path!r} is missing; the saved estimator is incomplete.")
        if _sha256(file_path) != hashes.get(name):
            raise ValueError(
                f"{file_path!r} does not match the hash in the manifest: it was "
                "truncated or changed after saving."
            )
    return files
