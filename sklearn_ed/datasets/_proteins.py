"""Protein sequences from the test data of pyhmmer."""

from functools import lru_cache
from importlib import resources

from sklearn.utils import Bunch

from ._lazy import _import_optional

_PROTEIN_FILE = "938293.PRJEB85.HG003687.faa"

_DESCR = """\
Proteins of 938293.PRJEB85.HG003687 (pyhmmer test data)
=======================================================

The 2,100 protein sequences predicted by Prodigal on a metagenomic contig,
shipped as ``tests/data/seqs/938293.PRJEB85.HG003687.faa`` with ``pyhmmer``.
Sequences are uppercase amino-acid strings; the final ``*`` (stop codon)
written by Prodigal at the end of most sequences is removed.

- data: the sequences, in file order.
- names: the identifier of each sequence (first word of its header line).
"""


def _parse_fasta(lines):
    """Return the (name, sequence) records of FASTA lines.

    Examples
    --------
    >>> from sklearn_ed.datasets._proteins import _parse_fasta
    >>> _parse_fasta([">a x", "MK", "L*", ">b", "W"])
    [('a', 'MKL*'), ('b', 'W')]
    """
    records, name, chunks = [], None, []
    for line in lines:
        line = line.strip()
        if line.startswith(">"):
            if name is not None:
                records.append((name, "".join(chunks)))
            name, chunks = (line[1:].split() or [""])[0], []
        elif line:
            chunks.append(line)
    if name is not None:
        records.append((name, "".join(chunks)))
    return records


@lru_cache(maxsize=1)
def _read_proteins():
    pyhmmer = _import_optional("pyhmmer", caller="load_proteins")
    path = resources.files(pyhmmer) / "tests" / "data" / "seqs" / _PROTEIN_FILE
    with path.open(encoding="ascii") as file:
        records = _parse_fasta(file)
    return tuple((name, sequence.upper().removesuffix("*")) for name, sequence in records)


def load_proteins():
    """Load 2,100 protein sequences shipped with pyhmmer.

    Requires the ``pyhmmer`` package (``pip install 'sklearn-ed[datasets]'``).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with attributes:

        data : list of str
            The amino-acid sequences (final stop ``*`` removed).
        names : list of str
            The sequence identifiers.
        DESCR : str
            Description of the data set.

    Examples
    --------
    >>> from sklearn_ed.datasets import load_proteins
    >>> proteins = load_proteins()
    >>> len(proteins.data)
    2100
    >>> proteins.names[0]
    '938293.PRJEB85.HG003688_1'
    >>> proteins.data[0][:10]
    'MNINELLKDK'
    """
    records = _read_proteins()
    return Bunch(
        data=[sequence for _, sequence in records],
        names=[name for name, _ in records],
        DESCR=_DESCR,
    )
