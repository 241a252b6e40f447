// Common subexpression elimination: the table of nodes already built,
// looked up by a hash of what a node computes and confirmed by comparing
// it in full.
#include <cstring>
#include <functional>

#include "interp/runtime/optimizer_passes.h"

namespace tfg {
namespace {

void Mix(size_t& h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); }

// Dtype, shape and the first bytes: enough to spread constants over
// buckets; equality is decided by AttrValuesEqual. String tensors hold
// std::string objects, whose bytes say nothing about the text.
size_t HashTensor(const Tensor& t) {
  size_t h = static_cast<size_t>(t.dtype());
  for (int64_t d : t.shape().dims()) Mix(h, static_cast<size_t>(d));
  if (t.dtype() == DType::kString || t.raw_data() == nullptr) return h;
  const size_t n = std::min<size_t>(t.bytes(), 64);
  Mix(h, std::hash<std::string_view>()(std::string_view(static_cast<const char*>(t.raw_data()), n)));
  return h;
}

size_t HashAttrs(const AttrMap& attrs) {
  size_t h = 0;
  for (const auto& [name, value] : attrs) {
    Mix(h, std::hash<std::string>()(name));
    if (const Tensor* t = std::get_if<Tensor>(&value)) {
      Mix(h, HashTensor(*t));
    } else {
      Mix(h, std::hash<std::string>()(AttrValueToString(value)));
    }
  }
  return h;
}

size_t HashNode(const std::string& op, const std::vector<Output>& inputs, const std::vector<Node*>& control,
                const std::string& device, const AttrMap& attrs) {
  size_t h = std::hash<std::string>()(op);
  for (const Output& in : inputs) {
    Mix(h, static_cast<size_t>(in.node->id()));
    Mix(h, static_cast<size_t>(in.index));
  }
  for (const Node* c : control) Mix(h, static_cast<size_t>(c->id()));
  Mix(h, std::hash<std::string>()(device));
  Mix(h, HashAttrs(attrs));
  return h;
}

bool SameAttrs(const AttrMap& a, const AttrMap& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || !AttrValuesEqual(ia->second, ib->second)) return false;
  }
  return true;
}

bool Computes(const Node& n, const NodeSpec& spec) {
  return n.op_name() == spec.op && n.inputs() == spec.inputs && n.control_inputs() == spec.control_inputs &&
         n.requested_device() == spec.device && SameAttrs(n.attrs(), spec.attrs);
}

}  // namespace

Node* CseTable::Find(const NodeSpec& spec) const {
  auto [begin, end] = by_hash_.equal_range(HashNode(spec.op, spec.inputs, spec.control_inputs, spec.device, spec.attrs));
  for (auto it = begin; it != end; ++it) {
    if (Computes(*it->second, spec)) return it->second;
  }
  return nullptr;
}

void CseTable::Insert(Node* node) {
  by_hash_.emplace(
      HashNode(node->op_name(), node->inputs(), node->control_inputs(), node->requested_device(), node->attrs()),
      node);
}

}  // namespace tfg
