"""Symmetric chamfer distance between point sets, with KD-trees."""

import numpy as np
from scipy.ndimage import binary_erosion
from scipy.spatial import cKDTree

from .._registry import Metric


def as_point_sets(X):
    """Validate a collection of point sets; each becomes an (n_points, dim) array."""
    point_sets = []
    for index, item in enumerate(X):
        points = np.asarray(item, dtype=np.float64)
        if points.ndim != 2 or points.shape[0] == 0:
            raise ValueError(
                f"Point set {index} must be a non-empty 2-D (n_points, dim) array; "
                f"got shape {np.shape(item)}."
            )
        point_sets.append(points)
    return point_sets


def chamfer_pairwise(X, Y, score_cutoff=None):
    """(D(A, B) + D(B, A)) / 2 with D(A, B) the mean distance from A to its nearest in B.

    One KD-tree per point set, built once per call.
    """
    X, Y = as_point_sets(X), as_point_sets(Y)
    x_trees = [cKDTree(points) for points in X]
    y_trees = [cKDTree(points) for points in Y]
    out = np.empty((len(X), len(Y)))
    for i, (x_points, x_tree) in enumerate(zip(X, x_trees)):
        for j, (y_points, y_tree) in enumerate(zip(Y, y_trees)):
            forward = y_tree.query(x_points)[0].mean()
            backward = x_tree.query(y_points)[0].mean()
            out[i, j] = (forward + backward) / 2
    return out


def chamfer_oracle(a, b):
    """All pairwise point distances, then the two directed means (reference)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    distances = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))
    return float((distances.min(axis=1).mean() + distances.min(axis=0).mean()) / 2)


def _edge_masks(images, threshold):
    """Boolean edge masks (n, height, width): "on" pixels with an "off" 4-neighbor."""
    if isinstance(images, np.ndarray) and images.dtype == object:
        images = list(images)  # validated samples: an object array of images
    images = np.asarray(images, dtype=np.float64)
    if images.ndim != 3:
        raise ValueError(f"images must be 3-D (n_images, height, width); got shape {images.shape}.")
    masks = np.empty(images.shape, dtype=bool)
    for index, image in enumerate(images):
        cut = image.max() / 2 if threshold is None else threshold
        on = image > cut
        masks[index] = on & ~binary_erosion(on)
        if not masks[index].any():
            raise ValueError(f"Image {index} has no pixel above the threshold {cut}.")
    return masks


def images_to_point_sets(images, threshold=None):
    """Edge pixels of each image as a point set of (row, column) coordinates.

    A pixel is "on" when its value exceeds ``threshold`` (default: half the
    image's maximum); its edge pixels are the "on" pixels with an "off"
    4-neighbor, as in chamfer matching of binary images.

    Parameters
    ----------
    images : array-like of shape (n_images, height, width)
        Grey-level images (e.g. ``load_digits().images``).
    threshold : float, default=None
        Binarisation threshold.

    Returns
    -------
    point_sets : list of ndarray of shape (n_points, 2)

    See Also
    --------
    edge_images : The same edge pixels as binary images.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.distances import images_to_point_sets
    >>> square = np.zeros((1, 5, 5)); square[0, 1:4, 1:4] = 1
    >>> len(images_to_point_sets(square)[0])  # the ring around the centre
    8
    """
    return [np.argwhere(mask).astype(np.float64) for mask in _edge_masks(images, threshold)]


def edge_images(images, threshold=None):
    """The edge pixels of :func:`images_to_point_sets` as binary float32 images.

    Edge maps are what the chamfer distance compares, so they are a better
    input for a network learning it than grey levels (on sklearn's digits,
    Euclidean distance between edge maps ranks chamfer neighbors far better
    than between the grey-level pixels; see ``docs/benchmarks.rst``). Taking
    the edges again changes nothing: an edge pixel always has an "off"
    4-neighbor, so ``chamfer_image`` gives the same distances on
    ``edge_images(X)`` (default ``threshold``) as on ``X``, and both a network
    and the exact metric can be given the edge maps.

    Parameters
    ----------
    images : array-like of shape (n_images, height, width)
        Grey-level images.
    threshold : float, default=None
        Binarisation threshold (default: half of each image's maximum).

    Returns
    -------
    edges : ndarray of float32, shape (n_images, height, width)
        1 on edge pixels, 0 elsewhere.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.distances import edge_images
    >>> square = np.zeros((1, 5, 5)); square[0, 1:4, 1:4] = 1
    >>> edge_images(square)[0].astype(int)[1:4, 1:4]
    array([[1, 1, 1],
           [1, 0, 1],
           [1, 1, 1]])
    """
    return _edge_masks(images, threshold).astype(np.float32)


def chamfer_image_pairwise(X, Y, score_cutoff=None):
    """Chamfer distance between grey-level images through their edge pixels."""
    return chamfer_pairwise(images_to_point_sets(X), images_to_point_sets(Y))


def chamfer_image_oracle(x, y):
    """Edge pixels of both images, then the point-set oracle (reference)."""
    return chamfer_oracle(*images_to_point_sets(np.stack([x, y])))


CHAMFER = Metric(
    name="chamfer", pairwise=chamfer_pairwise, input_type="objects", oracle=chamfer_oracle
)
# Images as samples: FilterRefine estimators hand the same X to the embedder
# and to the exact metric, so searching images needs a metric on images.
CHAMFER_IMAGE = Metric(
    name="chamfer_image",
    pairwise=chamfer_image_pairwise,
    input_type="objects",
    oracle=chamfer_image_oracle,
)
