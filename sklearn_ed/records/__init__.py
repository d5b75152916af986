"""Records of several columns: blocking, comparison vectors, match weights, groups.

A table's records are compared column by column (:class:`Column`: a string
metric, a processor, levels), not glued into one string: a typo in a long
address then weighs what the address's level says, a blank field is
missing rather than far, and each column's part of a match is shown.

- :class:`BlockingRule` and :func:`candidate_pairs`: the candidate pairs as
  a union of rules, equal or within a threshold (through the exact
  similarity join), with what each rule adds; :func:`iter_candidate_pairs`
  streams the same pairs in bounded memory;
- :func:`pairs_frame` and :class:`ComparisonLevels`: pairs as a DataFrame
  and their comparison vectors, for any scikit-learn classifier;
- :class:`FellegiSunter`: match weights learned without labels (EM);
- :class:`RecordDeduplicator`: the whole chain on a table, groups without
  chaining, new records linked to the fitted ones;
- :class:`RecordLinker`: the same chain between two tables, their matching
  pairs (one to one where asked);
- :func:`make_record_metric` and :func:`to_records`: one distance between
  records (the columns' distances, weighted), with a lower bound, for exact
  nearest records, joins and pairwise distances; :func:`nearest_records` and
  :func:`record_join` run them on DataFrames, index labels in and out.
"""

from ._blocking import BlockingRule, candidate_pairs
from ._candidate_stream import iter_candidate_pairs
from ._columns import Column
from ._comparison import ComparisonLevels, pairs_frame
from ._deduplicator import RecordDeduplicator
from ._fellegi_sunter import FellegiSunter
from ._linker import RecordLinker
from ._record_embedder import RecordEmbedder
from ._record_metric import make_record_metric, to_records
from ._record_search import nearest_records, record_join

__all__ = [
    "BlockingRule",
    "Column",
    "ComparisonLevels",
    "FellegiSunter",
    "RecordDeduplicator",
    "RecordEmbedder",
    "RecordLinker",
    "candidate_pairs",
    "iter_candidate_pairs",
    "make_record_metric",
    "nearest_records",
    "pairs_frame",
    "record_join",
    "to_records",
]
