"""A bacterial genome and simulated sequencing reads with errors."""

from functools import lru_cache
from importlib import resources
from numbers import Integral, Real

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ..io import read_sequences
from ._lazy import _import_optional

_GENOME_FILE = "GCF_001457455.1_NCTC11397_genomic.fna.gz"
_BASES = np.frombuffer(b"ACGT", dtype=np.uint8)
_CODE_OF_BYTE = np.full(256, 255, dtype=np.uint8)
_CODE_OF_BYTE[_BASES] = np.arange(4, dtype=np.uint8)

_DESCR = """\
Simulated sequencing reads (Corynebacterium diphtheriae NCTC11397)
==================================================================

Reads of the first ``genome_length`` bp of the GCF_001457455 genome
(2,463,666 bp, from the test data of ``pyrodigal``). For each read: length
uniform integer in ``read_length`` (inclusive), start uniform in
``[0, genome_length - length]``, error rate uniform in ``error_rate``. Each
position of the read then independently, with probability equal to the error
rate, carries an error, equally likely a deletion of the base, a substitution
by one of the 3 other bases, or the insertion of a random base before it.

- data: the reads (strings over ACGT).
- start: position of each read in the genome.
- length: length of the genome slice each read comes from (before errors).
- error_rate: error rate used for each read.
"""


@lru_cache(maxsize=1)
def _read_genome():
    pyrodigal = _import_optional("pyrodigal", caller="load_genome")
    with resources.as_file(resources.files(pyrodigal) / "tests" / "data" / _GENOME_FILE) as path:
        records = read_sequences(path, uppercase=True, alphabet="dna_n")
    return "".join(records.sequences)


def load_genome():
    """Load the genome of *Corynebacterium diphtheriae* NCTC11397.

    The sequence of assembly GCF_001457455.1 (one chromosome, 2,463,666 bp),
    shipped with the test data of ``pyrodigal``
    (``pip install 'sklearn-ed[datasets]'``). Records, if several, are
    concatenated.

    Returns
    -------
    genome : str
        The uppercase nucleotide sequence.

    Examples
    --------
    >>> from sklearn_ed.datasets import load_genome
    >>> genome = load_genome()
    >>> len(genome)
    2463666
    >>> sorted(set(genome))
    ['A', 'C', 'G', 'T']
    """
    return _read_genome()


def _check_range(value, name, kind):
    low, high = (value, value) if isinstance(value, kind) else value
    if not (isinstance(low, kind) and isinstance(high, kind) and low <= high):
        raise ValueError(f"{name} must be a number or a (low, high) pair, got {value!r}")
    return low, high


_READS_PER_CHUNK = 1024  # part of the simulation protocol: changing it changes the reads


def _simulate_chunk(codes, starts, lengths, rates, rng):
    """Cut reads out of ``codes`` and apply deletions, substitutions, insertions.

    All reads of the chunk are processed at once on their concatenation.
    """
    offsets = np.cumsum(lengths) - lengths
    position = np.arange(lengths.sum()) + np.repeat(starts - offsets, lengths)
    template = codes[position]
    rate = np.repeat(rates, lengths)
    draw = rng.random_sample(template.shape[0])
    has_error = draw < rate
    # Given an error, draw / rate is uniform in [0, 1): it picks the error kind.
    kind = np.minimum(3 * draw[has_error] / rate[has_error], 2).astype(np.int64)
    error_at = np.flatnonzero(has_error)
    substituted, inserted = error_at[kind == 1], error_at[kind == 2]
    shift = rng.randint(1, 4, substituted.shape[0]).astype(np.uint8)
    template[substituted] = (template[substituted] + shift) % 4
    counts = np.ones(template.shape[0], dtype=np.int64)
    counts[error_at[kind == 0]] = 0
    counts[inserted] = 2
    read = np.repeat(template, counts)
    first_copy = np.cumsum(counts) - counts
    read[first_copy[inserted]] = rng.randint(0, 4, inserted.shape[0])
    text = _BASES[read].tobytes().decode("ascii")
    read_ends = np.cumsum(np.add.reduceat(counts, offsets)) if len(lengths) else []
    read_starts = np.concatenate([[0], read_ends[:-1]]).astype(np.int64)
    return [text[a:b] for a, b in zip(read_starts.tolist(), np.asarray(read_ends).tolist())]


def make_genome_reads(
    n_reads,
    *,
    read_length=(900, 1100),
    error_rate=(0.01, 0.08),
    genome_length=500_000,
    random_state=0,
):
    """Simulate sequencing reads with errors from a real bacterial genome.

    Reads are drawn from the first ``genome_length`` bp of :func:`load_genome`
    (the protocol of :func:`load_genome_reads_benchmark`).

    Parameters
    ----------
    n_reads : int
        Number of reads.
    read_length : int or (int, int), default=(900, 1100)
        Range of the read lengths before errors, both ends included.
    error_rate : float or (float, float), default=(0.01, 0.08)
        Range of the per-read error rate (uniform).
    genome_length : int, default=500_000
        Number of leading bases of the genome the reads are taken from.
    random_state : int, RandomState instance or None, default=0
        Seed of the simulation.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with attributes:

        data : list of str
            The reads.
        start : ndarray of shape (n_reads,), dtype int64
            Start of each read in the genome.
        length : ndarray of shape (n_reads,), dtype int64
            Length of the genome slice of each read (its length before
            errors): the read comes from ``genome[start:start + length]``.
        error_rate : ndarray of shape (n_reads,), dtype float64
            Error rate of each read.
        DESCR : str
            Description of the simulation.

    Examples
    --------
    >>> from sklearn_ed.datasets import make_genome_reads
    >>> reads = make_genome_reads(3, read_length=20, error_rate=0.0)
    >>> genome = load_genome()
    >>> all(read == genome[s:s + 20] for read, s in zip(reads.data, reads.start))
    True
    """
    if not isinstance(n_reads, Integral) or n_reads < 0:
        raise ValueError(f"n_reads must be a non-negative int, got {n_reads!r}")
    low_length, high_length = _check_range(read_length, "read_length", Integral)
    low_rate, high_rate = _check_range(error_rate, "error_rate", Real)
    genome = load_genome()
    if not 0 < genome_length <= len(genome):
        raise ValueError(f"genome_length must be in [1, {len(genome)}], got {genome_length!r}")
    if not 1 <= low_length <= high_length <= genome_length:
        raise ValueError(f"read_length must lie in [1, genome_length], got {read_length!r}")
    if not 0 <= low_rate <= high_rate <= 1:
        raise ValueError(f"error_rate must lie in [0, 1], got {error_rate!r}")

    rng = check_random_state(random_state)
    codes = _CODE_OF_BYTE[np.frombuffer(genome[:genome_length].encode("ascii"), np.uint8)]
    lengths = rng.randint(low_length, high_length + 1, size=n_reads).astype(np.int64)
    starts = rng.randint(0, genome_length - lengths + 1).astype(np.int64)
    rates = rng.uniform(low_rate, high_rate, size=n_reads).astype(np.float64)
    reads = []
    for chunk in range(0, n_reads, _READS_PER_CHUNK):
        part = slice(chunk, chunk + _READS_PER_CHUNK)
        reads += _simulate_chunk(codes, starts[part], lengths[part], rates[part], rng)
    return Bunch(data=reads, start=starts, length=lengths, error_rate=rates, DESCR=_DESCR)
