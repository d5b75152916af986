"""pair_order: the lexsort of pairs by row then column, from one sort of keys."""

import numpy as np
import pytest

from sklearn_ed.utils import pair_order


@pytest.mark.parametrize("largest", [10, 10**6, 2**40], ids=["repeats", "large", "beyond-keys"])
def test_pairs_come_by_row_then_column_as_lexsort_orders_them(largest):
    rng = np.random.default_rng(0)
    rows, columns = rng.integers(0, largest, (2, 5000))
    order = pair_order(rows, columns)
    expected = np.lexsort((columns, rows))
    np.testing.assert_array_equal(rows[order], rows[expected])
    np.testing.assert_array_equal(columns[order], columns[expected])


def test_no_pairs_have_an_empty_order():
    assert pair_order([], []).tolist() == []
