"""The approximate join, ``method="filter"`` of :func:`~sklearn_ed.similarity_join`:
registered here, since it needs an estimator and the join package sits below
the estimators."""

from ..join import FILTER, JoinMethod, check_pair_recall, filter_join, register_join_method
from ._unsupervised import FilterRefineNeighbors


def filter_join_engine(left, right, spec, limit, n_jobs):
    """The approximate join (one block): a search fitted on one side, queried with
    the other."""
    # Radius queries use the radius calibration, not a candidate count: the
    # k-nearest recall check would be work for nothing (n_candidates then only
    # needs to be a count, not a share of the base that would verify all).
    search = FilterRefineNeighbors(
        metric=spec,
        radius=limit,
        check_recall=False,
        n_candidates=5,
        n_jobs=n_jobs,
        random_state=0,
    )
    search.fit(left if right is None else right)
    pairs = filter_join(search, left, right is None, limit)
    check_pair_recall(pairs, left, right, spec, limit, n_jobs)
    yield pairs


register_join_method(JoinMethod(FILTER, filter_join_engine, exact=False), overwrite=True)
