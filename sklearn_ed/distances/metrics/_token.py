"""``token_set``: one minus ``rapidfuzz.fuzz.token_set_ratio / 100``.

It keeps rapidfuzz's semantics so that a user's thresholds carry over: the
distance is 0 when the words of one string are a subset of the other's
("john" and "john smith"), and 1 when either string has no word (an empty
string is at distance 1 even from itself, as rapidfuzz scores 0). It is not
a metric and has no lower bound (a shared word can make any two strings
close), so ``exact=True`` refuses it; the q-gram filter serves it
approximately, with the recall check measuring its recall.
"""

from rapidfuzz import fuzz

from ._edit_scorers import lcs_length
from ._string_scorers import scorer_metric


def _percent(distance, length_sum):
    return 100.0 - 100.0 * distance / length_sum if length_sum else 100.0


def token_set_oracle(x, y):
    """rapidfuzz's ``token_set_ratio`` as a distance, from its definition: the
    best Indel ratio among the sorted shared words, each side's sorted words."""
    words_x, words_y = set(x.split()), set(y.split())
    if not words_x or not words_y:
        return 1.0
    shared = words_x & words_y
    only_x, only_y = " ".join(sorted(words_x - shared)), " ".join(sorted(words_y - shared))
    if shared and (not only_x or not only_y):
        return 0.0
    shared_length = len(" ".join(shared))
    with_x = shared_length + bool(shared_length) + len(only_x)
    with_y = shared_length + bool(shared_length) + len(only_y)
    indel = len(only_x) + len(only_y) - 2 * lcs_length(only_x, only_y)
    scores = [_percent(indel, with_x + with_y)]
    if shared_length:
        scores.append(_percent(with_x - shared_length, shared_length + with_x))
        scores.append(_percent(with_y - shared_length, shared_length + with_y))
    return (100.0 - max(scores)) / 100.0


TOKEN_SET = scorer_metric(
    "token_set", fuzz.token_set_ratio, "percent", oracle=token_set_oracle, is_metric=False
)
