"""Groups from the pairs within a threshold, by the chosen linkage.

- ``"representative"``: the record with the most neighbors (then the lowest
  row) opens a group and takes every unassigned neighbor; repeat. Each member
  is within the threshold of its group's representative, so no chain of
  near pairs joins two records far apart (they are at most twice the
  threshold apart, by the triangle inequality of a true metric).
- ``"complete"``: as above, but a neighbor joins only when it is within the
  threshold of every member already in the group (nearest to the
  representative first): every pair of a group is within the threshold.
- ``"connected"``: connected components of the pairs (A~B and B~C put A and
  C together whatever their distance): only when asked for.

Labels number the groups by their first row, so the output does not depend
on how the pairs were found.
"""

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

LINKAGES = ("representative", "complete", "connected")


def adjacency(n_items, rows, columns, distances):
    """Symmetric CSR matrix of the pairs (distances stored as value + 1: 0 is no pair)."""
    values = np.asarray(distances, dtype=np.float64) + 1.0
    graph = sparse.coo_matrix((values, (rows, columns)), shape=(n_items, n_items))
    return (graph + graph.T).tocsr()


def group(graph, linkage):
    """``(labels, representatives)``: a group per row, and each group's representative row."""
    if linkage == "connected":
        _, components = connected_components(graph, directed=False)
        owner = _by_degree(graph, components)
    else:
        owner = _stars(graph, complete=linkage == "complete")
    return _numbered(owner)


def _degree_order(graph):
    degrees = np.diff(graph.indptr)
    return np.lexsort((np.arange(graph.shape[0]), -degrees))


def _by_degree(graph, components):
    """Each component's representative: its member with the most neighbors."""
    owner = np.full(graph.shape[0], -1, dtype=np.int64)
    for row in _degree_order(graph):
        label = components[row]
        if owner[label] < 0:
            owner[label] = row
    return owner[components]


def _stars(graph, complete):
    owner = np.full(graph.shape[0], -1, dtype=np.int64)
    for row in _degree_order(graph):
        if owner[row] >= 0:
            continue
        owner[row] = row
        start, stop = graph.indptr[row], graph.indptr[row + 1]
        neighbors, values = graph.indices[start:stop], graph.data[start:stop]
        order = np.lexsort((neighbors, values))
        members = [row]
        for neighbor in neighbors[order]:
            if owner[neighbor] >= 0:
                continue
            if complete and not _near_all(graph, neighbor, members):
                continue
            owner[neighbor] = row
            members.append(neighbor)
    return owner


def _near_all(graph, row, members):
    start, stop = graph.indptr[row], graph.indptr[row + 1]
    return np.isin(members, graph.indices[start:stop]).all() if len(members) > 1 else True


def _numbered(owner):
    """Labels 0, 1, ... in order of each group's first row; representatives by label."""
    representatives, first_rows = np.unique(owner, return_index=True)
    by_first = np.argsort(first_rows, kind="stable")
    label_of = np.empty(len(representatives), dtype=np.int64)
    label_of[by_first] = np.arange(len(representatives))
    labels = label_of[np.searchsorted(representatives, owner)]
    return labels, representatives[by_first]
