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

The pairs are those of distinct strings (nodes), each standing for its
copies (``copies``), which are pairs of one another: a node's neighbors
count its copies, and a group takes a node's copies together. This gives
the groups the rows themselves would give (copies are alike in every
comparison), with no pair of copies held. ``"connected"`` needs no pair held
at all: it merges the pairs' components block by block (union-find).

Labels number the groups by their first row, so the output does not depend
on how the pairs were found.
"""

import numpy as np
from numba import njit
from scipy import sparse

LINKAGES = ("representative", "complete", "connected")


def adjacency(n_nodes, rows, columns, distances):
    """Symmetric CSR matrix of the pairs (distances stored as value + 1: 0 is no pair)."""
    values = np.asarray(distances, dtype=np.float64) + 1.0
    graph = sparse.coo_matrix((values, (rows, columns)), shape=(n_nodes, n_nodes))
    return (graph + graph.T).tocsr()


def grouped_stars(graph, copies, complete):
    """The owner node of each node: representative or complete linkage."""
    degrees = copies - 1 + graph.astype(bool).astype(np.int64) @ copies
    graph = graph.copy()
    graph.sort_indices()  # the kernel looks members up by bisection
    return _stars(graph.indptr, graph.indices, graph.data, _degree_order(degrees), complete)


class Components:
    """Connected components of pairs given block by block, and each node's
    neighbors counted with their copies, in memory of the nodes alone."""

    def __init__(self, copies):
        self.copies = copies
        self.parent = np.arange(len(copies), dtype=np.int64)
        self.degrees = copies - 1
        self.n_pairs = 0

    def add(self, rows, columns):
        """Merge the components of a block of pairs."""
        n_nodes = len(self.copies)
        self.degrees = self.degrees + np.bincount(
            rows, weights=self.copies[columns], minlength=n_nodes
        ).astype(np.int64)
        self.degrees += np.bincount(columns, weights=self.copies[rows], minlength=n_nodes).astype(
            np.int64
        )
        self.n_pairs += int(np.dot(self.copies[rows], self.copies[columns]))
        _union(self.parent, np.asarray(rows, np.int64), np.asarray(columns, np.int64))

    def owners(self):
        """The owner node of each node: its component's node with the most
        neighbors (then the first)."""
        roots = _roots(self.parent)
        owner = np.full(len(roots), -1, dtype=np.int64)
        for node in _degree_order(self.degrees):
            if owner[roots[node]] < 0:
                owner[roots[node]] = node
        return owner[roots]


def copies_pairs_count(copies):
    """Pairs among the copies of each node."""
    return int((copies * (copies - 1) // 2).sum())


def _degree_order(degrees):
    return np.lexsort((np.arange(len(degrees)), -degrees))


@njit(cache=True, nogil=True)
def _stars(indptr, indices, values, order, complete):
    """Each unowned node in ``order`` opens a group and takes its unowned
    neighbors, nearest first (then by node); under complete linkage only
    those adjacent to every member already taken."""
    owner = np.full(len(indptr) - 1, -1, dtype=np.int64)
    members = np.empty(len(owner), dtype=np.int64)
    for row in order:
        if owner[row] >= 0:
            continue
        owner[row] = row
        members[0], n_members = row, 1
        start, stop = indptr[row], indptr[row + 1]
        # Sorted by node, so a stable sort by distance breaks ties by node.
        for position in np.argsort(values[start:stop], kind="mergesort"):
            neighbor = indices[start + position]
            if owner[neighbor] >= 0:
                continue
            if complete and not _adjacent_to_all(indptr, indices, neighbor, members[:n_members]):
                continue
            owner[neighbor] = row
            members[n_members] = neighbor
            n_members += 1
    return owner


@njit(cache=True, nogil=True)
def _adjacent_to_all(indptr, indices, node, members):
    adjacent = indices[indptr[node] : indptr[node + 1]]
    for member in members:
        position = np.searchsorted(adjacent, member)
        if position == len(adjacent) or adjacent[position] != member:
            return False
    return True


def numbered(owner_rows):
    """Labels 0, 1, ... in order of each group's first row; representatives by label."""
    representatives, first_rows = np.unique(owner_rows, return_index=True)
    by_first = np.argsort(first_rows, kind="stable")
    label_of = np.empty(len(representatives), dtype=np.int64)
    label_of[by_first] = np.arange(len(representatives))
    labels = label_of[np.searchsorted(representatives, owner_rows)]
    return labels, representatives[by_first]


@njit(cache=True, nogil=True)
def _root(parent, node):
    while parent[node] != node:
        parent[node] = parent[parent[node]]  # path halving
        node = parent[node]
    return node


@njit(cache=True, nogil=True)
def _union(parent, rows, columns):
    for i in range(len(rows)):
        a, b = _root(parent, rows[i]), _root(parent, columns[i])
        if a != b:
            parent[max(a, b)] = min(a, b)


@njit(cache=True, nogil=True)
def _roots(parent):
    roots = np.empty(len(parent), dtype=np.int64)
    for node in range(len(parent)):
        roots[node] = _root(parent, node)
    return roots


def group_pairs(n_items, rows, columns, distances, linkage):
    """Group of each of ``n_items`` items given the pairs that match, by ``linkage``.

    Distances order a representative's neighbors (nearest first); labels
    number the groups by their first item. Returns ``(labels,
    representatives)``."""
    rows, columns = np.asarray(rows, np.int64), np.asarray(columns, np.int64)
    copies = np.ones(n_items, dtype=np.int64)
    if linkage == "connected":
        components = Components(copies)
        components.add(rows, columns)
        owner = components.owners()
    else:
        graph = adjacency(n_items, rows, columns, distances)
        owner = grouped_stars(graph, copies, complete=linkage == "complete")
    return numbered(owner)
