import pytest

from sklearn_ed.distances import _registry


@pytest.fixture
def restored_registry():
    """The metric registry as it was before the test, whatever the test registered."""
    saved = dict(_registry._REGISTRY)
    yield
    _registry._REGISTRY.clear()
    _registry._REGISTRY.update(saved)
