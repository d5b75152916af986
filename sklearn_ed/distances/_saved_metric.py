"""A :class:`Metric` in a directory of :func:`sklearn_ed.save`: its registry name.

What is written is the name the metric is registered under, the parameters
of a variant (``make_dtw_metric(window=0.2)``: ``"dtw"`` and ``window``) and
the plain fields of ``DECLARED``; never a function. :func:`sklearn_ed.load`
takes the metric registered under that name (rebuilding a variant with its
parameters) and refuses it when its plain fields differ from the saved ones:
the registry must hold the metric before loading, as it did before saving.

Directories of earlier releases named the metric's functions and classes by
qualified name; :func:`upgraded_node` reads such a metric as its name, the one
place that layout is known.
"""

import numbers
from dataclasses import fields
from functools import partial

from ..utils import SavedStateError

# The plain fields written beside the name, compared with the registered metric's.
DECLARED = ("name", "input_type", "integer_valued", "supports_cutoff", "is_metric", "normalized")
_PLAIN = (str, numbers.Real, type(None))


def plain(value):
    """Whether ``value`` is a plain value a variant's parameter may be (a
    string, a real number, a bool or None)."""
    return isinstance(value, _PLAIN)


def saved_state(metric, registry):
    """``metric`` as :func:`sklearn_ed.save` writes it: its registry name,
    parameters and declared fields.

    Raises
    ------
    TypeError
        When no metric of ``registry`` is ``metric`` (a callable wrapped on
        the fly, a metric never registered or replaced since): pickle it.
    """
    name = metric.variant_of or metric.name
    found = registry.get(name)
    if found is not None and metric.parameters:
        found = found.variant(**dict(metric.parameters)) if found.variant else None
    if found is None or not _same_record(found, metric):
        raise TypeError(
            f"cannot save the metric {metric.name!r}: sklearn_ed.save writes a metric "
            "as the name it is registered under, and none registered is this one. "
            "Register it with sklearn_ed.distances.register_metric (and again before "
            "loading). Use pickle otherwise."
        )
    declared = {key: getattr(metric, key) for key in DECLARED}
    return {"registered": name, "parameters": dict(metric.parameters), **declared}


def registered(state, registry):
    """The metric of ``registry`` that the saved ``state`` names.

    Raises
    ------
    SavedStateError
        When no metric is registered under the name, a variant's parameters
        are not plain values or the registered metric takes none, or the
        registered metric's declared fields differ from the saved ones.
    """
    name = state.get("registered", state.get("name"))
    if not isinstance(name, str) or name not in registry:
        raise SavedStateError(
            "registered",
            f"no metric is registered as {name!r} (registered: {sorted(registry)}); "
            "register it with sklearn_ed.distances.register_metric before loading",
        )
    metric = registry[name]
    parameters = state.get("parameters") or {}
    if not isinstance(parameters, dict) or not all(map(plain, parameters.values())):
        raise SavedStateError("parameters", f"{parameters!r} is not a mapping of plain values")
    if parameters and metric.variant is None:
        raise SavedStateError(
            "parameters", f"the metric registered as {name!r} takes no parameters"
        )
    if parameters:
        metric = metric.variant(**parameters)
    differing = [
        f"{key} saved {state[key]!r}, registered {getattr(metric, key)!r}"
        for key in DECLARED
        if key in state and state[key] != getattr(metric, key)
    ]
    if differing:
        raise SavedStateError(
            "registered",
            f"the metric registered as {name!r} is not the one saved ({'; '.join(differing)}); "
            "register the metric the directory was saved with before loading it",
        )
    return metric


def upgraded_node(node):
    """A manifest node of a metric's saved state, in today's layout.

    A metric saved by an earlier release held its functions (``pairwise``,
    ``oracle``, bounds) by qualified name: only its name and plain fields are
    kept, and a variant (named ``"dtw(window=0.2)"``) is the metric named
    before the bracket with its kernel's keywords as parameters. Any other
    node is returned as it is, for the loader to check.
    """
    items = node.get("items") if isinstance(node, dict) and node.get("kind") == "dict" else None
    if not isinstance(items, dict) or "pairwise" not in items:
        return node
    kept = {
        key: item
        for key, item in items.items()
        if key in DECLARED and isinstance(item, dict) and item.get("kind") == "value"
    }
    parameters = {"kind": "dict", "items": {}}
    name = kept.get("name", {}).get("value")
    pairwise = items["pairwise"]
    if isinstance(name, str) and "(" in name and isinstance(pairwise, dict):
        kept["registered"] = {"kind": "value", "value": name.partition("(")[0]}
        parameters = pairwise.get("keywords", parameters)
    return {"kind": "dict", "items": {**kept, "parameters": parameters}}


def _same_record(a, b):
    """Whether two metrics hold the same fields (partials alike when they wrap
    the same function with the same arguments: a copied metric is the same)."""
    return all(_same(getattr(a, field.name), getattr(b, field.name)) for field in fields(a))


def _same(a, b):
    if isinstance(a, partial) and isinstance(b, partial):
        return _same(a.func, b.func) and a.args == b.args and a.keywords == b.keywords
    return a is b or a == b
