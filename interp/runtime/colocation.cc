#include "interp/runtime/colocation.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>

#include "ops/core/control_flow.h"

namespace tfg {
namespace {

// The resource a node's attrs name: (container, shared name or node name).
void ResourceKeys(const Node& n, std::vector<std::pair<std::string, std::string>>& keys) {
  auto str = [&n](const std::string& attr) {
    const std::string* s = n.attr<std::string>(attr);
    return s ? *s : std::string();
  };
  if (n.attr<std::string>("shared_name") != nullptr) {
    std::string name = str("shared_name");
    keys.emplace_back(str("container"), name.empty() ? n.name() : name);
  }
  for (const std::string& param : n.op().variables) {
    std::string name = str(param);
    if (!name.empty()) keys.emplace_back(str(param + "_container"), name);
  }
}

}  // namespace

DeviceRequest SplitDeviceRequest(const std::string& requested) {
  size_t at = requested.find('@');
  if (at == std::string::npos) return {requested, ""};
  return {requested.substr(0, at), requested.substr(at + 1)};
}

std::vector<const Node*> NodesInTopologicalOrder(const Graph& g) {
  const int n = g.num_nodes();
  std::vector<int32_t> indegree(n, 0);
  std::vector<std::vector<int32_t>> consumers(n);
  for (const auto& node : g.nodes()) {
    for (const Output& in : node->inputs()) {
      if (IsLoopBackEdge(*node, in)) continue;
      consumers[in.node->id()].push_back(node->id());
      ++indegree[node->id()];
    }
    for (const Node* c : node->control_inputs()) {
      consumers[c->id()].push_back(node->id());
      ++indegree[node->id()];
    }
  }
  std::deque<int32_t> ready;
  for (int i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push_back(i);
  }
  std::vector<const Node*> order;
  std::vector<char> done(n, 0);
  while (!ready.empty()) {
    int32_t i = ready.front();
    ready.pop_front();
    order.push_back(g.node(i));
    done[i] = 1;
    for (int32_t c : consumers[i]) {
      if (--indegree[c] == 0) ready.push_back(c);
    }
  }
  // A cycle is reported by the plan; here its nodes just come last.
  for (int i = 0; i < n; ++i) {
    if (!done[i]) order.push_back(g.node(i));
  }
  return order;
}

ColocationGroups::ColocationGroups(const Graph& g) : parent_(g.num_nodes()), reason_(g.num_nodes()) {
  for (int i = 0; i < g.num_nodes(); ++i) parent_[i] = i;
  JoinResources(g);
  JoinFrames(g);
  JoinRequested(g);
}

int32_t ColocationGroups::Find(int32_t x) const {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];
    x = parent_[x];
  }
  return x;
}

int32_t ColocationGroups::group_of(int32_t node_id) const { return Find(node_id); }

void ColocationGroups::Union(int32_t a, int32_t b, const std::string& why) {
  if (reason_[b].empty()) reason_[b] = why;
  if (reason_[a].empty()) reason_[a] = why;
  int32_t ra = Find(a), rb = Find(b);
  if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
}

// Every user of a resource joins its first user (usually the op that holds
// it); a queue's or reader's handle (a string output of an op with a
// shared_name) joins its consumers.
void ColocationGroups::JoinResources(const Graph& g) {
  std::map<std::pair<std::string, std::string>, int32_t> first_user;
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& node : g.nodes()) {
    keys.clear();
    ResourceKeys(*node, keys);
    for (const auto& key : keys) {
      auto [it, inserted] = first_user.emplace(key, node->id());
      if (!inserted) Union(it->second, node->id(), fmt::format("uses the resource '{}'", key.second));
    }
    for (const Output& in : node->inputs()) {
      if (in.dtype() == DType::kString && in.node->attr<std::string>("shared_name") != nullptr) {
        Union(in.node->id(), node->id(), fmt::format("uses '{}'", in.node->name()));
      }
    }
  }
}

// The frame of each node as the plan assigns it (an enter's consumers are
// in the frame it enters, an exit's in its parent); every node of a loop
// frame joins the enter that opened it.
void ColocationGroups::JoinFrames(const Graph& g) {
  struct Frame {
    int32_t parent;
    std::string name;
    int32_t root;  // the enter that opened it
  };
  std::vector<Frame> frames{{-1, "", -1}};
  std::vector<int32_t> frame_of(g.num_nodes(), 0), entered(g.num_nodes(), -1);
  for (const Node* n : NodesInTopologicalOrder(g)) {
    const Node* src = nullptr;
    for (const Output& in : n->inputs()) {
      if (!IsLoopBackEdge(*n, in)) {
        src = in.node;
        break;
      }
    }
    if (src == nullptr && !n->control_inputs().empty()) src = n->control_inputs()[0];
    if (src != nullptr) {
      int32_t f = frame_of[src->id()];
      if (IsEnter(*src) && entered[src->id()] >= 0) f = entered[src->id()];
      if (IsExit(*src) && f > 0) f = frames[f].parent;
      frame_of[n->id()] = f;
    }
    const int32_t f = frame_of[n->id()];
    if (f > 0) Union(frames[f].root, n->id(), fmt::format("is in the while_loop '{}'", frames[f].name));
    if (!IsEnter(*n)) continue;
    const std::string* name = n->attr<std::string>(while_loop::kFrameNameAttr);
    std::string frame_name = name ? *name : std::string();
    int32_t child = -1;
    for (size_t i = 1; i < frames.size(); ++i) {
      if (frames[i].parent == f && frames[i].name == frame_name) child = static_cast<int32_t>(i);
    }
    if (child < 0) {
      frames.push_back({f, frame_name, n->id()});
      child = static_cast<int32_t>(frames.size() - 1);
    }
    entered[n->id()] = child;
    Union(frames[child].root, n->id(), fmt::format("is in the while_loop '{}'", frame_name));
  }
}

void ColocationGroups::JoinRequested(const Graph& g) {
  for (const auto& node : g.nodes()) {
    DeviceRequest r = SplitDeviceRequest(node->requested_device());
    if (r.colocate_with.empty()) continue;
    const Node* target = g.FindNode(r.colocate_with);
    if (target != nullptr) Union(target->id(), node->id(), fmt::format("is colocated with '{}'", target->name()));
  }
}

}  // namespace tfg
