#include "interp/runtime/partition.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "interp/runtime/colocation.h"
#include "ops/core/control_flow.h"

namespace tfg {
namespace {

class Partitioner {
 public:
  Partitioner(const Graph& g, const std::vector<int32_t>& device_of, const DeviceSet& devices)
      : g_(g), device_of_(device_of), devices_(devices), images_(g.num_nodes(), nullptr),
        piece_of_device_(devices.size(), -1) {}

  Status CopyAll();
  GraphPartition& Piece(int device);
  Node* Image(const Node* n) const { return images_[n->id()]; }
  int DeviceOf(const Node* n) const { return device_of_[n->id()]; }
  PartitionedGraph Take() { return std::move(out_); }

 private:
  Status Copy(const Node& n);
  Result<Output> MapInput(const Output& in, int dst);
  Result<Node*> MapControl(const Node& c, int dst);
  // A _send of `value` (an output in the source device's graph) and the
  // matching _recv on `dst`; returns the _recv.
  Result<Node*> Transfer(Output value, const std::string& tensor_name, const Node& src, int dst);
  Status ConnectBackEdges();

  struct BackEdge {
    Node* merge;  // the image
    int input;
    Output source;  // in g
  };

  const Graph& g_;
  const std::vector<int32_t>& device_of_;
  const DeviceSet& devices_;
  std::vector<Node*> images_;         // by node id of g
  std::vector<int> piece_of_device_;  // -1: no piece yet
  std::map<std::tuple<int, int, int>, Output> recvs_;   // (node, output, dst) -> its _recv
  std::map<std::pair<int, int>, Node*> control_recvs_;  // (node, dst) -> its _recv
  std::vector<BackEdge> back_edges_;
  PartitionedGraph out_;
};

GraphPartition& Partitioner::Piece(int device) {
  int& index = piece_of_device_[device];
  if (index < 0) {
    index = static_cast<int>(out_.partitions.size());
    GraphPartition p;
    p.device = device;
    p.graph = std::make_unique<Graph>();
    out_.partitions.push_back(std::move(p));
  }
  return out_.partitions[index];
}

Status Partitioner::CopyAll() {
  for (const Node* n : NodesInTopologicalOrder(g_)) TFG_RETURN_IF_ERROR(Copy(*n));
  return ConnectBackEdges();
}

// A loop's merge was built with its first input in place of the
// next_iteration that feeds it back; both are on one device.
Status Partitioner::ConnectBackEdges() {
  for (const BackEdge& e : back_edges_) {
    Node* src = Image(e.source.node);
    if (src == nullptr || src->assigned_device() != e.merge->assigned_device()) {
      return Status(Code::kInternal, "partitioning: a while_loop was split across devices", e.merge->span());
    }
    Status s = e.merge->ReplaceInput(e.input, src->output(e.source.index));
    if (!s.ok()) return s.WithSpan(e.merge->span());
  }
  return Status::OK();
}

Status Partitioner::Copy(const Node& n) {
  const int dst = DeviceOf(&n);
  NodeSpec spec;
  spec.op = n.op_name();
  std::vector<int> back;
  for (size_t i = 0; i < n.inputs().size(); ++i) {
    const Output& in = n.inputs()[i];
    if (IsLoopBackEdge(n, in) && Image(in.node) == nullptr) {
      back.push_back(static_cast<int>(i));
      TFG_ASSIGN_OR_RETURN(Output first, MapInput(n.inputs()[while_loop::kMergeFromEnter], dst));
      spec.inputs.push_back(first);
      continue;
    }
    TFG_ASSIGN_OR_RETURN(Output mapped, MapInput(in, dst));
    spec.inputs.push_back(mapped);
  }
  for (const Node* c : n.control_inputs()) {
    TFG_ASSIGN_OR_RETURN(Node * mapped, MapControl(*c, dst));
    spec.control_inputs.push_back(mapped);
  }
  spec.attrs = n.attrs();
  spec.name = n.name();
  spec.device = n.requested_device();
  spec.span = n.span();
  auto added = Piece(dst).graph->AddNode(std::move(spec));
  if (!added.ok()) return Status(added.status()).WithSpan(n.span());
  Node* image = *added;
  image->set_assigned_device(devices_.device(dst)->name());
  for (int i = 0; i < image->num_outputs(); ++i) {
    Status s = image->RefineOutputShape(i, n.output_shapes()[i]);
    if (!s.ok()) return s.WithSpan(n.span());
  }
  for (int i : back) back_edges_.push_back({image, i, n.inputs()[i]});
  images_[n.id()] = image;
  return Status::OK();
}

Result<Output> Partitioner::MapInput(const Output& in, int dst) {
  Node* src = Image(in.node);
  if (src == nullptr) return Status(Code::kInternal, "partitioning: an input is not ready", in.node->span());
  if (DeviceOf(in.node) == dst) return src->output(in.index);
  auto key = std::make_tuple(in.node->id(), in.index, dst);
  auto it = recvs_.find(key);
  if (it != recvs_.end()) return it->second;
  TFG_ASSIGN_OR_RETURN(Node * recv, Transfer(src->output(in.index), in.name(), *in.node, dst));
  recvs_.emplace(key, recv->output(0));
  return recv->output(0);
}

// Only the producer's completion crosses: a dummy scalar that runs after it.
Result<Node*> Partitioner::MapControl(const Node& c, int dst) {
  Node* src = Image(&c);
  if (src == nullptr) return Status(Code::kInternal, "partitioning: a control input is not ready", c.span());
  if (DeviceOf(&c) == dst) return src;
  auto key = std::make_pair(c.id(), dst);
  auto it = control_recvs_.find(key);
  if (it != control_recvs_.end()) return it->second;
  NodeSpec dummy;
  dummy.op = "constant";
  dummy.attrs["value"] = Tensor::Scalar<bool>(true);
  dummy.attrs["dtype"] = DType::kBool;
  dummy.control_inputs.push_back(src);
  dummy.name = c.name() + "/_done";
  dummy.span = c.span();
  GraphPartition& from = Piece(DeviceOf(&c));
  auto done = from.graph->AddNode(std::move(dummy));
  if (!done.ok()) return Status(done.status()).WithSpan(c.span());
  (*done)->set_assigned_device(src->assigned_device());
  TFG_ASSIGN_OR_RETURN(Node * recv, Transfer((*done)->output(0), c.name() + ":control", c, dst));
  control_recvs_.emplace(key, recv);
  return recv;
}

Result<Node*> Partitioner::Transfer(Output value, const std::string& tensor_name, const Node& src, int dst) {
  const int from = DeviceOf(&src);
  const std::string& send_device = devices_.device(from)->name();
  const std::string& recv_device = devices_.device(dst)->name();
  const std::string suffix = fmt::format("{}_{}", devices_.spec(dst).type, *devices_.spec(dst).id);
  NodeSpec send;
  send.op = "_send";
  send.inputs.push_back(value);
  send.attrs["tensor_name"] = tensor_name;
  send.attrs["send_device"] = send_device;
  send.attrs["recv_device"] = recv_device;
  send.name = src.name() + "/_send_to_" + suffix;
  send.span = src.span();
  GraphPartition& src_piece = Piece(from);
  auto sent = src_piece.graph->AddNode(std::move(send));
  if (!sent.ok()) return Status(sent.status()).WithSpan(src.span());
  (*sent)->set_assigned_device(send_device);
  src_piece.targets.push_back(*sent);
  NodeSpec recv;
  recv.op = "_recv";
  recv.attrs["tensor_type"] = value.dtype();
  recv.attrs["shape"] = value.shape();
  recv.attrs["tensor_name"] = tensor_name;
  recv.attrs["send_device"] = send_device;
  recv.attrs["recv_device"] = recv_device;
  recv.name = src.name() + "/_recv_on_" + suffix;
  recv.span = src.span();
  auto received = Piece(dst).graph->AddNode(std::move(recv));
  if (!received.ok()) return Status(received.status()).WithSpan(src.span());
  (*received)->set_assigned_device(recv_device);
  ++out_.sends;
  return *received;
}

}  // namespace

Result<PartitionedGraph> PartitionGraph(const Graph& g, const std::vector<int32_t>& device_of,
                                        const DeviceSet& devices, const std::vector<Output>& feeds,
                                        const std::vector<Output>& fetches, const std::vector<Node*>& targets) {
  Partitioner p(g, device_of, devices);
  TFG_RETURN_IF_ERROR(p.CopyAll());
  for (size_t i = 0; i < feeds.size(); ++i) {
    GraphPartition& piece = p.Piece(p.DeviceOf(feeds[i].node));
    piece.feeds.push_back(p.Image(feeds[i].node)->output(feeds[i].index));
    piece.feed_index.push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    GraphPartition& piece = p.Piece(p.DeviceOf(fetches[i].node));
    piece.fetches.push_back(p.Image(fetches[i].node)->output(fetches[i].index));
    piece.fetch_index.push_back(static_cast<int>(i));
  }
  for (const Node* t : targets) p.Piece(p.DeviceOf(t)).targets.push_back(p.Image(t));
  return p.Take();
}

}  // namespace tfg
