"""The classes :func:`sklearn_ed.load` builds, each registered where it is defined.

A class of the package that :func:`sklearn_ed.save` writes says so with the
decorator :func:`saved_class` on its definition: its kind (what the loader
does with it), the version of its saved layout, the attributes added since
version 1 with the value an older save implies, and the qualified names it
was saved under before it moved. The loader's allow-list is this registry
and nothing else: a name a file gives is looked up here, a name that is not
here is refused, and no module is ever imported because a file names it.

The kinds:

- ``"object"``: created without calling ``__init__`` and given its saved
  attributes (an estimator: its parameters and ``__sklearn_ed_saved__``) or
  its ``__getstate__`` back through ``__setstate__``;
- ``"index"``: a vector index, saved as its settings (``settings_state``)
  and its engine's bytes (``to_bytes``), rebuilt by ``restore_settings``
  and ``load_bytes``;
- ``"torch_module"``: a network, constructed from its plain ``init_args``
  and given a ``state_dict`` read with ``torch.load(weights_only=True)``.

Registration happens when the defining module is imported:
:func:`sklearn_ed.load` imports a fixed list of the package's subpackages
first. Networks need torch, which is optional: their subpackage registers
the function that imports them (:func:`defer_saved_classes`), and the loader
calls it only for a file that holds a network.
"""

import types
from dataclasses import dataclass

KINDS = ("object", "index", "torch_module")
_PACKAGE = __name__.partition(".")[0]

_BY_NAME = {}  # qualified name, today's or a former one -> SavedClass
_BY_CLASS = {}  # class -> SavedClass
_DEFERRED = {kind: [] for kind in KINDS}  # kind -> functions importing such classes


def qualified_name(cls):
    """``module.QualName`` of a class: the name a manifest gives it."""
    return f"{cls.__module__}.{cls.__qualname__}"


@dataclass(frozen=True)
class SavedClass:
    """A class that :func:`sklearn_ed.load` builds, and how (see the module doc).

    Attributes
    ----------
    cls : type
        The class.
    kind : {"object", "index", "torch_module"}
        What the loader does with a node of this class.
    version : int
        The version of the class's saved layout, written beside each node.
    added : mapping
        The attributes added to the layout since version 1, with the value
        a save of an older version implies.
    """

    cls: type
    kind: str
    version: int
    added: types.MappingProxyType

    @property
    def name(self):
        """The qualified name a save writes today."""
        return qualified_name(self.cls)

    def upgraded(self, state, version):
        """``state``, saved in layout ``version`` of the class, in today's layout:
        the attributes added since, with the values an older save implies.

        The one place defaults of older layouts are applied (the class may
        still gather an older layout's parts in ``_upgrade_saved_state``)."""
        return {**self.added, **state} if version < self.version else state


def saved_class(kind="object", *, version=1, added=None, formerly=()):
    """Class decorator: :func:`sklearn_ed.save` writes the class, :func:`sklearn_ed.load` builds it.

    Parameters
    ----------
    kind : {"object", "index", "torch_module"}, default="object"
        How the class is saved and rebuilt (see the module doc).
    version : int, default=1
        The version of the class's saved layout: raise it when the class
        saves a new attribute, and give the attribute's default in ``added``.
        A file holding a higher version (saved by a newer release) is refused.
    added : dict, optional
        ``{attribute: value}`` of the attributes saved since version 1, with
        the value a save of an older version implies.
    formerly : tuple of str, default=()
        The qualified names the class was saved under before it moved: a
        directory written then still loads.

    Returns
    -------
    register : callable
        Registers a class of sklearn-ed and returns it unchanged.
    """

    def register(cls):
        if cls.__module__.partition(".")[0] != _PACKAGE:
            raise TypeError(f"{qualified_name(cls)} is not a class of {_PACKAGE}")
        return register_class(cls, kind, version=version, added=added, formerly=formerly)

    return register


def register_class(cls, kind, *, version=1, added=None, formerly=()):
    """Register ``cls`` (see :func:`saved_class`, which registers the package's own)."""
    added = dict(added or {})
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if not (isinstance(version, int) and version >= 1) or (added and version == 1):
        raise ValueError(f"version must be an int >= 1 (above 1 with added): {version!r}")
    entry = SavedClass(cls, kind, version, types.MappingProxyType(added))
    names = (entry.name, *formerly)
    for name in names:
        known = _BY_NAME.get(name)
        if known is not None and known.name != entry.name:
            raise ValueError(f"{name!r} is already the name of {known.name}")
    _BY_NAME.update(dict.fromkeys(names, entry))
    _BY_CLASS[cls] = entry
    return cls


def registered(name, kind):
    """The :class:`SavedClass` of kind ``kind`` a file's ``name`` stands for, or None."""
    entry = _BY_NAME.get(name) if isinstance(name, str) else None
    return entry if entry is not None and entry.kind == kind else None


def registration_of(cls):
    """The :class:`SavedClass` of ``cls`` itself (not of a parent), or None."""
    return _BY_CLASS.get(cls)


def older_layout_defaults(cls):
    """``{attribute: value}`` an older save of ``cls`` implies for the attributes
    added since (those of the nearest registered class of its MRO: a user's
    subclass of an estimator reads as its parent). For the paths that do not
    know a save's version, as unpickling: the values only fill what is absent."""
    for parent in cls.__mro__:
        entry = _BY_CLASS.get(parent)
        if entry is not None:
            return dict(entry.added)
    return {}


def saved_classes():
    """``{name: SavedClass}`` of every name the loader accepts (today's and former)."""
    return dict(_BY_NAME)


def defer_saved_classes(kind, import_classes):
    """Have the loader call ``import_classes`` (which imports classes of
    ``kind`` that register themselves) before it reads a file needing them.

    For classes behind an optional dependency (the networks, behind torch):
    importing them with their subpackage would import the dependency."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    _DEFERRED[kind].append(import_classes)


def import_deferred(kind):
    """Import the deferred classes of ``kind`` (see :func:`defer_saved_classes`)."""
    for import_classes in _DEFERRED[kind]:
        import_classes()
