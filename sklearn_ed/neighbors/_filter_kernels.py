"""Numba kernels of the brute-force filter (no estimator logic)."""

from numba import njit, prange


@njit(cache=True, parallel=True)
def hamming_block(queries, base, out):
    """Hamming distances of integer-coded rows: ``out[i, j] = #(q_i != b_j)``."""
    n_dims = queries.shape[1]
    for i in prange(queries.shape[0]):
        query = queries[i]
        for j in range(base.shape[0]):
            row = base[j]
            mismatches = 0
            for d in range(n_dims):
                mismatches += query[d] != row[d]
            out[i, j] = mismatches
