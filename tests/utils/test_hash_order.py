"""hash_order sorts like a stable argsort, whatever the hashes."""

import numpy as np
import pytest

from sklearn_ed.utils import hash_order


@pytest.mark.parametrize(
    "hashes",
    [
        np.random.default_rng(0).integers(0, 2**63, 5000, dtype=np.uint64) * np.uint64(2),
        np.random.default_rng(1).integers(0, 40, 3000).astype(np.uint64),  # few values
        np.arange(3000, dtype=np.uint64) << np.uint64(20),  # one bucket: merge sort
        np.array([2**64 - 1, 0, 2**64 - 1, 7], dtype=np.uint64),
        np.zeros(0, dtype=np.uint64),
    ],
    ids=["spread", "repeated", "one bucket", "extremes", "empty"],
)
def test_the_order_of_a_stable_argsort(hashes):
    sorted_hashes, order = hash_order(hashes)
    np.testing.assert_array_equal(order, np.argsort(hashes, kind="stable"))
    np.testing.assert_array_equal(sorted_hashes, hashes[order])
    assert order.dtype == np.int64 and sorted_hashes.dtype == np.uint64
