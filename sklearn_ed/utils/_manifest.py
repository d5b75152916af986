"""The manifest's object tree, read back: checked whole, then built.

Loading is two passes. :class:`Checker` reads the whole tree before
anything is constructed: every node's kind, its keys and their types, every
class name against the registry of :mod:`._saved_classes` (the classes of
sklearn-ed registered where they are defined) with its layout version, every
array reference, dtype and shape. Only a tree that passes is handed to
:class:`Builder`, which constructs registered classes, imports nothing, and
calls no method that a file can replace (an attribute that would shadow one
of the class's methods is refused). As it rebuilds each object, the class
checks the saved arrays its compiled code will index with
(:mod:`._invariants`); a refusal names the manifest node.

An older layout of a class's state is read in three steps: the class may
rewrite the unchecked node (``_upgrade_saved_node``: a metric saved with its
functions becomes its registry name); the attributes added to the layout
since get the defaults its registration declares
(:meth:`~._saved_classes.SavedClass.upgraded`, the one place for them); and
the class may gather an older release's parts (``_upgrade_saved_state``).
"""

import inspect
import threading

import numpy as np

from ._external_classes import register_scikit_learn_classes
from ._invariants import SavedStateError
from ._manifest_writer import NUMERIC_KINDS, is_estimator
from ._saved_classes import registered

# The keys of each kind of node, in the format's own words.
NODE_KEYS = {
    "value": {"value"},
    "scalar": {"dtype", "value"},
    "array": {"key"},
    "strings": {"data", "lengths"},
    "object_array": {"shape", "items"},
    "list": {"items"},
    "tuple": {"items"},
    "dict": {"items"},
    "lock": set(),
    "numpy_type": {"dtype"},
    "torch_module": {"class", "init_args", "training", "state"},
    "index": {"class", "state", "engine"},
    "object": {"class", "state"},
}
# The nodes of a registered class, which also say its layout version (from
# format 3 on; absent, the node is of a layout before versions were written).
_VERSIONED = {"torch_module", "index", "object"}
# Nodes that hold only data: what keyword arguments and index states may be.
_PLAIN = {"value", "scalar", "array", "strings", "object_array", "list", "tuple", "dict", "lock"}


# ---------------------------------------------------------------------- check
class ManifestError(ValueError):
    """A manifest node that the loader refuses; the message names the node."""

    def __init__(self, path, problem):
        super().__init__(f"sklearn_ed.load refused the manifest node {path}: {problem}")


def _lookup(node, kind, path, what):
    """The registration of the class a node names, for a layout version it reads."""
    saved = registered(node["class"], kind)
    if saved is None:
        raise ManifestError(
            path,
            f"{what} {node['class']!r} is not one that sklearn_ed.load builds; nothing was "
            "constructed (a directory that names other code was not written by save).",
        )
    version = _version(node)
    if type(version) is not int or not 1 <= version <= saved.version:
        raise ManifestError(
            path,
            f"layout version {version!r} of {saved.name}; this sklearn-ed reads versions "
            f"1 to {saved.version} (save it again with the release that wrote it)",
        )
    return saved


def _version(node):
    return node.get("version", 1)


def _numeric_dtype(dtype, path):
    try:
        parsed = np.dtype(dtype) if isinstance(dtype, str) else None
    except TypeError:
        parsed = None
    if parsed is None or parsed.kind not in NUMERIC_KINDS + "bc":
        raise ManifestError(path, f"{dtype!r} is not a numeric dtype")
    return parsed


class Checker:
    """Reads a tree against the format before anything is built (see module doc)."""

    def __init__(self, arrays, modules):
        self.arrays = arrays
        self.modules = modules
        register_scikit_learn_classes()

    def check(self, node, path="tree", plain_only=False):
        if not isinstance(node, dict) or node.get("kind") not in NODE_KEYS:
            kind = node.get("kind") if isinstance(node, dict) else type(node).__name__
            raise ManifestError(path, f"unknown node kind {kind!r}")
        kind = node["kind"]
        if set(node) - ({"version"} if kind in _VERSIONED else set()) != NODE_KEYS[kind] | {"kind"}:
            raise ManifestError(path, f"a {kind!r} node has keys {sorted(node)}")
        if plain_only and kind not in _PLAIN:
            raise ManifestError(path, f"a {kind!r} node where only plain data is allowed")
        getattr(self, f"_check_{kind}")(node, path, plain_only)

    def _array(self, key, path):
        if not isinstance(key, str) or key not in self.arrays:
            raise ManifestError(path, f"refers to array {key!r}, which arrays.npz lacks")
        return self.arrays[key]

    def _check_value(self, node, path, plain_only):
        if not (node["value"] is None or isinstance(node["value"], (bool, int, float, str))):
            raise ManifestError(path, "a value node holds a container")

    def _check_scalar(self, node, path, plain_only):
        _numeric_dtype(node["dtype"], path)
        if not isinstance(node["value"], (bool, int, float)):
            raise ManifestError(path, "a scalar node holds no number")

    def _check_array(self, node, path, plain_only):
        self._array(node["key"], path)

    def _check_strings(self, node, path, plain_only):
        data, lengths = self._array(node["data"], path), self._array(node["lengths"], path)
        if data.dtype != np.uint8 or data.ndim != 1 or lengths.ndim != 1:
            raise ManifestError(path, "strings need 1-D uint8 data and 1-D lengths")
        if lengths.dtype.kind not in "iu" or (lengths < 0).any() or lengths.sum() != data.size:
            raise ManifestError(path, "string lengths do not add up to the data")

    def _check_object_array(self, node, path, plain_only):
        shape, items = node["shape"], node["items"]
        if not (isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape)):
            raise ManifestError(path, f"shape {shape!r} is not a list of sizes")
        if not isinstance(items, list) or int(np.prod(shape)) != len(items):
            raise ManifestError(path, f"shape {shape} does not hold the items given")
        for i, item in enumerate(items):
            self.check(item, f"{path}[{i}]", plain_only)

    def _check_list(self, node, path, plain_only):
        if not isinstance(node["items"], list):
            raise ManifestError(path, "items must be a list")
        for i, item in enumerate(node["items"]):
            self.check(item, f"{path}[{i}]", plain_only)

    _check_tuple = _check_list

    def _check_dict(self, node, path, plain_only):
        if not isinstance(node["items"], dict):
            raise ManifestError(path, "items must be a mapping")
        for key, item in node["items"].items():
            self.check(item, f"{path}.{key}", plain_only)

    def _check_lock(self, node, path, plain_only):
        pass

    def _check_numpy_type(self, node, path, plain_only):
        _numeric_dtype(node["dtype"], path)

    def _check_plain_dict(self, node, path):
        self.check(node, path, plain_only=True)
        if node["kind"] != "dict":
            raise ManifestError(path, f"a {node['kind']!r} node where a dict belongs")

    def _check_torch_module(self, node, path, plain_only):
        _lookup(node, "torch_module", path, "network")
        self._check_plain_dict(node["init_args"], f"{path}.init_args")
        if not isinstance(node["training"], bool):
            raise ManifestError(path, "training must be true or false")
        state = self.modules.get(node["state"]) if isinstance(node["state"], str) else None
        if not isinstance(state, dict):
            raise ManifestError(path, f"refers to state {node['state']!r}, which torch.pt lacks")

    def _check_index(self, node, path, plain_only):
        _lookup(node, "index", path, "index")
        self._check_plain_dict(node["state"], f"{path}.state")
        if self._array(node["engine"], path).dtype != np.uint8:
            raise ManifestError(path, "an index engine must be bytes (uint8)")

    def _check_object(self, node, path, plain_only):
        saved = _lookup(node, "object", path, "class")
        cls = saved.cls
        if hasattr(cls, "_upgrade_saved_node"):  # an older release's layout, read as today's
            node["state"] = cls._upgrade_saved_node(node["state"])
        state = node["state"]
        self.check(state, f"{path}.state")
        if state["kind"] != "dict":
            raise ManifestError(path, "an object's state must be a dict")
        for key, item in state["items"].items():
            if not key.isidentifier() or _replaces_behaviour(cls, key):
                raise ManifestError(f"{path}.state.{key}", f"{key!r} would replace code")
        if _is_estimator_class(cls):
            added = saved.upgraded({}, _version(node))  # what an older layout lacks
            _check_declared_state(cls, set(state["items"]) | set(added), path)


def _check_declared_state(cls, keys, path):
    """An estimator's saved attributes: all its parameters, and beyond them only
    what its class declares (or an older release's layout it upgrades)."""
    params = set(cls._get_param_names())
    missing = params - keys
    if missing:
        raise ManifestError(path, f"parameters {sorted(missing)} are missing")
    declared = getattr(cls, "__sklearn_ed_saved__", None)
    if declared is None:  # scikit-learn's own estimators
        return
    unknown = keys - params - set(declared) - set(getattr(cls, "__sklearn_ed_legacy__", ()))
    if unknown:
        raise ManifestError(path, f"{sorted(unknown)} are not attributes that {cls.__name__} saves")


def _replaces_behaviour(cls, name):
    """Whether an instance attribute ``name`` would stand in for the class's code.

    Methods and other non-data descriptors are shadowed by an instance
    attribute; a property (a data descriptor) is not, so an attribute named
    like one is only dead data.
    """
    if name.startswith("__"):
        return True
    try:
        attribute = inspect.getattr_static(cls, name)
    except AttributeError:
        return False
    if hasattr(attribute, "__set__"):
        return False
    return callable(attribute) or hasattr(attribute, "__get__")


def _is_estimator_class(cls):
    from sklearn.base import BaseEstimator

    return issubclass(cls, BaseEstimator)


# ---------------------------------------------------------------------- build
class Builder:
    """Builds a tree that :class:`Checker` accepted."""

    def __init__(self, arrays, modules):
        self.arrays = arrays
        self.modules = modules

    def build(self, node, path="tree"):  # noqa: C901 - one branch per kind of value
        kind = node["kind"]
        if kind == "value":
            return node["value"]
        if kind == "scalar":
            return np.dtype(node["dtype"]).type(node["value"])
        if kind == "array":
            return self.arrays[node["key"]]
        if kind == "strings":
            return self._strings(node)
        if kind == "object_array":
            array = np.empty(len(node["items"]), dtype=object)
            for i, item in enumerate(node["items"]):
                array[i] = self.build(item, f"{path}[{i}]")
            return array.reshape(node["shape"])
        if kind in ("list", "tuple"):
            items = [self.build(item, f"{path}[{i}]") for i, item in enumerate(node["items"])]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            return {k: self.build(v, f"{path}.{k}") for k, v in node["items"].items()}
        if kind == "lock":
            return threading.Lock()
        if kind == "numpy_type":
            return np.dtype(node["dtype"]).type
        if kind == "torch_module":
            return self._module(node, path)
        saved = _lookup(node, kind, path, kind)
        state = saved.upgraded(self.build(node["state"], f"{path}.state"), _version(node))
        cls = saved.cls
        obj = object.__new__(cls)
        if kind == "index":  # its settings, then its engine from the bytes
            _restored(obj, state, path, obj.restore_settings)
            return self._engine(obj, node["engine"], path)
        if hasattr(cls, "_upgrade_saved_state"):  # gathers an older release's parts
            state = cls._upgrade_saved_state(state)
        if hasattr(obj, "__setstate__") and not is_estimator(obj):
            return _restored(obj, state, path, obj.__setstate__)
        return _restored(obj, state, path, obj.__dict__.update)

    def _strings(self, node):
        data = self.arrays[node["data"]].tobytes()
        bounds = np.concatenate([[0], np.cumsum(self.arrays[node["lengths"]])])
        strings = np.empty(len(bounds) - 1, dtype=object)
        strings[:] = [
            data[a:b].decode("utf-8", "surrogatepass") for a, b in zip(bounds[:-1], bounds[1:])
        ]
        return strings

    def _engine(self, index, key, path):
        """``index`` given its engine from the saved bytes (``load_bytes``), which
        checks them first: a refusal names the node's engine."""
        try:
            return index.load_bytes(self.arrays[key], index.n_features)
        except SavedStateError as error:
            # The part may name an array within the engine: "_index (indices)".
            within = error.part.partition(" ")[2]
            raise ManifestError(f"{path}.engine {within}".strip(), error.problem) from None

    def _module(self, node, path):
        saved = _lookup(node, "torch_module", path, "network")
        init_args = self.build(node["init_args"], f"{path}.init_args")
        cls = saved.cls
        module = cls(**saved.upgraded(init_args, _version(node)))
        state = self.modules[node["state"]]
        if hasattr(cls, "prepare_for_state_dict"):
            module.prepare_for_state_dict(state)
        module.load_state_dict(state)
        return module.train(node["training"])


def _restored(obj, state, path, set_state):
    """``obj`` given ``state`` by ``set_state``, after its class's checks of the
    saved arrays (see :mod:`._invariants`): a refusal names the manifest node."""
    try:
        check = getattr(type(obj), "_check_saved_state", None)
        if check is not None:
            check(state)
        set_state(state)
    except SavedStateError as error:
        # A part may name an array within an attribute: "attribute (array)".
        name, _, within = error.part.partition(" ")
        raise ManifestError(f"{path}.state.{name} {within}".strip(), error.problem) from None
    return obj
