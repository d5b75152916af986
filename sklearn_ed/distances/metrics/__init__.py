"""The metrics, one module per family, each ending in its :class:`Metric` records.

``_levenshtein`` and ``_hamming``; rapidfuzz's other string scorers by family
(``_edit_scorers``: Indel, OSA, Damerau-Levenshtein, LCSseq; ``_normalized``;
``_jaro``; ``_token``), on the batched calls they share in
``_string_scorers``; ``_euclidean``; ``_dtw`` (its numba kernels in
``_dtw_kernels``, the series it reads checked by ``_series``); ``_chamfer``.
``sklearn_ed.distances`` registers the records: import from it, not from here.
"""
