"""Validation and integer encoding of string input.

Every string estimator validates its input with :func:`check_strings` and
encodes characters (Unicode code points, as ``len(str)`` and rapidfuzz count
them) into small integer symbols with :class:`Alphabet`. Symbol ``0`` is the
padding symbol and symbol ``1`` the unknown-character bucket; characters seen
at fit time are ``2, 3, ...``. Because real characters never map to ``0``,
padding can never collide with a character of the data.
"""

import numbers
import warnings

import numpy as np
from numba import njit

from ._invariants import saved_array
from ._saved_classes import saved_class

PAD_SYMBOL = 0
UNKNOWN_SYMBOL = 1
FIRST_CHAR_SYMBOL = 2


def check_strings(X, *, name="X", allow_empty=False):
    """Validate a 1-D collection of strings and return it as an object array.

    Accepts a list, tuple, numpy array (object or unicode dtype), pandas
    Series, or a single-column 2-D array or DataFrame. Raises on a single
    string, on non-string items (naming the index) and on an empty input.

    Parameters
    ----------
    X : array-like of str
        The strings.
    name : str, default="X"
        Name used in error messages.
    allow_empty : bool, default=False
        Whether a collection of zero strings is valid.

    Returns
    -------
    strings : ndarray of object, shape (n_samples,)
    """
    if isinstance(X, (str, bytes)):
        raise ValueError(
            f"{name} must be a 1-D collection of strings, got a single string "
            f"{_preview(X)}. Wrap it in a list: [{_preview(X)}]."
        )
    _reject_unordered(X, name)
    if hasattr(X, "iloc") and getattr(X, "ndim", 1) == 2:  # DataFrame
        if X.shape[1] != 1:
            raise ValueError(
                f"{name} must be 1-D or a single column, got a DataFrame with "
                f"{X.shape[1]} columns. Select the text column first."
            )
        X = X.iloc[:, 0]
    if hasattr(X, "to_numpy"):  # Series: by position, whatever its index
        X = X.to_numpy(dtype=object)
    if not isinstance(X, np.ndarray):
        try:
            X = list(X)
        except TypeError:
            raise TypeError(
                f"{name} must be a 1-D collection of strings, got {type(X).__name__}."
            ) from None
        strings = np.empty(len(X), dtype=object)
        strings[:] = X
    else:
        if X.ndim == 2 and X.shape[1] == 1:
            X = X[:, 0]
        if X.ndim != 1:
            raise ValueError(
                f"{name} must be a 1-D collection of strings, got an array of shape {X.shape}."
            )
        strings = X if X.dtype == object else X.astype(object)
    if len(strings) == 0 and not allow_empty:
        raise ValueError(f"{name} contains 0 strings; at least one string is required.")
    for index, item in enumerate(strings):
        if not isinstance(item, str):
            _raise_not_a_string(item, index, name)
    return strings


def check_items(X, input_type="strings", *, name="X", allow_empty=False):
    """Validate the samples of a metric's input type: the one entry point.

    Every public function and estimator that takes samples goes through it.

    Parameters
    ----------
    X : array-like
        The samples: strings, vectors (2-D numbers) or other objects.
    input_type : {"strings", "vectors", "objects"}, default="strings"
        What the metric compares (:attr:`sklearn_ed.distances.Metric.input_type`).
    name : str, default="X"
        Name used in error messages.
    allow_empty : bool, default=False
        Whether zero samples are valid.

    Returns
    -------
    items : ndarray
        Object array of shape (n_samples,) for strings and objects, float
        array of shape (n_samples, n_features) for vectors. Pandas input is
        taken by position, never by its index labels.
    """
    if input_type == "strings":
        return check_strings(X, name=name, allow_empty=allow_empty)
    _reject_unordered(X, name)
    if input_type == "vectors":
        from sklearn.utils import check_array

        return check_array(
            X,
            dtype=[np.float64, np.float32],
            input_name=name,
            ensure_min_samples=0 if allow_empty else 1,
        )
    return _check_objects(X, name, allow_empty)


def _reject_unordered(X, name):
    """Sets and mappings have no order the results could follow."""
    if isinstance(X, (set, frozenset, dict)) or type(X).__name__ in (
        "dict_keys",
        "dict_values",
        "dict_items",
    ):
        raise TypeError(
            f"{name} is a {type(X).__name__}, which has no order: results are "
            "returned in the order of the samples. Pass a list, array or Series "
            "(for a dict, list(d.values()))."
        )


def _check_objects(X, name, allow_empty):
    """A 1-D collection of arbitrary objects (series, point sets), by position."""
    if hasattr(X, "iloc") and getattr(X, "ndim", 1) == 1:
        X = X.to_numpy(dtype=object)
    if isinstance(X, np.ndarray) and X.ndim >= 1:
        objects = X
    else:
        try:
            objects = list(X)
        except TypeError:
            raise TypeError(
                f"{name} must be a collection of samples, got {type(X).__name__}."
            ) from None
    if len(objects) == 0 and not allow_empty:
        raise ValueError(f"{name} contains 0 samples; at least one sample is required.")
    for index, item in enumerate(objects):
        if item is None:
            raise ValueError(f"{name}[{index}] is None; every sample must be a value.")
    if isinstance(objects, np.ndarray):
        return objects
    array = np.empty(len(objects), dtype=object)
    for index, item in enumerate(objects):  # element-wise: equal-length arrays stay objects
        array[index] = item
    return array


# pandas' missing-value markers, named so that pandas need not be imported.
_MISSING_TYPES = ("NAType", "NaTType")


def _raise_not_a_string(item, index, name):
    if (
        item is None
        or (isinstance(item, numbers.Real) and item != item)
        or type(item).__name__ in _MISSING_TYPES
    ):
        raise ValueError(
            f"{name}[{index}] is missing ({item!r}); every item must be a "
            "string. Drop or fill missing values before calling this method."
        )
    raise TypeError(
        f"{name}[{index}] is of type {type(item).__name__} ({_preview(item)}); "
        "every item must be a str. Convert your data with str() or fix the "
        "offending item."
    )


def _preview(value, limit=30):
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def to_code_points(strings):
    """Concatenated code points of ``strings`` and their offsets.

    One ``str.join`` and one ``encode`` per call: no Python work per character.
    ASCII text (DNA, proteins, English) is encoded one byte per character.

    Returns
    -------
    code_points : ndarray of uint8 (ASCII input) or uint32, shape (total_length,)
    offsets : ndarray of int64, shape (n_strings + 1,)
        String ``i`` is ``code_points[offsets[i]:offsets[i + 1]]``.
    """
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    joined = "".join(strings)
    if joined.isascii():
        return np.frombuffer(joined.encode("ascii"), dtype=np.uint8), offsets
    # surrogatepass: a lone surrogate is one code point, as len() and rapidfuzz count it.
    return np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32), offsets


# Strings per batch when scanning an alphabet: bounds the code-point buffer.
_ALPHABET_BATCH = 8192


@njit(cache=True, nogil=True)
def map_code_points(code_points, lookup):
    """Symbol of each code point; code points beyond the table are unknown."""
    symbols = np.empty(code_points.shape[0], dtype=np.int32)
    for i in range(code_points.shape[0]):
        point = code_points[i]
        symbols[i] = lookup[point] if point < lookup.shape[0] else UNKNOWN_SYMBOL
    return symbols


def saved_characters(value, part):
    """A saved alphabet's code points: distinct, ascending Unicode code points
    (a larger one would size its lookup table in gigabytes)."""
    return saved_array(value, part, "iu", shape=(None,), low=0, high=0x110000, order="increasing")


@saved_class(formerly=("sklearn_ed._strings.Alphabet",))
class Alphabet:
    """Maps Unicode code points to integer symbols learned from training data.

    Parameters
    ----------
    characters : ndarray of uint32
        Sorted unique code points seen at fit time.
    """

    def __init__(self, characters):
        self.characters = np.asarray(characters, dtype=np.uint32)
        top = int(self.characters[-1]) + 1 if len(self.characters) else 1
        self.lookup = np.full(top, UNKNOWN_SYMBOL, dtype=np.int32)
        self.lookup[self.characters] = np.arange(
            FIRST_CHAR_SYMBOL, FIRST_CHAR_SYMBOL + len(self.characters), dtype=np.int32
        )

    @classmethod
    def from_strings(cls, strings):
        """Alphabet of the characters present, in linear time and bounded memory."""
        seen = np.zeros(0, dtype=bool)
        for start in range(0, len(strings), _ALPHABET_BATCH):
            code_points, _ = to_code_points(strings[start : start + _ALPHABET_BATCH])
            if code_points.size == 0:
                continue
            present = np.bincount(code_points, minlength=len(seen)) > 0
            present[: len(seen)] |= seen
            seen = present
        return cls(np.flatnonzero(seen))

    def __setstate__(self, state):
        # The lookup is derived from the characters, so it is rebuilt rather
        # than read: its symbols index the embedders' tables in compiled code.
        self.__init__(saved_characters(state.get("characters"), "characters"))

    @property
    def n_symbols(self):
        """Number of symbols including padding and the unknown bucket."""
        return len(self.characters) + FIRST_CHAR_SYMBOL

    def encode(self, strings):
        """Symbols of ``strings`` as one flat array plus offsets."""
        code_points, offsets = to_code_points(strings)
        return map_code_points(code_points, self.lookup), offsets


# max_length=None: the longest training string, but at most this many times the
# 99th percentile of the lengths, so that one outlier (a 100,000-character
# string among words) does not make every code 300,000 wide.
_OUTLIER_FACTOR = 2


def resolve_max_length(strings, max_length):
    """Padding length fixed at fit: ``max_length``, or the longest string up to the cap.

    Training strings beyond the cap are then reported by
    :func:`check_string_lengths`, once, with their count.
    """
    if max_length is not None:
        return max_length
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    cap = int(np.ceil(_OUTLIER_FACTOR * np.percentile(lengths, 99)))
    return max(min(int(lengths.max()), max(cap, 1)), 1)


def check_string_lengths(strings, max_length, policy, estimator_name):
    """Apply the over-long string policy ("truncate" warns, "error" raises)."""
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    too_long = np.flatnonzero(lengths > max_length)
    if too_long.size == 0:
        return
    message = (
        f"{too_long.size} string(s) are longer than max_length={max_length} "
        f"(first at index {too_long[0]}, length {lengths[too_long[0]]})"
    )
    if policy == "error":
        raise ValueError(
            f"{message}. Refit {estimator_name} with a larger max_length, or "
            "set on_long_string='truncate'."
        )
    warnings.warn(
        f"{message}; {estimator_name} only embeds their first {max_length} "
        "characters. Set max_length at fit to embed longer strings.",
        UserWarning,
        stacklevel=3,
    )
