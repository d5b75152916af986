"""What a metric's record names besides its kernels: lower bounds and lookups.

The q-gram and length bounds of the string metrics (``_string_bounds``), the
character-count bounds of brute force and Jaro (``_bag_bounds``), the
DTW bounds (``_dtw_bounds``), the deletion lookup of near items
(``_deletions``) and the halves lookup of far ones (``_halves``), and the
largest Levenshtein distance a join's threshold allows (``_radii``).
``sklearn_ed.distances`` exports them: import from it, not from here.
"""
