"""The differential harness itself: what it takes as the same outcome."""
import numpy as np
import pytest

from tests.differential import assert_snapshots_equal, snapshot


def test_numpy_scalar_nans_compare_equal_of_the_same_type_only():
    assert_snapshots_equal(snapshot([np.float64("nan")]), snapshot([np.float64("nan")]))
    assert_snapshots_equal(snapshot(np.float32("nan")), snapshot(np.float32("nan")))
    with pytest.raises(AssertionError):
        assert_snapshots_equal(snapshot(np.float64("nan")), snapshot(np.float32("nan")))
    with pytest.raises(AssertionError):
        assert_snapshots_equal(snapshot(np.float64("nan")), snapshot(np.float64(1.0)))
    with pytest.raises(AssertionError):
        assert_snapshots_equal(snapshot(np.int64(2)), snapshot(np.int64(3)))
