"""Image data: readers for the real MNIST (IDX) and CIFAR-10 (python pickle)
formats, and seeded synthetic data of the same shapes.

Nothing is downloaded: point the readers at files you already have.
"""
from __future__ import annotations

import gzip
import os
import pickle
import struct

import numpy as np

_IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
               0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def _open(path: str):
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


def read_idx(path: str) -> np.ndarray:
    """Read an IDX file (MNIST's format, optionally gzipped) into a numpy array.

    Raises ValueError naming the file when the header or the size is wrong.
    """
    with _open(path) as f:
        data = f.read()
    if len(data) < 4:
        raise ValueError(f"{path}: not an IDX file (only {len(data)} bytes)")
    zero, code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or code not in _IDX_DTYPES:
        raise ValueError(f"{path}: not an IDX file (bad magic number 0x{data[:4].hex()})")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{path}: IDX header truncated (expected {ndim} dimensions)")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    dtype = np.dtype(_IDX_DTYPES[code])
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(data) - header != expected:
        raise ValueError(f"{path}: IDX data has {len(data) - header} bytes, "
                         f"expected {expected} for shape {shape}")
    return np.frombuffer(data, dtype=dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))


def load_mnist(directory: str, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """MNIST from ``directory`` (files ``{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]``).

    Returns float32 images [N, 28, 28, 1] scaled to [0, 1] and int32 labels [N].
    """
    prefix = "train" if split == "train" else "t10k"

    def find(stem: str) -> str:
        for name in (stem, stem + ".gz"):
            path = os.path.join(directory, name)
            if os.path.exists(path):
                return path
        raise FileNotFoundError(f"{os.path.join(directory, stem)}[.gz] not found")

    images = read_idx(find(f"{prefix}-images-idx3-ubyte"))
    labels = read_idx(find(f"{prefix}-labels-idx1-ubyte"))
    if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
        raise ValueError(f"{directory}: MNIST images {images.shape} and labels {labels.shape} do not match")
    return (images[..., None].astype(np.float32) / 255.0), labels.astype(np.int32)


class _NumpyOnlyUnpickler(pickle.Unpickler):
    """Unpickles plain containers and numpy arrays only: a data file cannot run code."""

    ALLOWED = {
        ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
        ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
        ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
    }

    def find_class(self, module: str, name: str):
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}")
        return super().find_class(module, name)


def read_cifar_batch(path: str) -> tuple[np.ndarray, np.ndarray]:
    """One CIFAR-10 python batch file -> uint8 images [N, 32, 32, 3], int32 labels [N].

    Raises ValueError naming the file for anything that is not such a batch.
    """
    try:
        with open(path, "rb") as f:
            batch = _NumpyOnlyUnpickler(f, encoding="bytes").load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as e:
        raise ValueError(f"{path}: not a CIFAR-10 batch ({e})") from None
    if not isinstance(batch, dict):
        raise ValueError(f"{path}: not a CIFAR-10 batch (a {type(batch).__name__}, not a dict)")
    batch = {k.decode() if isinstance(k, bytes) else k: v for k, v in batch.items()}
    if "data" not in batch or "labels" not in batch:
        raise ValueError(f"{path}: CIFAR-10 batch lacks 'data' or 'labels' (keys: {sorted(batch)})")
    data = np.asarray(batch["data"], dtype=np.uint8)
    labels = np.asarray(batch["labels"], dtype=np.int32)
    if data.ndim != 2 or data.shape[1] != 3 * 32 * 32 or len(data) != len(labels):
        raise ValueError(f"{path}: CIFAR-10 data has shape {data.shape} for {len(labels)} labels, "
                         "expected [N, 3072]")
    return data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), labels


def load_cifar10(directory: str, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """CIFAR-10 from ``directory`` (``data_batch_1..5`` or ``test_batch``), float32 in [0, 1]."""
    names = ["test_batch"] if split != "train" else [f"data_batch_{i}" for i in range(1, 6)]
    paths = [os.path.join(directory, n) for n in names if os.path.exists(os.path.join(directory, n))]
    if not paths:
        raise FileNotFoundError(f"no CIFAR-10 {split} batches in {directory}")
    parts = [read_cifar_batch(p) for p in paths]
    images = np.concatenate([p[0] for p in parts]).astype(np.float32) / 255.0
    return images, np.concatenate([p[1] for p in parts])


def synthetic_images(n: int, shape: tuple[int, int, int], classes: int = 10,
                     seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Seeded learnable images: one random template per class plus noise, in [0, 1]."""
    rng = np.random.default_rng(seed)
    templates = rng.random((classes,) + shape, dtype=np.float32)
    labels = rng.integers(0, classes, size=n).astype(np.int32)
    noise = rng.random((n,) + shape, dtype=np.float32)
    return (0.6 * templates[labels] + 0.4 * noise).astype(np.float32), labels


def image_batches(images: np.ndarray, labels: np.ndarray, batch: int, n: int) -> list:
    """n consecutive (images, labels) tensor batches, wrapping around the data."""
    import tensorflow as tf

    out = []
    per_epoch = max(1, len(images) // batch)
    for k in range(n):
        s = (k % per_epoch) * batch
        out.append((tf.constant(images[s : s + batch]), tf.constant(labels[s : s + batch])))
    return out
