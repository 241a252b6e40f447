// tfg ops with no TensorFlow op of their own — the gradient helpers that
// tfg's autodiff emits (unbroadcast, reshape_like, sum_grad, mean_grad, the
// cross-entropy gradients, gather_grad, segment_gather, and those of
// export_grad_composite.h) and the fused LSTM cell — exported as small
// compositions of TensorFlow ops that compute the same values, so a
// training graph (its gradients and optimizer updates) runs in TensorFlow.
//
// A composite's output 0 keeps the tfg node's name; its other outputs are
// TensorFlow nodes named "<node>/<output name>" (CompositeOutputName).
// The composition's own nodes are "<node>/<part>".
#pragma once

#include <functional>
#include <string>

#include "ops/core/graph.h"
#include "ops/core/status.h"
#include "proto/tf_graph.pb.h"

namespace tfg::interop {

bool HasComposite(const std::string& tfg_op);

// A tfg node's requested device on a NodeDef: "DEVICE@name" (colocated
// with the node `name`) becomes device DEVICE and TensorFlow's
// `_class: ["loc:@name"]`.
void SetTfDevice(tf::NodeDef* d, const std::string& requested);

// The TensorFlow tensor name ("node", "node/h") of output `index` of a
// node whose op HasComposite.
std::string CompositeOutputName(const Node& n, int index);

// Appends the composition for `n` to `out`; `tensor_name` names the
// TensorFlow tensor of each of n's inputs. Errors name the node and say
// what is not supported yet (a cross-entropy gradient of logits whose class
// count is unknown, prod_grad or gather_grad along another axis than 0 of
// inputs of unknown rank, negative pad_grad paddings).
Status ExportComposite(const Node& n, const std::function<std::string(const Output&)>& tensor_name,
                       tf::GraphDef& out);

}  // namespace tfg::interop
