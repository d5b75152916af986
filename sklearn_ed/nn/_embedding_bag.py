"""The lookup form of an affine CNN-ED network as one ``embedding_bag`` call.

``f(x) = bias + sum_t table[x[t], t]`` (:func:`affine_lookup_table`) is a sum
of table rows indexed by (symbol, position): flattening the table to
``(n_symbols * max_length, d)`` rows makes it ``torch.nn.functional.
embedding_bag(mode="sum")`` over one bag per string, which runs on any torch
device. On the CPU the numba kernel ``lookup_sum`` is the reference (and the
faster path); this form exists for the GPU.
"""

import numpy as np
import torch
import torch.nn.functional as F


def bag_indices(symbols, offsets, max_length):
    """Row indices into the flattened table, and the start of each string's bag.

    Parameters
    ----------
    symbols : ndarray of int, shape (n_total,)
        The encoded strings, concatenated.
    offsets : ndarray of int64, shape (n_strings + 1,)
        Where each string starts in ``symbols`` (and where the last ends).
    max_length : int
        Positions at or beyond it are dropped (truncation, as the lookup
        kernel does).

    Returns
    -------
    indices : ndarray of int64, shape (n_kept,)
        ``symbol * max_length + position`` of every kept character.
    bag_offsets : ndarray of int64, shape (n_strings,)
        Where each string's bag starts in ``indices``.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    positions = np.arange(offsets[-1] - offsets[0], dtype=np.int64) - np.repeat(
        offsets[:-1] - offsets[0], lengths
    )
    kept = positions < max_length
    indices = symbols[offsets[0] : offsets[-1]][kept].astype(np.int64) * max_length
    indices += positions[kept]
    kept_lengths = np.minimum(lengths, max_length)
    bag_offsets = np.concatenate([[0], np.cumsum(kept_lengths)[:-1]]).astype(np.int64)
    return indices, bag_offsets


def embedding_bag_lookup(symbols, offsets, table, bias, device="cpu"):
    """``bias + sum_t table[symbol at t, t]`` for every string, by ``embedding_bag``.

    Parameters
    ----------
    symbols : ndarray of int, shape (n_total,)
        The encoded strings, concatenated.
    offsets : ndarray of int64, shape (n_strings + 1,)
        Where each string starts in ``symbols``.
    table : torch.Tensor or ndarray of float32, shape (n_symbols, max_length, d)
        The lookup table of :func:`affine_lookup_table` (already on ``device``
        when a tensor, so it is moved once, not per call).
    bias : torch.Tensor or ndarray of float32, shape (d,)
        The output of the network on the all-padding input.
    device : str, default="cpu"
        Where the sum runs.

    Returns
    -------
    embeddings : ndarray of float32, shape (n_strings, d)
        On the CPU.
    """
    table = torch.as_tensor(table, device=device)
    bias = torch.as_tensor(bias, device=device)
    n_symbols, max_length, d = table.shape
    if len(offsets) < 2:
        return np.zeros((0, d), dtype=np.float32)
    indices, bag_offsets = bag_indices(symbols, offsets, max_length)
    with torch.inference_mode():
        sums = F.embedding_bag(
            torch.from_numpy(indices).to(device),
            table.reshape(n_symbols * max_length, d),
            torch.from_numpy(bag_offsets).to(device),
            mode="sum",
        )
        return (sums + bias).cpu().numpy()
