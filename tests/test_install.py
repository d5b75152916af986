"""The core install: ``import sklearn_ed`` is light, the default path never
imports torch, and a neural embedder without the ``neural`` extra says how to
get it. Each check runs in a fresh interpreter, where imports are not cached.
"""

import subprocess
import sys
import textwrap

import pytest

IMPORT_BUDGET_SECONDS = 0.5
HEAVY_MODULES = ("sklearn", "scipy", "numba", "faiss", "torch", "pandas")
# Run before the code under test: any import of torch or skorch fails, as in
# an environment where the extra is not installed.
WITHOUT_NEURAL = """
import sys


class NoNeuralExtra:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("torch", "skorch"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


sys.meta_path.insert(0, NoNeuralExtra())
"""


def _run(code):
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _cumulative_seconds(importtime_log, module):
    for line in importtime_log.splitlines():
        fields = [field.strip() for field in line.removeprefix("import time:").split("|")]
        if len(fields) == 3 and fields[2] == module:
            return int(fields[1]) / 1e6
    raise AssertionError(f"{module} not in the -X importtime log")


def test_import_sklearn_ed_stays_within_its_budget_and_loads_nothing_heavy():
    result = _run(f"""
        import sys
        import sklearn_ed
        print(",".join(m for m in {HEAVY_MODULES!r} if m in sys.modules))
        """)
    assert result.stdout.strip() == ""
    assert _cumulative_seconds(result.stderr, "sklearn_ed") < IMPORT_BUDGET_SECONDS


def test_public_names_resolve_on_first_use():
    result = _run("""
        import sklearn_ed
        assert "FilterRefineNeighbors" in dir(sklearn_ed)
        print(sklearn_ed.FilterRefineNeighbors.__module__)
        try:
            sklearn_ed.NoSuchEstimator
        except AttributeError as error:
            print(error)
        """)
    module, error = result.stdout.splitlines()
    assert module == "sklearn_ed.neighbors._unsupervised"
    assert "has no attribute 'NoSuchEstimator'" in error


def test_the_default_path_fits_queries_saves_and_loads_without_torch(tmp_path):
    result = _run(
        WITHOUT_NEURAL
        + f"""
from sklearn_ed import FilterRefineNeighbors, StringDeduplicator, load
words = ["kitten", "sitting", "mitten", "bitten", "fitting", "knitting"] * 5
search = FilterRefineNeighbors(n_neighbors=2, random_state=0).fit(words)
exact = FilterRefineNeighbors(n_neighbors=2, exact=True).fit(words)
restored = load(search.save({str(tmp_path / "index")!r}))
print(restored.kneighbors(["kiten"])[1].tolist(), exact.kneighbors(["kiten"])[1].tolist())
print(StringDeduplicator(threshold=1).fit_predict(["anna", "ana", "bob"]).tolist())
"""
    )
    assert result.stdout.splitlines() == ["[[0, 6]] [[0, 6]]", "[0, 0, 1]"]


@pytest.mark.parametrize(
    "code",
    [
        "from sklearn_ed import CNNEDEmbedder; CNNEDEmbedder().fit(['ab', 'cd', 'ef'])",
        "from sklearn_ed import GRUEmbedder; GRUEmbedder().fit(['ab', 'cd', 'ef'])",
        "from sklearn_ed import TripletMinedEmbedder; "
        "TripletMinedEmbedder(metric='euclidean').fit([[0.0], [1.0], [2.0]])",
        "import sklearn_ed.nn; sklearn_ed.nn.CNNEDModule",
    ],
    ids=["cnned", "gru", "triplet", "nn"],
)
def test_a_network_without_the_neural_extra_names_the_extra(code):
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_NEURAL + code], capture_output=True, text=True, timeout=300
    )
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("ImportError: ") and "pip install 'sklearn-ed[neural]'" in last_line
