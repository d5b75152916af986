"""Common English misspellings from the dictionary shipped with codespell."""

from functools import lru_cache
from importlib import resources

from sklearn.utils import Bunch

from ._lazy import _import_optional

_DESCR = """\
Common misspellings (codespell dictionary)
==========================================

Every line ``misspelling->fix1, fix2, ..., reason`` of
``codespell_lib/data/dictionary.txt`` gives one sample, in file order.
As in codespell, when the part after ``->`` contains a comma, the text after
the last comma is a free-text reason (empty in current releases: such lines
end with ``", "``) and the rest is a comma-separated list of fixes.
All parts are stripped of whitespace. Case is kept as written in the file
(codespell itself lowercases both sides). Blank lines (none in current
releases) are skipped; no other line is dropped.

- data: the misspellings.
- target: the first correction of each misspelling.
- corrections: all corrections of each misspelling (tuples, in file order).
- reason: the reason text of each line ("" when there is none).
"""


def _parse_dictionary_line(line):
    """Split one ``misspelling->fixes`` line as codespell does.

    Examples
    --------
    >>> from sklearn_ed.datasets._misspellings import _parse_dictionary_line
    >>> _parse_dictionary_line("aas->ass, as,\\n")
    ('aas', ('ass', 'as'), '')
    >>> _parse_dictionary_line("abandonned->abandoned")
    ('abandonned', ('abandoned',), '')
    """
    misspelling, fixes = line.rstrip("\r\n").split("->")
    fixes = fixes.strip()
    reason = ""
    if "," in fixes:
        fixes, reason = fixes.rsplit(",", 1)
        reason = reason.strip()
    corrections = tuple(fix.strip() for fix in fixes.split(","))
    return misspelling.strip(), corrections, reason


@lru_cache(maxsize=1)
def _read_dictionary():
    codespell_lib = _import_optional("codespell_lib", caller="load_misspellings")
    path = resources.files(codespell_lib) / "data" / "dictionary.txt"
    with path.open(encoding="utf-8") as file:
        return tuple(_parse_dictionary_line(line) for line in file if line.strip())


def load_misspellings():
    """Load the misspellings and corrections of the codespell dictionary.

    Requires the ``codespell`` package (``pip install 'sklearn-ed[datasets]'``).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with attributes:

        data : list of str
            The misspellings, in file order.
        target : list of str
            The first correction of each misspelling.
        corrections : list of tuple of str
            All the corrections of each misspelling.
        reason : list of str
            The reason given by codespell for the line, ``""`` if none.
        DESCR : str
            Description of the data set.

    Examples
    --------
    >>> from sklearn_ed.datasets import load_misspellings
    >>> misspellings = load_misspellings()
    >>> len(misspellings.data) > 60_000
    True
    >>> i = misspellings.data.index("abandonned")  # codespell:ignore
    >>> misspellings.target[i]
    'abandoned'
    """
    entries = _read_dictionary()
    return Bunch(
        data=[misspelling for misspelling, _, _ in entries],
        target=[corrections[0] for _, corrections, _ in entries],
        corrections=[corrections for _, corrections, _ in entries],
        reason=[reason for _, _, reason in entries],
        DESCR=_DESCR,
    )
