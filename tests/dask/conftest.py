import pytest

try:
    from test_dask import two_workers
except (ImportError, pytest.skip.Exception):  # no distributed: the modules here skip
    two_workers = None


@pytest.fixture(scope="module")
def client():
    """The client of a LocalCluster of 2 worker processes, one per test module."""
    with two_workers() as (_, dask_client):
        yield dask_client
