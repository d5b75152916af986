"""String processors applied before any distance: by name, so they are saved."""

import re

from rapidfuzz.utils import default_process

_WORDS = re.compile(r"\S+")


def sort_tokens(string):
    """The whitespace-separated tokens in sorted order: "smith john" -> "john smith"."""
    return " ".join(sorted(_WORDS.findall(string)))


def default_sort_tokens(string):
    """rapidfuzz's ``default_process`` (lowercase, non-alphanumerics to spaces,
    trimmed), then the tokens sorted: rapidfuzz's ``token_sort_ratio`` input."""
    return sort_tokens(default_process(string))


PROCESSORS = {
    "lower": str.lower,
    "default": default_process,
    "sort_tokens": sort_tokens,
    "default_sort_tokens": default_sort_tokens,
}


def resolve_processor(processor):
    """The function of a processor name (or the callable itself; None stays None)."""
    return PROCESSORS[processor] if isinstance(processor, str) else processor


def apply_processor(processor, strings, name="X"):
    """``processor`` applied to every string, refused when it returns a non-string."""
    function = resolve_processor(processor)
    if function is None:
        return strings
    processed = strings.copy()
    for index, string in enumerate(strings):
        value = function(string)
        if not isinstance(value, str):
            raise TypeError(
                f"processor={processor!r} returned a {type(value).__name__} for {name}[{index}] "
                f"({string!r}); a processor must return a str."
            )
        processed[index] = value
    return processed
