"""TensorFlow 1.x pieces shared by char_rnn_tf.py and char_rnn_bpc_tf.py: an
LSTM cell on TensorFlow's fused LSTMBlockCell kernel (tf.contrib.rnn's
LSTMBlockCell, gone from TF 2.x's Python API but not from its kernels)."""
import tensorflow as tf
from tensorflow.python.framework import ops
from tensorflow.python.ops import rnn_cell_impl


@ops.RegisterGradient("LSTMBlockCell")
def _lstm_block_cell_grad(op, *grad):
    """tf.contrib.rnn's gradient of LSTMBlockCell (LSTMBlockCellGrad + the matmul's)."""
    x, cs_prev, h_prev, w, wci, wcf, wco, b = op.inputs
    i, cs, f, o, ci, co, _ = op.outputs
    _, cs_grad, _, _, _, _, h_grad = grad
    batch_size = tf.shape(x)[0]
    input_size = tf.shape(x)[1]
    cell_size = tf.shape(cs_prev)[1]
    cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad = tf.raw_ops.LSTMBlockCellGrad(
        x=x, cs_prev=cs_prev, h_prev=h_prev, w=w, wci=wci, wcf=wcf, wco=wco, b=b, i=i, cs=cs, f=f, o=o, ci=ci,
        co=co, cs_grad=cs_grad, h_grad=h_grad, use_peephole=op.get_attr("use_peephole"))
    xh = tf.concat([x, h_prev], 1)
    xh_grad = tf.matmul(dicfo, w, transpose_b=True)
    x_grad = tf.slice(xh_grad, (0, 0), (batch_size, input_size))
    h_prev_grad = tf.slice(xh_grad, (0, input_size), (batch_size, cell_size))
    w_grad = tf.matmul(xh, dicfo, transpose_a=True)
    b_grad = tf.reduce_sum(dicfo, 0)
    return [x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad, wco_grad, b_grad]


class LSTMBlockCell(rnn_cell_impl.LayerRNNCell):
    """tf.contrib.rnn.LSTMBlockCell without peepholes: gates i, j, f, o as LSTMCell's."""

    def __init__(self, num_units, forget_bias=1.0, name=None):
        super().__init__(name=name or "lstm_cell")
        self._num_units = num_units
        self._forget_bias = forget_bias

    @property
    def state_size(self):
        return rnn_cell_impl.LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = inputs_shape[-1]
        self._kernel = self.add_weight("kernel", [depth + self._num_units, 4 * self._num_units])
        self._bias = self.add_weight("bias", [4 * self._num_units], initializer=tf.compat.v1.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        c, h = state
        zeros = tf.zeros([self._num_units], inputs.dtype)
        _, cs, _, _, _, _, h2 = tf.raw_ops.LSTMBlockCell(
            x=inputs, cs_prev=c, h_prev=h, w=self._kernel, wci=zeros, wcf=zeros, wco=zeros, b=self._bias,
            forget_bias=self._forget_bias, cell_clip=-1.0, use_peephole=False)
        return h2, rnn_cell_impl.LSTMStateTuple(cs, h2)


def lstm_block_cell(num_units):
    return LSTMBlockCell(num_units)
