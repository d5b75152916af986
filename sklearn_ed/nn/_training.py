"""skorch glue: a net whose batches are index triplets into a tensor of inputs."""

import contextlib
import os

import numpy as np
import torch
from skorch import NeuralNet
from skorch.callbacks import Callback
from skorch.utils import to_tensor


def resolve_device(device):
    """ "auto" -> "cuda" when available else "cpu"; "cuda" without CUDA raises.

    Parameters
    ----------
    device : str
        ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.

    Returns
    -------
    device : str
        A device torch can use here.
    """
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} but CUDA is not available; use device='cpu' or 'auto'."
        )
    return device


def inference_device(device):
    """Where a fitted module runs: CUDA when ``device`` asked for it and it is here, else CPU.

    A module trained on a GPU thus runs on a machine without one.

    Parameters
    ----------
    device : str
        The ``device`` parameter of the embedder (``"cpu"``, ``"cuda"`` or ``"auto"``).

    Returns
    -------
    device : str
        ``"cuda"`` or ``"cpu"``.
    """
    if str(device).startswith("cuda") or device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return "cpu"


def forward_in_batches(module, inputs, *, device, batch_size, dtype=np.float32):
    """``module(inputs)`` in batches, without gradients, as one numpy array.

    Parameters
    ----------
    module : torch.nn.Module
        The network, already on ``device`` and in the mode wanted.
    inputs : ndarray or torch.Tensor
        The inputs, first axis the items.
    device : str
        Where each batch is moved before the forward pass.
    batch_size : int
        Items per forward pass (bounds the activations' memory).
    dtype : numpy dtype, default=np.float32
        Dtype of the output.

    Returns
    -------
    outputs : ndarray of shape (n_items, n_outputs)
        The module's outputs, on the CPU.
    """
    out = None
    with torch.inference_mode():
        for start in range(0, len(inputs), batch_size):
            batch = inputs[start : start + batch_size]
            if isinstance(batch, np.ndarray):
                batch = torch.from_numpy(batch)
            block = module(batch.to(device)).cpu().numpy()
            if out is None:
                out = np.empty((len(inputs), block.shape[1]), dtype=dtype)
            out[start : start + len(block)] = block
    return out


def _usable_cores():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@contextlib.contextmanager
def torch_threads(n_threads=None):
    """Use ``n_threads`` torch CPU threads (default: usable cores) and restore after.

    The embedders pass ``effective_n_jobs(n_jobs)``: their networks are small,
    and extra threads mostly wait on each other when the cores are shared.

    Parameters
    ----------
    n_threads : int, default=None
        Threads inside the block; None uses every usable core.
    """
    previous = torch.get_num_threads()
    torch.set_num_threads(max(1, n_threads or _usable_cores()))
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@contextlib.contextmanager
def seeded_torch(seed, device="cpu"):
    """Seed torch's global generators inside the block and restore them after.

    Parameters
    ----------
    seed : int
        Seed of the CPU generator (and of the CUDA device's).
    device : str, default="cpu"
        The device whose generator is also forked and seeded.
    """
    devices = [torch.cuda.current_device()] if str(device).startswith("cuda") else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield


class ResampleTriplets(Callback):
    """Draw fresh triplets at the start of every epoch but the first."""

    def on_epoch_begin(self, net, dataset_train=None, **kwargs):
        """Resample the training triplets (from the second epoch on).

        Parameters
        ----------
        net : skorch.NeuralNet
            The net being trained.
        dataset_train : TopKTripletDataset, default=None
            The training set; resampled if it can be.
        **kwargs : dict
            Other skorch callback arguments (ignored).
        """
        if len(net.history) > 1 and hasattr(dataset_train, "resample"):
            dataset_train.resample()


class TripletNet(NeuralNet):
    """``skorch.NeuralNet`` trained on batches of index triplets.

    ``fit(dataset)`` takes a dataset of ``(indices (3,), distances (3,))``
    items (:class:`~sklearn_ed.nn.TopKTripletDataset`). The module embeds
    ``inputs[indices]``, where ``inputs`` (a tensor with one row per training
    item, e.g. padded symbols) is given at construction and kept on the
    training device; the criterion receives embeddings (batch, 3, d) and the
    distances. Any module mapping a batch of ``inputs`` rows to vectors fits.

    Parameters
    ----------
    *args, **kwargs
        Passed to :class:`skorch.NeuralNet` (``module``, ``criterion``, ...).
    inputs : torch.Tensor, default=None
        One row per training item; the triplets index into it.
    """

    def __init__(self, *args, inputs=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.inputs = inputs

    def infer(self, x, **fit_params):
        """Embed the items of a batch of index triplets.

        Parameters
        ----------
        x : torch.Tensor of int64, shape (batch, 3)
            Indices into ``inputs``.
        **fit_params : dict
            Passed to the module.

        Returns
        -------
        embeddings : torch.Tensor, shape (batch, 3, d)
            The module's output per triplet member.
        """
        x = to_tensor(x, device=self.device)
        device_inputs = getattr(self, "_device_inputs", None)
        if device_inputs is None or device_inputs.device != x.device:
            device_inputs = self._device_inputs = self.inputs.to(x.device)
        flat = device_inputs[x.reshape(-1)]
        return self.module_(flat, **fit_params).reshape(x.shape[0], x.shape[1], -1)

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_device_inputs", None)
        return state
