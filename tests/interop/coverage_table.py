#!/usr/bin/env python3
"""Regenerates the op coverage table of docs/tensorflow-interop.md from
ops/tf_op_map.tsv (the table between the coverage-table markers).

  python3 tests/interop/coverage_table.py [--check]   (--check: exit 1 when stale)
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "tensorflow-interop.md"
BEGIN, END = "<!-- coverage-table:begin -->", "<!-- coverage-table:end -->"
# Ops the importer translates besides the table's rows (interp/interop/node_converter.cc;
# If, While and Case: interp/interop/lower_functional.cc, import only).
SPECIAL = [("Const", "constant", "the value becomes the node's tensor"),
           ("Placeholder", "placeholder", "or the input_map= tensor"),
           ("VariableV2, VarHandleOp", "variable", "shared name: the imported node's name"),
           ("ReadVariableOp", "identity", "of the variable"),
           ("AssignVariableOp", "assign", "of the variable"),
           ("If, StatelessIf", "switch, merge",
            "import only: `Switch`es into the inlined `then_branch`/`else_branch` functions, a `Merge` per output"),
           ("While, StatelessWhile", "enter, merge, loop_cond, switch, exit, next_iteration",
            "import only: a frame around the inlined `cond` and `body` functions"),
           ("Case, StatelessCase", "equal, switch, merge",
            "import only: a cascade of `Switch`es on `index == k` into the inlined `branches`, a `Merge` per output")]

# tfg ops that export writes as small compositions of TensorFlow ops
# (interp/interop/export_composite.cc), checked by training the exported
# graphs in TensorFlow (tests/interop/record_training.py).
COMPOSITES = [
    ("unbroadcast", "`Sum(grad, BroadcastGradientArgs(Shape(like), Shape(grad))[0])`, `Reshape` to `Shape(like)`"),
    ("reshape_like", "`Reshape(x, Shape(like))`"),
    ("sum_grad", "`BroadcastTo(Reshape(dy, kept shape), Shape(x))`; the kept shape: `TensorScatterUpdate` of "
                 "`Shape(x)` with 1 at the reduced axes"),
    ("mean_grad", "as `sum_grad`, `RealDiv` by `Size(x) / max(Size(dy), 1)`, as TensorFlow's gradient of `Mean`"),
    ("sparse_softmax_cross_entropy", "`SparseSoftmaxCrossEntropyWithLogits:0`; other ranks than 2 flattened to "
                                     "`[-1, classes]` and reshaped back"),
    ("sparse_softmax_cross_entropy_grad", "`SparseSoftmaxCrossEntropyWithLogits:1 * ExpandDims(dloss, -1)`"),
    ("softmax_cross_entropy_with_logits", "`SoftmaxCrossEntropyWithLogits:0` (flattened as above)"),
    ("softmax_cross_entropy_grad", "`SoftmaxCrossEntropyWithLogits:1 * ExpandDims(dloss, -1)`"),
    ("lstm_block_cell", "`Split` into i, j, f, o; `c = Sigmoid(f + forget_bias) * c_prev + Sigmoid(i) * Tanh(j)` "
                        "(node `<name>`), `h = Sigmoid(o) * Tanh(c)` (node `<name>/h`)"),
    ("lstm_block_cell_grad", "`SigmoidGrad`/`TanhGrad` of the recomputed gates, `ConcatV2` (dgates, node "
                             "`<name>`), dc_prev (node `<name>/dc_prev`)"),
    ("gather_grad", "`UnsortedSegmentSum(values, indices, Shape(params)[0])`; along another axis, values' index "
                    "axes `Transpose`d to the front and the sum transposed back"),
    ("segment_gather", "`GatherV2` of params with a zero row appended, negative ids reading it"),
    ("zeros", "`Fill(shape, 0)`"),
    ("ones", "`Fill(shape, 1)`"),
    ("conv2d_backprop_input", "`Conv2DBackpropInput(Shape(input), filter, dy)`"),
    ("conv2d_backprop_filter", "`Conv2DBackpropFilter(input, Shape(filter), dy)`"),
    ("depthwise_conv2d_backprop_input", "`DepthwiseConv2dNativeBackpropInput(Shape(input), filter, dy)`"),
    ("depthwise_conv2d_backprop_filter", "`DepthwiseConv2dNativeBackpropFilter(input, Shape(filter), dy)`"),
    ("max_pool_grad", "`MaxPoolGrad(input, MaxPool(input), dy)`"),
    ("max_pool_grad_grad", "`MaxPoolGradGrad(input, MaxPool(input), grad)`"),
    ("softmax", "`Softmax`; along another axis than the last, between two `Transpose`s swapping it to the end"),
    ("log_softmax", "`LogSoftmax`, as `softmax`"),
    ("softmax_grad", "`(dy - Sum(dy * y, axis, keep_dims)) * y`"),
    ("log_softmax_grad", "`dy - Exp(y) * Sum(dy, axis, keep_dims)`"),
    ("max_grad", "`Equal(x, y)` cast to 0/1, divided by its `Sum` over the reduced axes (ties share), times dy "
                 "(a NaN maximum selects nothing in TensorFlow)"),
    ("min_grad", "as `max_grad`"),
    ("prod_grad", "reduced axes `Transpose`d to the front and flattened, exclusive `Cumprod` forward times backward "
                  "(exact with zeros), transposed back, times dy; x's rank must be known"),
    ("pad_grad", "`Slice(dy, before, Shape(x))`; REFLECT and SYMMETRIC: `MirrorPadGrad`"),
    ("strided_slice_grad", "`StridedSliceGrad(Shape(x), begin, end, strides, dy)`"),
]


def table():
    rows = ["| TensorFlow op | tfg op | attrs (tfg=TensorFlow; @N: TensorFlow's input N) | notes |",
            "|---|---|---|---|"]
    for tf_op, tfg, note in SPECIAL:
        rows.append(f"| `{tf_op}` | `{tfg}` | | {note} |")
    no_tf = []
    for line in (ROOT / "ops" / "tf_op_map.tsv").read_text().splitlines():
        if line.startswith("#") or line.startswith("tfg\t"):
            continue
        tfg, kind, tf_op, _api, attrs, note = (line.split("\t") + ["-"] * 6)[:6]
        if kind != "op":
            continue
        if tf_op == "-":
            no_tf.append(f"`{tfg}`")
            continue
        attrs = "" if attrs == "-" else attrs.replace(",", ", ")
        note = "" if note == "-" else note.replace("|", "\\|")
        rows.append(f"| `{tf_op}` | `{tfg}` | {attrs} | {note} |")
    rows.append("")
    rows.append("Exported as compositions of TensorFlow ops (tfg ops TensorFlow has no op for, or whose "
                "TensorFlow op takes other inputs):")
    rows.append("")
    rows.append("| tfg op | TensorFlow ops |")
    rows.append("|---|---|")
    composed = {tfg for tfg, _ in COMPOSITES}
    for tfg, how in COMPOSITES:
        rows.append(f"| `{tfg}` | {how} |")
    no_tf = [op for op in no_tf if op.strip("`") not in composed]
    rows.append("")
    rows.append("tfg ops with no TensorFlow op (export refuses them, naming each): " + ", ".join(no_tf) + ".")
    return "\n".join(rows)


def main():
    text = DOC.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{table()}\n{END}{tail}"
    if "--check" in sys.argv:
        sys.exit(0 if new == text else 1)
    DOC.write_text(new)


if __name__ == "__main__":
    main()
