"""Writing the manifest's object tree: plain values, arrays kept apart, and the
registered classes of :mod:`._saved_classes` by qualified name and layout version."""

import threading

import numpy as np

from ._external_classes import register_scikit_learn_classes
from ._saved_classes import qualified_name, registration_of

NUMERIC_KINDS = "biuf"
_LOCK_TYPE = type(threading.Lock())


class Writer:
    """Encodes an object tree; arrays and torch state_dicts are kept apart."""

    def __init__(self):
        self.arrays = {}
        self.modules = {}
        register_scikit_learn_classes()

    def _key(self, table, value):
        key = f"a{len(self.arrays) + len(self.modules)}"
        table[key] = value
        return key

    def encode(self, value):  # noqa: C901 - one branch per kind of value
        if value is None or isinstance(value, (bool, int, float, str)):
            return {"kind": "value", "value": value}
        if isinstance(value, np.generic) and value.dtype.kind in NUMERIC_KINDS + "b":
            return {"kind": "scalar", "dtype": value.dtype.str, "value": value.item()}
        if isinstance(value, np.ndarray):
            return self._encode_array(value)
        if isinstance(value, (list, tuple)):
            return {"kind": type(value).__name__, "items": [self.encode(v) for v in value]}
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise TypeError("only dicts with string keys can be saved")
            return {"kind": "dict", "items": {k: self.encode(v) for k, v in value.items()}}
        if isinstance(value, _LOCK_TYPE):
            return {"kind": "lock"}
        if isinstance(value, type) and issubclass(value, np.generic):
            return {"kind": "numpy_type", "dtype": np.dtype(value).str}
        saved = registration_of(type(value))
        if saved is None:
            raise TypeError(
                f"cannot save a {qualified_name(type(value))}: sklearn_ed.save writes only "
                "arrays, plain values and the sklearn-ed classes that sklearn_ed.load builds. "
                "Use pickle for estimators holding other objects."
            )
        node = {"kind": saved.kind, "class": saved.name, "version": saved.version}
        if saved.kind == "torch_module":
            return {**node, **self._encode_module(value)}
        if saved.kind == "index":  # the settings, and the engine index as bytes
            engine = self._key(self.arrays, value.to_bytes())
            return {**node, "state": self.encode(value.settings_state()), "engine": engine}
        return {**node, "state": self.encode(object_state(value))}

    def _encode_array(self, array):
        if array.dtype.kind in NUMERIC_KINDS + "bc":
            return {"kind": "array", "key": self._key(self.arrays, np.ascontiguousarray(array))}
        if array.ndim == 1 and all(isinstance(item, str) for item in array):
            encoded = [item.encode("utf-8", "surrogatepass") for item in array]
            lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
            return {
                "kind": "strings",
                "data": self._key(self.arrays, np.frombuffer(b"".join(encoded), dtype=np.uint8)),
                "lengths": self._key(self.arrays, lengths),
            }
        if array.dtype != object:
            raise TypeError(f"cannot save an array of dtype {array.dtype}")
        return {
            "kind": "object_array",
            "shape": list(array.shape),
            "items": [self.encode(item) for item in array.ravel()],
        }

    def _encode_module(self, module):
        return {
            "init_args": self.encode(module.init_args),
            "training": module.training,
            "state": self._key(self.modules, module.state_dict()),
        }


def is_estimator(obj):
    from sklearn.base import BaseEstimator

    return isinstance(obj, BaseEstimator)


def object_state(value):
    """What is saved of an object: its ``__getstate__``, or for an estimator its
    parameters and the attributes its class declares (``__sklearn_ed_saved__``)."""
    if hasattr(value, "__getstate__") and not is_estimator(value):
        state = value.__getstate__()
        if isinstance(state, dict):
            return state
    state = dict(vars(value))
    declared = getattr(type(value), "__sklearn_ed_saved__", None)
    if declared is not None:
        undeclared = set(state) - set(declared) - set(value.get_params(deep=False))
        if undeclared:
            raise TypeError(
                f"cannot save a {type(value).__name__} holding {sorted(undeclared)}: "
                "attributes its class does not declare in __sklearn_ed_saved__."
            )
    return state
