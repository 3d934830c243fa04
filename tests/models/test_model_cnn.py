"""LeNet-5, the small ResNet, and the MNIST / CIFAR-10 readers."""
import gzip
import pickle
import struct

import numpy as np
import pytest

from models import lenet, resnet, vision_data


@pytest.mark.parametrize("module", [lenet, resnet])
def test_eager_steps_and_expert_match(module, expert_matches_eager):
    losses, _, _ = expert_matches_eager(module.workload("tiny"), n_steps=3, atol=1e-4)
    assert all(0 < l < 10 for l in losses)


@pytest.mark.parametrize("module", [lenet, resnet])
def test_same_seed_same_weights(module):
    wl = module.workload("tiny", seed=2)
    a, b = wl.make_state(), wl.make_state()
    for va, vb in zip(wl.variables(a), wl.variables(b), strict=True):
        np.testing.assert_array_equal(np.asarray(va), np.asarray(vb))


def test_shapes():
    images, labels = lenet.workload("full").batches(1)[0]
    assert images.shape == (64, 28, 28, 1) and labels.shape == (64,)
    images, labels = resnet.workload("full").batches(1)[0]
    assert images.shape == (32, 32, 32, 3)


# --- MNIST IDX -----------------------------------------------------------------

def write_idx(path, array: np.ndarray, gz: bool = False) -> None:
    header = struct.pack(">HBB", 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    data = header + array.astype(np.uint8).tobytes()
    (gzip.open if gz else open)(path, "wb").write(data)


def test_read_idx_roundtrip(tmp_path):
    images = np.random.default_rng(0).integers(0, 256, (5, 28, 28), dtype=np.uint8)
    write_idx(tmp_path / "a-idx3-ubyte", images)
    np.testing.assert_array_equal(vision_data.read_idx(str(tmp_path / "a-idx3-ubyte")), images)
    write_idx(tmp_path / "b.gz", images, gz=True)
    np.testing.assert_array_equal(vision_data.read_idx(str(tmp_path / "b.gz")), images)


def test_load_mnist_dir(tmp_path):
    images = np.full((3, 28, 28), 255, np.uint8)
    write_idx(tmp_path / "train-images-idx3-ubyte", images)
    write_idx(tmp_path / "train-labels-idx1-ubyte.gz", np.array([1, 2, 3]), gz=True)
    x, y = vision_data.load_mnist(str(tmp_path))
    assert x.shape == (3, 28, 28, 1) and x.dtype == np.float32 and x.max() == 1.0
    assert y.tolist() == [1, 2, 3]
    wl = lenet.workload("tiny", mnist_dir=str(tmp_path))
    assert wl.batches(1)[0][0].shape[1:] == (28, 28, 1)


def test_read_idx_errors(tmp_path):
    bad = tmp_path / "bad-magic"
    bad.write_bytes(b"\x12\x34\x08\x01" + b"\x00" * 8)
    with pytest.raises(ValueError, match="bad-magic: not an IDX file"):
        vision_data.read_idx(str(bad))
    short = tmp_path / "short"
    short.write_bytes(struct.pack(">HBB", 0, 8, 2) + struct.pack(">2I", 4, 4) + b"\x00" * 10)
    with pytest.raises(ValueError, match="short: IDX data has 10 bytes, expected 16"):
        vision_data.read_idx(str(short))
    with pytest.raises(FileNotFoundError):
        vision_data.load_mnist(str(tmp_path))


# --- CIFAR-10 pickles ------------------------------------------------------------

def write_cifar(path, n: int = 4) -> np.ndarray:
    data = np.random.default_rng(1).integers(0, 256, (n, 3072), dtype=np.uint8)
    with open(path, "wb") as f:
        pickle.dump({b"batch_label": b"test", b"labels": list(range(n)), b"data": data}, f)
    return data


def test_read_cifar_batch(tmp_path):
    data = write_cifar(tmp_path / "data_batch_1")
    images, labels = vision_data.read_cifar_batch(str(tmp_path / "data_batch_1"))
    assert images.shape == (4, 32, 32, 3) and labels.tolist() == [0, 1, 2, 3]
    # channel-first rows: the first 1024 bytes are the red plane
    assert images[0, 0, 1, 0] == data[0, 1] and images[0, 0, 0, 1] == data[0, 1024]
    x, y = vision_data.load_cifar10(str(tmp_path))
    assert x.dtype == np.float32 and x.shape == (4, 32, 32, 3)


class Evil:
    def __reduce__(self):
        return (print, ("pwned",))


def test_read_cifar_errors(tmp_path):
    missing = tmp_path / "missing_keys"
    missing.write_bytes(pickle.dumps({b"data": np.zeros((1, 3072), np.uint8)}))
    with pytest.raises(ValueError, match="missing_keys: CIFAR-10 batch lacks"):
        vision_data.read_cifar_batch(str(missing))
    wrong = tmp_path / "wrong_shape"
    wrong.write_bytes(pickle.dumps({b"data": np.zeros((2, 100), np.uint8), b"labels": [0, 1]}))
    with pytest.raises(ValueError, match=r"wrong_shape: CIFAR-10 data has shape \(2, 100\)"):
        vision_data.read_cifar_batch(str(wrong))
    evil = tmp_path / "evil"
    evil.write_bytes(pickle.dumps(Evil()))
    with pytest.raises(ValueError, match="evil: not a CIFAR-10 batch .*refusing to load builtins.print"):
        vision_data.read_cifar_batch(str(evil))
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a pickle")
    with pytest.raises(ValueError, match="junk: not a CIFAR-10 batch"):
        vision_data.read_cifar_batch(str(junk))


def test_synthetic_images_deterministic():
    a = vision_data.synthetic_images(8, (28, 28, 1), seed=5)
    b = vision_data.synthetic_images(8, (28, 28, 1), seed=5)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[0].min() >= 0 and a[0].max() <= 1 and a[1].max() < 10
