"""The batch engine: every metric's distances computed in blocks.

Full and thresholded matrices (``_pairwise``), the distances to each query's
own candidates (``_candidates``), and the chunks they are split into for
threads or a cluster's executor (``_dispatch``). ``sklearn_ed.distances``
exports them: import from it, not from here.
"""
