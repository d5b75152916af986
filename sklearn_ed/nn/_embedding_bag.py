"""The lookup form of an affine CNN-ED network as ``embedding_bag`` calls on a torch device.

``f(x) = bias + sum_t table[x[t], t]`` (:func:`affine_lookup_table`) is a sum
of table rows indexed by (symbol, position): flattening the table to
``(n_symbols * max_length, d)`` rows makes it ``torch.nn.functional.
embedding_bag(mode="sum")`` over one bag per string, which runs on any torch
device. On the CPU the numba kernel ``lookup_sum`` is the reference (and the
faster path); this form exists for the GPU.

What crosses to the device is the strings' codes, one byte per character for
Latin-1 text (:func:`sklearn_ed.io.character_codes`), and their lengths; the
device maps the codes to symbols and builds the row indices itself
(``arange``, ``repeat_interleave``). Building the int64 indices with NumPy on
one core and sending them, 8 bytes per character, took 3.6 s for 200,000
reads of 1 kbp on an H100 host, whose GPU summed them in 0.04 s.

``CNNEDEmbedder.transform`` takes this path whenever ``device`` asks for CUDA
and CUDA is present (:func:`inference_device`). No rule sends the sum back to
the CPU: on an H100 host this path embedded 400,000 reads at 1.9x the numba
kernel on the host's 16 cores (``benchmarks/results/gpu.txt``).
"""

import numpy as np
import torch
import torch.nn.functional as F

from ..utils import available_memory

# Device bytes per character while its bag is built: its code, then int64
# copies of it as a symbol, its position, the repeated string start and the
# row index, with room for torch's temporaries.
_BYTES_PER_CHARACTER = 64
# A batch takes at most this share of the free memory of its device.
_MEMORY_SHARE = 4


def characters_per_batch(device):
    """Characters one ``embedding_bag`` call may hold on ``device`` (at least 2**20)."""
    if torch.device(device).type == "cuda":
        free = torch.cuda.mem_get_info(torch.device(device))[0]
    else:
        free = available_memory() or 2**32
    return max(free // (_MEMORY_SHARE * _BYTES_PER_CHARACTER), 1 << 20)


def _batches(offsets, n_characters):
    """``(first, stop)`` ranges of strings, about ``n_characters`` characters each."""
    starts = np.searchsorted(offsets[:-1], np.arange(0, offsets[-1] + 1, n_characters))
    bounds = np.unique(np.append(starts, len(offsets) - 1))
    return zip(bounds[:-1].tolist(), bounds[1:].tolist())


def embedding_bag_lookup(codes, offsets, code_symbols, table, bias, device="cpu"):
    """``bias + sum_t table[symbol at t, t]`` for every string, by ``embedding_bag``.

    Parameters
    ----------
    codes : ndarray of uint8 or uint32, shape (n_total,)
        The strings' characters, concatenated (:func:`sklearn_ed.io.character_codes`).
    offsets : ndarray of int64, shape (n_strings + 1,)
        Where each string starts in ``codes``, and where the last ends.
    code_symbols : torch.Tensor or ndarray of int, shape (n_codes,)
        The symbol of each code; codes beyond it have the last one
        (:func:`sklearn_ed.io.symbol_table`).
    table : torch.Tensor or ndarray of float32, shape (n_symbols, max_length, d)
        The lookup table of :func:`affine_lookup_table`. Positions at or
        beyond ``max_length`` are dropped (truncation, as the lookup kernel does).
    bias : torch.Tensor or ndarray of float32, shape (d,)
        The output of the network on the all-padding input.
    device : str, default="cpu"
        Where the sum runs. Tensors already there are not copied, so a caller
        moves the tables once, not per call.

    Returns
    -------
    embeddings : ndarray of float32, shape (n_strings, d)
        On the CPU.
    """
    with torch.inference_mode():
        code_symbols = torch.as_tensor(code_symbols, device=device).long()
        table = torch.as_tensor(table, device=device)
        bias = torch.as_tensor(bias, device=device)
        n_symbols, max_length, d = table.shape
        rows = table.reshape(n_symbols * max_length, d)
        out = np.empty((len(offsets) - 1, d), dtype=np.float32)
        for first, stop in _batches(offsets, characters_per_batch(device)):
            sums = _bag_sums(
                codes[offsets[first] : offsets[stop]],
                np.diff(offsets[first : stop + 1]),
                code_symbols,
                rows,
                max_length,
            )
            out[first:stop] = (sums + bias).cpu().numpy()
        return out


def _bag_sums(codes, lengths, code_symbols, rows, max_length):
    """The sum of the rows of each string's characters, its indices built on the device."""
    device = rows.device
    if codes.dtype == np.uint32:
        codes = codes.view(np.int32)  # code points fit; torch indexes with no uint32
    codes = torch.from_numpy(codes).to(device)
    counts = torch.from_numpy(lengths).to(device)
    n_total = codes.shape[0]
    starts = torch.cumsum(counts, 0) - counts
    positions = torch.arange(n_total, device=device)
    positions -= torch.repeat_interleave(starts, counts, output_size=n_total)
    symbols = code_symbols[codes.long().clamp_(max=code_symbols.shape[0] - 1)]
    indices = symbols * max_length + positions
    if lengths.max(initial=0) > max_length:
        indices = indices[positions < max_length]
        counts = counts.clamp(max=max_length)
    bag_offsets = torch.cumsum(counts, 0) - counts
    return F.embedding_bag(indices, rows, bag_offsets, mode="sum")
