"""What a saved array must be before compiled code reads it.

numba kernels, scipy's sparse products and faiss index memory with the
values and sizes of the arrays they are given, without bounds checks: an
index outside its array reads or writes another object's memory, and can
crash the interpreter. The arrays an object is rebuilt from by
:func:`sklearn_ed.load` come from a file that anyone may have edited (its
hashes are no signature), so each class whose saved arrays reach such code
states what they must be, checked where it is rebuilt: in ``__setstate__``
(or ``load_bytes`` for an index engine), or, for an estimator (whose
attributes ``load`` sets without ``__setstate__``), in a classmethod
``_check_saved_state(state)``. Both raise :class:`SavedStateError` naming
the attribute, and the loader (``_manifest.Builder``, the one place that
calls them) prefixes the manifest node, so the refusal names the array.
"""

import numbers

import numpy as np


class SavedStateError(ValueError):
    """A saved value that breaks an invariant of its class.

    ``part`` names it: an attribute of the saved state (``"_index"`` for an
    index's serialized engine).
    """

    def __init__(self, part, problem):
        super().__init__(f"{part}: {problem}")
        self.part = part
        self.problem = problem


def saved_int(value, part, low=None, high=None):
    """``value`` as an int if it is an integer in ``[low, high)``; SavedStateError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SavedStateError(part, f"{value!r} is not an integer")
    if low is not None and high == low + 1 and value != low:
        raise SavedStateError(part, f"{value}, not {low}")
    _within(part, int(value), int(value), low, high)
    return int(value)


def saved_seconds(value, part):
    """``value`` as a float if it is ``None`` or a non-negative number of seconds
    (``inf`` included: no limit); SavedStateError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
        raise SavedStateError(part, f"{value!r} is not a non-negative number of seconds")
    return float(value)


def saved_array(value, part, kinds, *, shape, low=None, high=None, order=None):
    """``value`` if it is an array compiled code may index with; SavedStateError otherwise.

    Parameters
    ----------
    value : object
        The saved value.
    part : str
        Its name, for the error.
    kinds : str
        Accepted dtype kinds (``"iu"``: integers, ``"f"``: floats).
    shape : tuple
        Expected shape, ``None`` for a size that may be anything; its length
        is the number of dimensions.
    low, high : int, default=None
        Every value lies in ``[low, high)``.
    order : {"increasing", "nondecreasing"}, default=None
        The (1-D) values' order.

    Returns
    -------
    value : ndarray
        The array, unchanged.
    """
    if not isinstance(value, np.ndarray) or value.dtype.kind not in kinds:
        described = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
        raise SavedStateError(part, f"an array of {described}, not of dtype kind {kinds!r}")
    if value.ndim != len(shape) or any(
        size is not None and size != got for size, got in zip(shape, value.shape)
    ):
        expected = tuple("any" if size is None else int(size) for size in shape)
        raise SavedStateError(part, f"shape {value.shape}, not {expected}")
    if value.size:
        _within(part, value.min(), value.max(), low, high)
    if order is not None and value.size > 1:
        # Compared, not subtracted: a difference of unsigned values wraps around.
        earlier, later = value[:-1], value[1:]
        if (later <= earlier).any() if order == "increasing" else (later < earlier).any():
            raise SavedStateError(part, f"values are not {order}")
    return value


def _within(part, smallest, largest, low, high):
    if (low is not None and smallest < low) or (high is not None and largest >= high):
        bounds = f"[{'-inf' if low is None else low}, {'inf' if high is None else high})"
        raise SavedStateError(part, f"values in [{smallest}, {largest}], outside {bounds}")
