"""The record type the readers return: names and strings side by side."""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Records:
    """Named strings read from a file, in file order.

    Parameters
    ----------
    names : ndarray of object, shape (n_records,)
        Each record's name: for FASTA/FASTQ the header up to its first
        whitespace (as minimap2 reports it); for text files the value of the
        name column, or the line or row number counted from 1.
    sequences : ndarray of object, shape (n_records,)
        The strings, ready to pass to an estimator's ``fit`` or ``kneighbors``.
    qualities : ndarray of object or None
        FASTQ quality strings; ``None`` for other formats.

    Examples
    --------
    >>> from sklearn_ed.io import Records
    >>> records = Records(["r1", "r2"], ["ACGT", "ACGA"])
    >>> len(records), records.names[1], records.sequences[1]
    (2, 'r2', 'ACGA')
    """

    names: np.ndarray
    sequences: np.ndarray
    qualities: np.ndarray = None

    def __post_init__(self):
        names, sequences = _object_array(self.names), _object_array(self.sequences)
        if len(names) != len(sequences):
            raise ValueError(
                f"Records needs one name per sequence, got {len(names)} names "
                f"and {len(sequences)} sequences."
            )
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "sequences", sequences)
        if self.qualities is not None:
            object.__setattr__(self, "qualities", _object_array(self.qualities))

    def __len__(self):
        return len(self.sequences)

    def to_frame(self):
        """The records as a pandas DataFrame (columns ``name``, ``sequence``[, ``quality``]).

        Returns
        -------
        frame : pandas.DataFrame
        """
        import pandas as pd

        columns = {"name": self.names, "sequence": self.sequences}
        if self.qualities is not None:
            columns["quality"] = self.qualities
        return pd.DataFrame(columns)


def _object_array(values):
    array = np.empty(len(values), dtype=object)
    array[:] = list(values)
    return array
