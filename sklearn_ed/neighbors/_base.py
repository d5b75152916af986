"""Filter-and-refine machinery shared by the neighbor estimators.

fit:    embed the base set with a clone of ``embedder``; index the embeddings.
query:  embed the queries, take ``n_candidates`` by embedding distance
        (filter), compute the exact metric to those only and keep the best
        (refine). Returned distances are always exact.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data
from tqdm.auto import tqdm

from ..distances import (
    Metric,
    declare_metric_input,
    get_metric,
)
from ..embedding import CGKEmbedder, QGramEmbedder
from ..index import (
    INDEX_ALGORITHMS,
    embedding_spec,
)
from ..search import (
    BRUTE_FORCE,
    FILTER_REFINE,
    FittedSearch,
    RecallSample,
    SearchPolicy,
    check_fit_memory,
    check_lower_bound,
    check_recall,
    choose_embedder,
    concat_items,
    low_recall_advice,
    sample_size,
)
from ..utils import (
    PROCESSORS,
    Alphabet,
    apply_processor,
    check_items,
    log_progress,
    sorted_unique,
    to_code_points,
)
from ._brute_force import BruteForceMixin
from ._join import JoinMixin
from ._kneighbors import KNeighborsMixin
from ._saved_state import SavedStateMixin

# The recall check runs again once partial_fit has grown the base by this share.
_RECHECK_GROWTH = 0.5


class FilterRefineBase(SavedStateMixin, KNeighborsMixin, JoinMixin, BruteForceMixin, BaseEstimator):
    """Base class of the FilterRefine estimators (not for direct use)."""

    _parameter_constraints: dict = {
        "embedder": [HasMethods(["fit", "transform"]), StrOptions({"auto"}), None],
        "metric": [str, callable, Metric],
        "processor": [StrOptions(set(PROCESSORS)), callable, None],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "n_candidates": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            StrOptions({"auto"}),
        ],
        "target_recall": [Interval(Real, 0, 1, closed="right")],
        "check_recall": ["boolean"],
        "verbose": ["verbose"],
        "filter_algorithm": [StrOptions({"auto", *INDEX_ALGORITHMS})],
        "index_params": [dict, None],
        "exact": ["boolean"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        embedder="auto",
        *,
        metric="levenshtein",
        processor=None,
        n_neighbors=5,
        n_candidates="auto",
        target_recall=0.95,
        check_recall=True,
        filter_algorithm="auto",
        index_params=None,
        exact=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.embedder = embedder
        self.metric = metric
        self.processor = processor
        self.n_neighbors = n_neighbors
        self.n_candidates = n_candidates
        self.target_recall = target_recall
        self.check_recall = check_recall
        self.verbose = verbose
        self.filter_algorithm = filter_algorithm
        self.index_params = index_params
        self.exact = exact
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    def _fit(self, X):
        """Embed and index ``X`` (already validated), then check the filter's recall."""
        if self.exact:
            check_lower_bound(self._metric_spec, self.effective_metric_)
        if self.n_candidates == "auto" and not self.check_recall:
            raise ValueError(
                'n_candidates="auto" picks the candidate count from the recall check; '
                "set check_recall=True, or give n_candidates as a count or a fraction."
            )
        self.n_samples_fit_ = len(X)
        if self._brute_force_pays(X):
            return self._fit_brute_force(X)
        self.search_method_ = FILTER_REFINE
        embedder = self._make_embedder(X)
        log_progress(
            self, f"embedder: {type(embedder).__name__}; filter index: {self.filter_algorithm}"
        )
        search = self._new_search(X, embedder)
        check_fit_memory(search, X, type(self).__name__)
        with self._progress(len(X), "embed and index") as progress:
            self.search_ = search.build(X, progress)
        self.embedder_ = embedder
        self.embedding_metric_ = embedding_spec(self.embedder_).metric
        self._fit_n_candidates()
        reason = self._filter_gives_way()
        return self if reason is None else self._brute_force_instead(reason)

    def _new_search(self, X, embedder):
        """The :class:`FittedSearch` this estimator builds of ``X``, nothing added yet."""
        return FittedSearch(
            self._metric_spec,
            embedder,
            {
                "algorithm": self.filter_algorithm,
                "params": self.index_params,
                "random_state": self._seed,
                "n_jobs": self.n_jobs,
            },
            self._search_policy(X),
            n_jobs=self.n_jobs,
            processor=self.processor,
        )

    def _search_policy(self, X):
        """The fitted search's lookups and answering rules (:class:`SearchPolicy`)."""
        return SearchPolicy.decide(self._metric_spec, X, exact=self.exact)

    @property
    def _seed(self):
        """``random_state``, where None is a fixed seed: fits of the same data
        then give the same candidate count and answers, as scikit-learn's
        KNeighbors estimators do."""
        return 0 if self.random_state is None else self.random_state

    @property
    def index_(self):
        """The filter's vector index (``search_.index``)."""
        return self.search_.index

    def _embed(self, X):
        return self.search_.embed(X)

    def _progress(self, total, desc):
        """A progress bar shown when ``verbose`` (tqdm)."""
        return tqdm(total=total, desc=desc, disable=not self.verbose, leave=False)

    def _fit_n_candidates(self):
        """Resolve ``n_candidates_`` and estimate the filter's recall on the base.

        Sets ``estimated_recall_`` and ``estimated_recall_se_`` (NaN without the
        check) and ``recall_curve_``; warns when the estimate misses
        ``target_recall``.
        """
        n_available = self.n_samples_fit_ - 1
        k = min(self.n_neighbors, max(n_available, 1))
        fixed = None if self.n_candidates == "auto" else self._resolve_n_candidates(n_available)
        self.recall_curve_ = np.empty((0, 3))
        self._recall_check = None
        # The check calibrates the radius; a new check, a new calibration.
        self.search_.radius_calibration = None
        self._n_samples_checked = self.n_samples_fit_
        self.estimated_recall_ = self.estimated_recall_se_ = float("nan")
        brute_force = self.search_method_ == BRUTE_FORCE
        if (
            brute_force
            or fixed is None
            and n_available <= 2 * sample_size(k, self.target_recall)
            or fixed is not None
            and fixed >= n_available
        ):
            # Brute force costs no more than a check: every item is a candidate.
            self.n_candidates_ = self.n_samples_fit_ if fixed is None or brute_force else fixed
            self.estimated_recall_, self.estimated_recall_se_ = 1.0, 0.0
            if not brute_force:
                log_progress(
                    self,
                    f"{self.n_samples_fit_} items: n_candidates_={self.n_candidates_}, "
                    "every item is verified (exact search)",
                )
            return self._check_n_candidates(self.n_neighbors, self.n_samples_fit_)
        if not self.check_recall or (self.exact and fixed is not None):
            # exact=True answers exactly whatever the filter's recall, so at a
            # given C a check would only cost (brute force on a sample).
            self.n_candidates_ = fixed
            return self._check_n_candidates(self.n_neighbors, self.n_samples_fit_)
        sample = RecallSample()
        check = self._checked_recall(k, fixed or 0, sample)
        chosen = fixed if fixed is not None else check.smallest_reaching(self.target_recall)
        # Beyond the grid, up to a tenth of the base, before the filter gives way.
        wider = n_available // 10
        if chosen is None and self._may_brute_force() and wider > check.grid[-1]:
            check = self._checked_recall(k, wider, sample)
            chosen = check.smallest_reaching(self.target_recall)
        self._recall_check = check
        self.recall_curve_ = np.column_stack([check.grid, check.recall(), check.standard_error()])
        self.n_candidates_ = int(chosen if chosen is not None else check.grid[-1])
        self.estimated_recall_, self.estimated_recall_se_ = check.at(self.n_candidates_)
        log_progress(
            self,
            f"n_candidates_={self.n_candidates_}: estimated top-{k} recall "
            f"{self.estimated_recall_:.3f} +/- {self.estimated_recall_se_:.3f} "
            f"({check.n_queries} items of the base as queries)",
        )
        if self.estimated_recall_ < self.target_recall and not (
            self.exact or self._filter_falls_short()
        ):
            # exact=True answers exactly whatever the filter's recall.
            message = low_recall_advice(
                check,
                k,
                self.n_candidates_,
                fixed,
                self.target_recall,
                type(self.embedder_).__name__,
            )
            # Raised from fit: _fit_context, fit, _fit, _fit_n_candidates, here.
            warnings.warn(f"{type(self).__name__}: {message}", UserWarning, stacklevel=5)
        self._check_n_candidates(self.n_neighbors, self.n_samples_fit_)

    def _checked_recall(self, k, at_least, sample):
        size = sample_size(k, self.target_recall)
        with self._progress(size, "recall check (exact brute force)") as progress:
            return check_recall(
                self.search_,
                k,
                at_least,
                progress,
                random_state=self._seed,
                sample=sample,
                target_recall=self.target_recall,
            )

    def _partial_fit(self, X):
        """Append validated items to the fitted base (the embedder stays as fitted).

        Items holding characters the embedder never saw would be invisible
        to the filter (their q-grams are unknown to the profiles, their
        symbols one "unknown" bucket to the walks): a q-gram or CGK
        embedder, which fit in seconds, is then refitted on the whole base,
        and a trained network keeps its weights while the recall check runs
        again to measure what they lose. The check also runs again, on a
        sample as at fit, once the base has grown by half since it last ran:
        ``n_candidates_`` and the estimate follow the base.
        """
        if self.search_method_ == BRUTE_FORCE:
            return self._grow_brute_force(X)
        unseen = self._unseen_characters(X)
        if unseen.size and self._refits_cheaply():
            warnings.warn(
                f"{type(self).__name__}.partial_fit: {unseen.size} character(s) of the "
                f"new items (such as {chr(int(unseen[0]))!r}) were not in the fitted base; "
                f"{type(self.embedder_).__name__} is refitted on all "
                f"{self.n_samples_fit_ + len(X)} items so that the filter sees them.",
                UserWarning,
                stacklevel=5,  # partial_fit, its lock's wrapper and call, _partial_fit
            )
            return self._fit(concat_items(self.search_.items, X))
        with self._progress(len(X), "embed and add") as progress:
            self.search_.add(X, progress=progress)
        self.n_samples_fit_ = self.search_.n_items
        checked = getattr(self, "_n_samples_checked", self.n_samples_fit_)
        if unseen.size or self.n_samples_fit_ >= (1 + _RECHECK_GROWTH) * checked:
            self._fit_n_candidates()
            reason = self._filter_gives_way()
            if reason is not None:
                return self._brute_force_instead(reason)
        return self

    def _unseen_characters(self, X):
        """Code points of ``X`` outside the fitted embedder's alphabet (strings only)."""
        alphabet = getattr(self.embedder_, "alphabet_", None)
        if self._metric_spec.input_type != "strings" or alphabet is None:
            return np.empty(0, dtype=np.uint32)
        known = alphabet.characters if isinstance(alphabet, Alphabet) else alphabet
        code_points, _ = to_code_points(X)
        return np.setdiff1d(sorted_unique(code_points), known)

    def _refits_cheaply(self):
        return isinstance(self.embedder_, (QGramEmbedder, CGKEmbedder))

    def _check_partial_fit(self, X):
        check_is_fitted(
            self,
            msg=(
                "This %(name)s instance is not fitted yet: partial_fit appends items "
                "to a fitted index with the fitted embedder. Call fit first."
            ),
        )
        return self._validate_X(X, reset=False)

    def _resolve_metric(self):
        spec = get_metric(self.metric)
        self.effective_metric_ = spec.name
        self._metric_spec = spec
        return spec

    def _validate_X(self, X, *, reset):
        """Validate X for the metric's input type (strings, vectors, objects)."""
        input_type = self._metric_spec.input_type
        if self.processor is not None and input_type != "strings":
            raise ValueError(
                f"processor={self.processor!r} transforms strings, but metric="
                f"{self.effective_metric_!r} compares {input_type}."
            )
        if input_type == "vectors":
            return validate_data(self, X, reset=reset, dtype=[np.float64, np.float32])
        return apply_processor(self.processor, check_items(X, input_type))

    def _make_embedder(self, X):
        if self.embedder is None or (isinstance(self.embedder, str) and self.embedder == "auto"):
            return choose_embedder(
                X, self._metric_spec, self.filter_algorithm, self.n_jobs, self._seed
            )
        return clone(self.embedder)

    def set_params(self, **params):
        """Set parameters; ``embedder__*`` needs an embedder object, not "auto".

        Parameters
        ----------
        **params : dict
            Estimator parameters, nested ones as ``embedder__q``.

        Returns
        -------
        self : estimator
            The estimator.
        """
        embedder = params.get("embedder", self.embedder)
        nested = sorted(key for key in params if key.startswith("embedder__"))
        if nested and (embedder is None or isinstance(embedder, str)):
            raise ValueError(
                f'{nested[0]} sets a parameter of the embedder, but embedder="auto" is '
                "chosen at fit and has no parameters of its own. Give the embedder "
                "itself, for example embedder=QGramEmbedder() (the choice of "
                '"auto" for strings), to tune its parameters.'
            )
        return super().set_params(**params)

    def __sklearn_tags__(self):
        return declare_metric_input(super().__sklearn_tags__(), self.metric)
