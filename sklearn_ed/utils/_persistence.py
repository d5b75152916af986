"""Saving fitted estimators as plain files, and loading them without pickle.

``save(estimator, path)`` writes a directory:

- ``manifest.json``: the object tree (classes by qualified name, parameters,
  scalars, strings) with references to arrays, plus a SHA-256 of every file;
- ``arrays.npz``: every NumPy array, including the serialized faiss index and
  string collections (one UTF-8 buffer plus offsets), read back with
  ``allow_pickle=False``;
- ``torch.pt``: the ``state_dict`` of every torch module, read back with
  ``torch.load(weights_only=True)``.

Loading imports only classes of scikit-learn, sklearn-ed and torch named in
the manifest, rebuilds them from plain values and checks every file against
its hash, so a shared directory cannot execute code; a missing, truncated or
edited file is an error, never a half-loaded estimator. Pickle still works
and is faster, but unpickling runs whatever the file says: use it only for
files you made.
"""

import functools
import hashlib
import importlib
import inspect
import json
import os
import threading

import numpy as np

FORMAT_VERSION = 1
_ALLOWED_PREFIXES = ("sklearn_ed.", "sklearn.", "torch.nn.")
_FILES = ("arrays.npz", "torch.pt")


class _Writer:
    def __init__(self):
        self.arrays = {}
        self.modules = {}

    def _key(self, table, value):
        key = f"a{len(self.arrays) + len(self.modules)}"
        table[key] = value
        return key

    def encode(self, value):  # noqa: C901 - one branch per kind of value
        if value is None or isinstance(value, (bool, int, float, str)):
            return {"kind": "value", "value": value}
        if isinstance(value, np.generic):
            return {"kind": "scalar", "dtype": value.dtype.str, "value": value.item()}
        if isinstance(value, np.ndarray):
            return self._encode_array(value)
        if isinstance(value, (list, tuple)):
            return {"kind": type(value).__name__, "items": [self.encode(v) for v in value]}
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise TypeError("only dicts with string keys can be saved")
            return {"kind": "dict", "items": {k: self.encode(v) for k, v in value.items()}}
        if isinstance(value, type(threading.Lock())):
            return {"kind": "lock"}
        if isinstance(value, type) and issubclass(value, np.generic):
            return {"kind": "numpy_type", "dtype": np.dtype(value).str}
        if isinstance(value, type) and _allowed(value):
            return {"kind": "class", "class": _qualified(value)}
        if _is_torch_module(value):
            return self._encode_module(value)
        if _is_index(value):
            state = value.__getstate__()  # the engine index as bytes, no locks
            engine = state.pop("_index")
            return {
                "kind": "index",
                "class": _qualified(type(value)),
                "state": self.encode(state),
                "engine": self._key(self.arrays, engine),
            }
        if (
            isinstance(value, functools.partial)
            and not value.args
            and (
                (inspect.isfunction(value.func) and _allowed_function(value.func))
                or (inspect.isclass(value.func) and _allowed(value.func))
            )
        ):
            return {
                "kind": "partial",
                "function": self.encode(value.func),
                "keywords": self.encode(dict(value.keywords)),
            }
        if inspect.isfunction(value) and _allowed_function(value):
            return {"kind": "function", "name": f"{value.__module__}.{value.__qualname__}"}
        if _allowed(type(value)):
            return {
                "kind": "object",
                "class": _qualified(type(value)),
                "state": self.encode(_object_state(value)),
            }
        raise TypeError(
            f"cannot save a {type(value).__module__}.{type(value).__qualname__}: only "
            "arrays, plain values and scikit-learn, sklearn-ed and torch objects are "
            "saved. Use pickle for estimators holding other objects."
        )

    def _encode_array(self, array):
        if array.dtype != object:
            return {"kind": "array", "key": self._key(self.arrays, np.ascontiguousarray(array))}
        if array.ndim == 1 and all(isinstance(item, str) for item in array):
            lengths = np.fromiter(
                (len(s.encode("utf-8", "surrogatepass")) for s in array),
                dtype=np.int64,
                count=len(array),
            )
            data = "".join(array).encode("utf-8", "surrogatepass")
            return {
                "kind": "strings",
                "data": self._key(self.arrays, np.frombuffer(data, dtype=np.uint8)),
                "lengths": self._key(self.arrays, lengths),
            }
        return {
            "kind": "object_array",
            "shape": list(array.shape),
            "items": [self.encode(item) for item in array.ravel()],
        }

    def _encode_module(self, module):
        if not hasattr(module, "init_args"):
            raise TypeError(
                f"cannot save torch module {type(module).__name__}: it does not "
                "record its init_args."
            )
        return {
            "kind": "torch_module",
            "class": _qualified(type(module)),
            "init_args": self.encode(module.init_args),
            "training": module.training,
            "state": self._key(self.modules, module.state_dict()),
        }


class _Reader:
    def __init__(self, arrays, modules):
        self.arrays = arrays
        self.modules = modules

    def decode(self, node):  # noqa: C901 - one branch per kind of value
        kind = node["kind"]
        if kind == "value":
            return node["value"]
        if kind == "scalar":
            return np.dtype(node["dtype"]).type(node["value"])
        if kind == "array":
            return self.arrays[node["key"]]
        if kind == "strings":
            data = self.arrays[node["data"]].tobytes()
            bounds = np.concatenate([[0], np.cumsum(self.arrays[node["lengths"]])])
            strings = np.empty(len(bounds) - 1, dtype=object)
            strings[:] = [
                data[a:b].decode("utf-8", "surrogatepass") for a, b in zip(bounds[:-1], bounds[1:])
            ]
            return strings
        if kind == "object_array":
            array = np.empty(len(node["items"]), dtype=object)
            for i, item in enumerate(node["items"]):
                array[i] = self.decode(item)
            return array.reshape(node["shape"])
        if kind in ("list", "tuple"):
            items = [self.decode(item) for item in node["items"]]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            return {k: self.decode(v) for k, v in node["items"].items()}
        if kind == "lock":
            return threading.Lock()
        if kind == "class":
            return _import_class(node["class"])
        if kind == "numpy_type":
            return np.dtype(node["dtype"]).type
        if kind == "torch_module":
            module = _import_class(node["class"])(**self.decode(node["init_args"]))
            state = self.modules[node["state"]]
            if hasattr(module, "prepare_for_state_dict"):
                module.prepare_for_state_dict(state)
            module.load_state_dict(state)
            return module.train(node["training"])
        if kind == "index":
            index = object.__new__(_import_class(node["class"]))
            state = self.decode(node["state"])
            state["_index"] = self.arrays[node["engine"]]
            index.__setstate__(state)
            return index
        if kind == "function":
            return _import_function(node["name"])
        if kind == "partial":
            return functools.partial(self.decode(node["function"]), **self.decode(node["keywords"]))
        if kind == "object":
            obj = object.__new__(_import_class(node["class"]))
            state = self.decode(node["state"])
            if hasattr(obj, "__setstate__") and not _is_estimator(obj):
                obj.__setstate__(state)
            else:
                obj.__dict__.update(state)
            return obj
        raise ValueError(f"unknown node kind {kind!r} in the manifest")


def _is_estimator(obj):
    from sklearn.base import BaseEstimator

    return isinstance(obj, BaseEstimator)


def _is_index(value):
    # The index contract (sklearn_ed.index.BaseIndex), read by duck typing so
    # that this bottom layer imports nothing above it.
    return (
        _allowed(type(value))
        and callable(getattr(value, "to_bytes", None))
        and callable(getattr(value, "load_bytes", None))
    )


def _is_torch_module(value):
    try:
        import torch
    except ImportError:
        return False
    return isinstance(value, torch.nn.Module)


def _object_state(value):
    if hasattr(value, "__getstate__") and not _is_estimator(value):
        state = value.__getstate__()
        if isinstance(state, dict):
            return state
    return dict(vars(value))


def _qualified(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _allowed(cls):
    return any(f"{cls.__module__}.".startswith(prefix) for prefix in _ALLOWED_PREFIXES)


def _allowed_function(function):
    return (
        function.__module__.startswith("sklearn_ed.")
        and "<" not in function.__qualname__
        and "." not in function.__qualname__
    )


def _import_function(name):
    module_name, _, function_name = name.rpartition(".")
    if not module_name.startswith("sklearn_ed."):
        raise ValueError(
            f"refusing to load function {name!r}: only sklearn-ed functions are loaded."
        )
    function = getattr(importlib.import_module(module_name), function_name, None)
    if not inspect.isfunction(function):
        raise ValueError(f"the manifest names {name!r}, which is not a function.")
    return function


# Where 0.1.0 kept the estimators: directories saved by it still load.
_MOVED_MODULES = {
    "sklearn_ed._cgk": "sklearn_ed.embedding._cgk",
    "sklearn_ed._cnned": "sklearn_ed.embedding._cnned",
    "sklearn_ed._gru": "sklearn_ed.embedding._gru",
    "sklearn_ed._triplet": "sklearn_ed.embedding._triplet",
    "sklearn_ed._fastmap": "sklearn_ed.embedding._fastmap",
    "sklearn_ed._cluster_metric": "sklearn_ed.embedding._cluster_metric",
    "sklearn_ed._qgram_embedder": "sklearn_ed.embedding._qgram",
    "sklearn_ed._strings": "sklearn_ed.utils._strings",
}


def _import_class(name):
    module_name, _, class_name = name.rpartition(".")
    module_name = _MOVED_MODULES.get(module_name, module_name)
    if not any(f"{module_name}.".startswith(prefix) for prefix in _ALLOWED_PREFIXES):
        raise ValueError(
            f"refusing to load class {name!r}: only scikit-learn, sklearn-ed "
            "and torch.nn classes are loaded."
        )
    cls = getattr(importlib.import_module(module_name), class_name, None)
    if not inspect.isclass(cls):
        raise ValueError(f"the manifest names {name!r}, which is not a class.")
    return cls


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


def save(estimator, path):
    """Write a fitted estimator to the directory ``path`` without pickle.

    Parameters
    ----------
    estimator : estimator
        Any sklearn-ed estimator (fitted or not), alone or in a
        :class:`~sklearn.pipeline.Pipeline`.
    path : str or path-like
        Directory to create (or overwrite the files of).

    Returns
    -------
    path : str
        The directory written.

    Examples
    --------
    >>> import tempfile
    >>> from sklearn_ed import FilterRefineNeighbors, load, save
    >>> search = FilterRefineNeighbors(n_neighbors=1, random_state=0).fit(["cat", "dog"])
    >>> folder = save(search, tempfile.mkdtemp() + "/search")
    >>> load(folder).kneighbors(["cap"])[1].tolist()
    [[0]]
    """
    import torch

    writer = _Writer()
    tree = writer.encode(estimator)
    path = os.fspath(path)
    os.makedirs(path, exist_ok=True)
    np.savez(os.path.join(path, "arrays.npz"), **writer.arrays)
    torch.save(writer.modules, os.path.join(path, "torch.pt"))
    manifest = {
        "format": "sklearn-ed",
        "version": FORMAT_VERSION,
        "tree": tree,
        "sha256": {name: _sha256(os.path.join(path, name)) for name in _FILES},
    }
    with open(os.path.join(path, "manifest.json"), "w") as file:
        json.dump(manifest, file)
    return path


def load(path):
    """Read an estimator written by :func:`save`; never runs code from the files.

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
        When a file is missing, truncated or was changed after saving, or
        the manifest names a class outside scikit-learn, sklearn-ed and torch.
    """
    import torch

    path = os.fspath(path)
    manifest_path = os.path.join(path, "manifest.json")
    if not os.path.isfile(manifest_path):
        raise ValueError(
            f"{path!r} holds no manifest.json: not a directory written by sklearn_ed.save."
        )
    try:
        with open(manifest_path) as file:
            manifest = json.load(file)
    except json.JSONDecodeError as error:
        raise ValueError(f"{manifest_path!r} is not valid JSON ({error}).") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "sklearn-ed":
        raise ValueError(f"{manifest_path!r} is not an sklearn-ed manifest.")
    for name in _FILES:
        file_path = os.path.join(path, name)
        if not os.path.isfile(file_path):
            raise ValueError(f"{file_path!r} is missing; the saved estimator is incomplete.")
        if _sha256(file_path) != manifest.get("sha256", {}).get(name):
            raise ValueError(
                f"{file_path!r} does not match the hash in the manifest: it was "
                "truncated or changed after saving."
            )
    with np.load(os.path.join(path, "arrays.npz"), allow_pickle=False) as arrays:
        arrays = {key: arrays[key] for key in arrays.files}
    modules = torch.load(os.path.join(path, "torch.pt"), weights_only=True)
    return _Reader(arrays, modules).decode(manifest["tree"])
