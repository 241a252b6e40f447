// Finding the while_loops of a graph again from its nodes, for grad():
// while_loop builds each loop with a fixed layout (namespace while_loop in
// ops/core/control_flow.h), which this reads back from the enters of each
// frame.
#include <algorithm>
#include <map>

#include "ops/autodiff/backprop.h"
#include "ops/core/control_flow.h"

namespace tfg {

bool WhileLoopNodes::IsFrameNode(const Node* n) const {
  if (n == pred.node) return true;
  for (const Var& v : vars) {
    if (n == v.enter || n == v.merge || n == v.sw || n == v.exit || n == v.next) return true;
  }
  return false;
}

const WhileLoopNodes* WhileLoopNodes::InnerLoopOf(const Node* n) const {
  for (const WhileLoopNodes& l : inner) {
    if (l.Contains(n)) return &l;
  }
  return nullptr;
}

namespace {

using Consumers = std::vector<std::vector<Node*>>;

Consumers FindConsumers(const Graph& g) {
  Consumers out(g.num_nodes());
  for (const auto& n : g.nodes()) {
    for (const Output& in : n->inputs()) out[in.node->id()].push_back(n.get());
    for (Node* c : n->control_inputs()) out[c->id()].push_back(n.get());
  }
  return out;
}

// The node of kind `is` whose first input is `o`: each link of a loop
// variable's chain reads the previous one through its input 0.
Node* ConsumerOf(const Consumers& consumers, Output o, bool (*is)(const Node&)) {
  for (Node* c : consumers[o.node->id()]) {
    if (is(*c) && !c->inputs().empty() && c->inputs()[0] == o) return c;
  }
  return nullptr;
}

Status NotUnderstood(const Node* enter, const std::string& why) {
  return Status(Code::kUnimplemented,
                fmt::format("grad: gradients through this while_loop are not supported yet: {}", why),
                enter->span());
}

// Every node reachable from the frame's enters without leaving it through
// one of its own exits (a loop inside it is passed through).
void CollectMembers(const Consumers& consumers, WhileLoopNodes& loop, const std::vector<Node*>& enters) {
  std::unordered_set<const Node*> own_exits;
  for (const WhileLoopNodes::Var& v : loop.vars) own_exits.insert(v.exit);
  std::vector<Node*> stack(enters.begin(), enters.end());
  for (Node* e : enters) loop.member_set.insert(e);
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    loop.members.push_back(n);
    if (own_exits.count(n)) continue;
    for (Node* c : consumers[n->id()]) {
      if (loop.member_set.insert(c).second) stack.push_back(c);
    }
  }
  std::sort(loop.members.begin(), loop.members.end(), [](const Node* a, const Node* b) { return a->id() < b->id(); });
}

// The nodes of a loop variable that follow its enter; null where one is
// missing (a graph while_loop did not build).
WhileLoopNodes::Var FollowVar(const Consumers& consumers, Node* enter) {
  WhileLoopNodes::Var v;
  v.enter = enter;
  v.merge = ConsumerOf(consumers, enter->output(0), IsMerge);
  if (v.merge && v.merge->inputs().size() == while_loop::kMergeInputs) {
    v.next = v.merge->inputs()[while_loop::kMergeFromNextIteration].node;
  }
  if (v.merge) v.sw = ConsumerOf(consumers, v.merge->output(0), IsSwitch);
  if (v.sw) v.exit = ConsumerOf(consumers, v.sw->output(while_loop::kSwitchToExit), IsExit);
  return v;
}

Result<WhileLoopNodes::Var> ReadVar(const Consumers& consumers, Node* enter) {
  WhileLoopNodes::Var v = FollowVar(consumers, enter);
  if (!v.next || !IsNextIteration(*v.next) || !v.exit) {
    return NotUnderstood(enter, "it was not built by while_loop");
  }
  return v;
}

Result<WhileLoopNodes> ReadLoop(const Consumers& consumers, const std::string& frame,
                                const std::vector<Node*>& enters) {
  WhileLoopNodes loop;
  loop.frame = frame;
  for (Node* e : enters) {
    if (IsConstantEnter(*e)) {
      loop.invariants.push_back(e);
      continue;
    }
    const int64_t* parallel = e->attr<int64_t>(while_loop::kParallelIterationsAttr);
    if (parallel) loop.parallel_iterations = *parallel;
    TFG_ASSIGN_OR_RETURN(WhileLoopNodes::Var v, ReadVar(consumers, e));
    loop.vars.push_back(v);
  }
  if (loop.vars.empty()) return NotUnderstood(enters[0], "it has no loop variable");
  loop.pred = loop.vars[0].sw->inputs()[kSwitchPredInput];
  for (const WhileLoopNodes::Var& v : loop.vars) {
    if (v.sw->inputs()[kSwitchPredInput] != loop.pred) return NotUnderstood(v.enter, "its switches disagree on the predicate");
  }
  CollectMembers(consumers, loop, enters);
  return loop;
}

// Moves each loop into the `inner` of the smallest other loop it lies in;
// returns the loops that lie in none.
std::vector<WhileLoopNodes> Nest(std::vector<WhileLoopNodes> loops) {
  // Smallest first, so a loop's inner loops are complete before it moves.
  std::sort(loops.begin(), loops.end(),
            [](const WhileLoopNodes& a, const WhileLoopNodes& b) { return a.members.size() < b.members.size(); });
  std::vector<bool> moved(loops.size(), false);
  for (size_t i = 0; i < loops.size(); ++i) {
    for (size_t j = i + 1; j < loops.size(); ++j) {
      if (loops[j].Contains(loops[i].vars[0].enter)) {
        loops[j].inner.push_back(std::move(loops[i]));
        moved[i] = true;
        break;
      }
    }
  }
  std::vector<WhileLoopNodes> outermost;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (!moved[i]) outermost.push_back(std::move(loops[i]));
  }
  return outermost;
}

}  // namespace

Result<std::vector<WhileLoopNodes>> FindWhileLoops(const Graph& g, const std::vector<bool>& relevant,
                                                   std::vector<int>* loop_of) {
  loop_of->assign(g.num_nodes(), -1);
  std::map<std::string, std::vector<Node*>> enters;
  for (const auto& n : g.nodes()) {
    if (IsEnter(*n)) enters[*n->attr<std::string>(while_loop::kFrameNameAttr)].push_back(n.get());
  }
  std::vector<WhileLoopNodes> loops;
  if (enters.empty()) return loops;
  const Consumers consumers = FindConsumers(g);
  for (const auto& [frame, frame_enters] : enters) {
    bool needed = false;
    for (Node* e : frame_enters) {
      const Node* exit = IsConstantEnter(*e) ? nullptr : FollowVar(consumers, e).exit;
      needed = needed || (exit && relevant[exit->id()]);
    }
    if (!needed) continue;
    TFG_ASSIGN_OR_RETURN(WhileLoopNodes loop, ReadLoop(consumers, frame, frame_enters));
    loops.push_back(std::move(loop));
  }
  std::vector<WhileLoopNodes> outermost = Nest(std::move(loops));
  for (size_t i = 0; i < outermost.size(); ++i) {
    for (const Node* m : outermost[i].members) (*loop_of)[m->id()] = static_cast<int>(i);
  }
  return outermost;
}

}  // namespace tfg
