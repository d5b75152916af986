"""Records of several columns: blocking, comparison vectors, match weights, groups.

A table's records are compared column by column (:class:`Column`: a string
metric, a processor, levels), not glued into one string: a typo in a long
address then weighs what the address's level says, a blank field is
missing rather than far, and each column's part of a match is shown.

- :class:`BlockingRule` and :func:`candidate_pairs`: the candidate pairs as
  a union of rules, equal or within a threshold (through the exact
  similarity join), with what each rule adds;
- :func:`pairs_frame` and :class:`ComparisonLevels`: pairs as a DataFrame
  and their comparison vectors, for any scikit-learn classifier;
- :class:`FellegiSunter`: match weights learned without labels (EM);
- :class:`RecordDeduplicator`: the whole chain on a table, groups without
  chaining, new records linked to the fitted ones.
"""

from ._blocking import BlockingRule, candidate_pairs
from ._columns import Column
from ._comparison import ComparisonLevels, pairs_frame
from ._deduplicator import RecordDeduplicator
from ._fellegi_sunter import FellegiSunter

__all__ = [
    "BlockingRule",
    "Column",
    "ComparisonLevels",
    "FellegiSunter",
    "RecordDeduplicator",
    "candidate_pairs",
    "pairs_frame",
]
