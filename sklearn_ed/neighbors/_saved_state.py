"""What a FilterRefine estimator saves, and how saves of older releases are read.

``save`` writes the parameters and the attributes declared here
(``__sklearn_ed_saved__``; :func:`sklearn_ed.load` refuses any other), and
both ``load`` and unpickling pass a saved state through
``_upgrade_saved_state``: the layout before the fitted search (format 1)
is gathered into one :class:`FittedSearch`, and parameters added since get
the value an older save implies (declared once, by each estimator's
``@saved_class(added=...)``).
"""

from dataclasses import replace

from ..search import FittedSearch, SearchPolicy
from ..utils import older_layout_defaults, saved_int, saved_seconds


class SavedStateMixin:
    """The declared state of the FilterRefine estimators."""

    # What save() writes besides the parameters (sklearn_ed.load refuses others).
    __sklearn_ed_saved__ = (
        "n_samples_fit_",
        "search_method_",
        "effective_metric_",
        "embedder_",
        "embedding_metric_",
        "search_",
        "n_candidates_",
        "estimated_recall_",
        "estimated_recall_se_",
        "recall_curve_",
        "n_features_in_",
        "feature_names_in_",
        "_metric_spec",
        "_recall_check",
        "_n_samples_checked",
        "_brute_query_estimate",
        "_brute_query_limit",
    )
    # Attributes of the layout before the fitted search (see _upgrade_saved_state).
    __sklearn_ed_legacy__ = ("_fit_X", "index_", "_bound", "_near")

    @classmethod
    def _check_saved_state(cls, state):
        """The counts and costs fit and search compute with (sklearn_ed.load): a
        candidate count reaches the index as its ``k``, and a cost that is not
        a number would raise an unclear TypeError in a later ``partial_fit``."""
        for name, low in (("n_samples_fit_", 0), ("n_candidates_", 1), ("_n_samples_checked", 0)):
            if state.get(name) is not None:
                saved_int(state[name], name, low=low)
        for name in ("_brute_query_estimate", "_brute_query_limit"):
            saved_seconds(state.get(name), name)

    @classmethod
    def _upgrade_saved_state(cls, state):
        """The state of an estimator saved before the fitted search object
        (sklearn-ed 0.1 and format 1), with its parts gathered into one."""
        # Unpickling passes here too: the registration's defaults for attributes
        # added since (sklearn_ed.load has applied them already).
        state = {**older_layout_defaults(cls), **state}
        search = state.get("search_")
        if search is not None and state.get("exact") and not search.policy.exact:
            # Saved before the search's policy held exact (the estimator did).
            search.policy = replace(search.policy, exact=True)
        if "index_" not in state or search is not None:
            return state
        state["search_"] = FittedSearch.restore(
            state["_metric_spec"],
            state["embedder_"],
            {
                "algorithm": state["filter_algorithm"],
                "params": state["index_params"],
                "random_state": state["random_state"],
                "n_jobs": state["n_jobs"],
            },
            state.pop("_fit_X"),
            state.pop("index_"),
            SearchPolicy.from_state(
                {
                    "exact": state["exact"],
                    "with_bound": state.pop("_bound", None) is not None,
                    "with_near": state.pop("_near", None) is not None,
                }
            ),
            n_jobs=state["n_jobs"],
            radius_calibration=state.get("radius_calibration_"),
        )
        return state

    def __setstate__(self, state):
        super().__setstate__(self._upgrade_saved_state(state))

    def save(self, path):
        """Write the estimator to a directory of plain files (see :func:`sklearn_ed.save`).

        Unlike pickle, :func:`sklearn_ed.load` of that directory never runs
        code from it.

        Parameters
        ----------
        path : str or path-like
            Directory to write.

        Returns
        -------
        path : str
            The directory written.
        """
        from ..utils import save

        return save(self, path)
