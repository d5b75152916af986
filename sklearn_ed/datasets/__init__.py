"""Real data sets and generators for benchmarks of expensive-distance search.

The loaders read data shipped inside PyPI packages (``codespell``,
``wordfreq``, ``pyrodigal``, ``pyhmmer``; install them with
``pip install 'sklearn-ed[datasets]'``) and never download anything.
"""

from ._benchmarks import (
    load_genome_reads_benchmark,
    load_protein_benchmark,
    load_spell_benchmark,
)
from ._genome import load_genome, make_genome_reads
from ._hard_cases import make_hard_cases
from ._misspellings import load_misspellings
from ._proteins import load_proteins
from ._records import make_person_records
from ._split import train_query_base_split
from ._words import load_english_words

__all__ = [
    "load_english_words",
    "load_genome",
    "load_genome_reads_benchmark",
    "load_misspellings",
    "load_protein_benchmark",
    "load_proteins",
    "load_spell_benchmark",
    "make_genome_reads",
    "make_hard_cases",
    "make_person_records",
    "train_query_base_split",
]
