#!/usr/bin/env python3
"""Reads tfg's event files with TensorBoard's own loader.

usage: check_events.py TFG SCRIPT_DIR EXAMPLES_DIR

Runs write_events.tfg with --logdir and checks that the scalars, histogram,
images and graph come back as the script wrote them (the constants there,
computed here independently); then, when the Fashion-MNIST data is
installed, runs the MLP example on a little data with --logdir and checks
its summaries. Exits 77 (SKIPPED in CTest) when tensorboard is not
importable: scripts/setup installs it.
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
try:
    from tensorboard.backend.event_processing import event_accumulator as ea
    from tensorboard.backend.event_processing import event_file_loader
except ImportError as e:
    print(f"SKIPPED: tensorboard is not importable ({e}); scripts/setup installs it")
    sys.exit(SKIP)

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def run_tfg(tfg, logdir, script, *args):
    cmd = [tfg, "--quiet", "--seed", "1", "--threads", "2", "--logdir", logdir, script, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        sys.exit(f"{' '.join(cmd)} exited with {p.returncode}")
    return p.stdout


def accumulator(logdir):
    acc = ea.EventAccumulator(logdir, size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.IMAGES: 0})
    acc.Reload()
    return acc


def decode_png(data):
    """(width, height, color type, rows of bytes) of an 8-bit unfiltered PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
    at, idat, header = 8, b"", None
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, f"bad CRC in {kind}"
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, color_type = header[:4]
    assert depth == 8
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color_type]
    raw = zlib.decompress(idat)
    stride = width * channels + 1
    rows = []
    for r in range(height):
        row = raw[r * stride:(r + 1) * stride]
        assert row[0] == 0, "filtered row"
        rows.append(list(row[1:]))
    return width, height, color_type, rows


def check_file_version(logdir):
    files = [f for f in os.listdir(logdir) if "tfevents" in f]
    check(len(files) == 1, f"one event file in {logdir}, found {files}")
    events = list(event_file_loader.EventFileLoader(os.path.join(logdir, files[0])).Load())
    check(events and events[0].file_version == "brain.Event:2", "first event has file_version brain.Event:2")


def check_scalars_and_histogram(acc):
    scalars = acc.Scalars("x_squared")
    check([e.step for e in scalars] == [0, 1, 2, 3], f"x_squared steps {[e.step for e in scalars]}")
    expected = [(s + 0.5) ** 2 for s in range(4)]
    check([e.value for e in scalars] == expected, f"x_squared values {[e.value for e in scalars]} != {expected}")
    histos = acc.Histograms("w")
    check(len(histos) == 4, f"4 histograms of w, found {len(histos)}")
    values = [1.0, 2.0, 2.0, 3.0, 10.0]
    for h in histos:
        v = h.histogram_value
        check((v.min, v.max, v.num) == (1.0, 10.0, 5.0), f"w min/max/num {(v.min, v.max, v.num)}")
        check(v.sum == sum(values), f"w sum {v.sum}")
        check(v.sum_squares == sum(x * x for x in values), f"w sum_squares {v.sum_squares}")
        check(sum(v.bucket) == 5, f"w bucket counts {list(v.bucket)}")
        for x in set(values):
            inside = [i for i, c in enumerate(v.bucket) if c > 0 and i > 0 and v.bucket_limit[i - 1] <= x < v.bucket_limit[i]]
            check(len(inside) == 1, f"value {x} in one occupied bucket of w")


def check_images(acc):
    tags = acc.Tags()["images"]
    check(sorted(tags) == ["gray/image/0", "gray/image/1", "rgb/image"], f"image tags {tags}")
    rgb = acc.Images("rgb/image")[0]
    check((rgb.width, rgb.height) == (3, 2), f"rgb size {(rgb.width, rgb.height)}")
    width, height, color_type, rows = decode_png(rgb.encoded_image_string)
    check((width, height, color_type) == (3, 2, 2), f"rgb PNG header {(width, height, color_type)}")
    check(rows == [[255, 0, 0, 0, 255, 0, 0, 0, 255], [0, 0, 0, 128, 128, 128, 255, 255, 255]], f"rgb pixels {rows}")
    # Floats scale by 255 and round; 2.0 clips to 1.
    expected = {"gray/image/0": [[0, 128], [255, 64]], "gray/image/1": [[255, 0], [191, 255]]}
    for tag, pixels in expected.items():
        image = acc.Images(tag)[0]
        width, height, color_type, rows = decode_png(image.encoded_image_string)
        check((width, height, color_type) == (2, 2, 0), f"{tag} PNG header {(width, height, color_type)}")
        check(rows == pixels, f"{tag} pixels {rows} != {pixels}")


def check_graph(acc):
    nodes = {n.name: n for n in acc.Graph().node}
    for name, op in [("x", "placeholder"), ("model/w", "variable"), ("model/y", "mul"), ("z", "identity")]:
        check(name in nodes and nodes[name].op == op, f"graph node {name} of op {op}")
    if "model/y" in nodes:
        y = nodes["model/y"]
        check(list(y.input) == ["x", "x"], f"model/y inputs {list(y.input)}")
        check(y.device.endswith("cpu:0"), f"model/y device '{y.device}'")
        check(y.attr["T"].type == 1, "model/y T is DT_FLOAT")
        shapes = y.attr["_output_shapes"].list.shape
        check(len(shapes) == 1 and len(shapes[0].dim) == 0 and not shapes[0].unknown_rank, "model/y is a scalar")
    if "z" in nodes:
        check(list(nodes["z"].input) == ["x", "^model/y"], f"z inputs {list(nodes['z'].input)}")
    if "model/w" in nodes:
        dims = [d.size for d in nodes["model/w"].attr["_output_shapes"].list.shape[0].dim]
        check(dims == [5], f"model/w output shape {dims}")


def check_example(tfg, examples_dir, tmp):
    if not os.path.isdir("/usr/share/datasets/fashion-mnist"):
        print("note: Fashion-MNIST is not installed; the example's summaries are not checked")
        return
    logdir = os.path.join(tmp, "mlp")
    out = run_tfg(tfg, logdir, os.path.join(examples_dir, "fashion_mnist_mlp.tfg"), "1", "640", "0", "500")
    printed = float(out.split()[-1])  # "epoch 1 test accuracy A"
    acc = accumulator(logdir)
    losses = acc.Scalars("loss")
    check([e.step for e in losses] == [0], f"example loss steps {[e.step for e in losses]}")  # 5 batches, every 20
    check(all(0 < e.value < 10 for e in losses), f"example losses {[e.value for e in losses]}")
    accuracy = acc.Scalars("test_accuracy")
    check(len(accuracy) == 1 and abs(accuracy[0].value - printed) < 1e-6,
          f"example test_accuracy {[e.value for e in accuracy]} != printed {printed}")
    check(len(acc.Histograms("hidden1/kernel")) == 1, "example histogram of hidden1/kernel")
    check(any(n.name.startswith("hidden1/") for n in acc.Graph().node), "example graph has hidden1/ nodes")
    tops = sorted({n.name.split("/")[0] for n in acc.Graph().node})
    check(tops == ["Adam", "correct", "gradients", "hidden1", "hidden2", "input", "logits", "loss", "summaries"],
          f"example graph's top-level boxes {tops}")
    # The CNN: 320 images are 5 batches of 64, so one summary step (0), the
    # accuracy at step 5, and four 28x28 training images at step 0.
    logdir = os.path.join(tmp, "cnn")
    out = run_tfg(tfg, logdir, os.path.join(examples_dir, "fashion_mnist_cnn.tfg"), "1", "320", "0", "200")
    printed = float(out.split()[-1])
    acc = accumulator(logdir)
    check([e.step for e in acc.Scalars("loss")] == [0], "cnn example loss steps")
    accuracy = acc.Scalars("test_accuracy")
    check([(e.step, round(e.value, 6)) for e in accuracy] == [(5, round(printed, 6))],
          f"cnn example test_accuracy {accuracy} != printed {printed}")
    check(len(acc.Histograms("conv1/kernel")) == 1, "cnn example histogram of conv1/kernel")
    images = [acc.Images(f"inputs/image/{i}") for i in range(4)]
    check(all(len(im) == 1 and (im[0].width, im[0].height, im[0].step) == (28, 28, 0) for im in images),
          "cnn example: four 28x28 input images at step 0")
    check(any(n.name.startswith("conv1/") for n in acc.Graph().node), "cnn example graph has conv1/ nodes")


def main():
    tfg, script_dir, examples_dir = sys.argv[1:4]
    with tempfile.TemporaryDirectory(prefix="tfg_tensorboard_") as tmp:
        logdir = os.path.join(tmp, "events")
        run_tfg(tfg, logdir, os.path.join(script_dir, "write_events.tfg"))
        check_file_version(logdir)
        acc = accumulator(logdir)
        check_scalars_and_histogram(acc)
        check_images(acc)
        check_graph(acc)
        check_example(tfg, examples_dir, tmp)
    if FAILURES:
        sys.exit(f"{len(FAILURES)} checks failed")
    print("ok: TensorBoard reads back the scalars, histograms, images and graph")


if __name__ == "__main__":
    main()
