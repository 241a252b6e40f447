// Control flow in the graph (white paper §4.4): cond and while_loop are
// made of a few primitive ops whose meaning lies in which frame and branch
// a value flows through, not in the value. The builders, grad() and every
// runtime pass that must treat these nodes apart recognise them here, so an
// op's name is spelled once, and the while-loop's node layout — the
// contract between the code that builds loops and the code that reads them
// back — is declared once.
#pragma once

#include "ops/core/graph.h"

namespace tfg {

inline constexpr char kSwitchOp[] = "switch";
inline constexpr char kMergeOp[] = "merge";
inline constexpr char kEnterOp[] = "enter";
inline constexpr char kExitOp[] = "exit";
inline constexpr char kNextIterationOp[] = "next_iteration";
inline constexpr char kLoopCondOp[] = "loop_cond";
inline constexpr char kControlTriggerOp[] = "control_trigger";

// switch(data, pred) -> (output_false, output_true); a cond's branches and
// a loop's body/exit both hang off these two outputs.
inline constexpr int kSwitchDataInput = 0;
inline constexpr int kSwitchPredInput = 1;
inline constexpr int kSwitchFalseOutput = 0;
inline constexpr int kSwitchTrueOutput = 1;

inline bool IsSwitch(const Node& n) { return n.op_name() == kSwitchOp; }
inline bool IsMerge(const Node& n) { return n.op_name() == kMergeOp; }
inline bool IsEnter(const Node& n) { return n.op_name() == kEnterOp; }
inline bool IsExit(const Node& n) { return n.op_name() == kExitOp; }
inline bool IsNextIteration(const Node& n) { return n.op_name() == kNextIterationOp; }
inline bool IsLoopCond(const Node& n) { return n.op_name() == kLoopCondOp; }
inline bool IsControlTrigger(const Node& n) { return n.op_name() == kControlTriggerOp; }

// The ops of cond and while_loop frames (not control_trigger: it carries no
// value and opens no frame or branch, it only waits).
bool IsControlFlow(const Node& n);

// An enter of a loop invariant: it holds one value for every iteration
// rather than starting a loop variable.
bool IsConstantEnter(const Node& n);

// The merge <- next_iteration edge that carries a loop variable into the
// next iteration: the graph's only kind of cycle, which topological orders
// skip and graph copies reconnect last. `in` is one of `consumer`'s inputs.
inline bool IsLoopBackEdge(const Node& consumer, const Output& in) {
  return IsMerge(consumer) && IsNextIteration(*in.node);
}

// The nodes while_loop builds (interp/language/builtins/builtins_while.cc;
// grad() builds its counter and backward loops the same way,
// ops/autodiff/while_gradients.cc), as grad() reads them back
// (ops/autodiff/while_loop_nodes.cc) and the executor runs them
// (interp/runtime/plan.cc, executor_frames.cc). Per loop variable:
//
//   x (outside the loop)
//   |
//   enter  {frame_name, is_constant=false, parallel_iterations}
//   |
//   | in 0: kMergeFromEnter
//   v
//   merge <-------------------------------------------+ in 1: kMergeFromNextIteration
//   |                                                 |
//   +-------------------> cond(...) --> loop_cond     |
//   |                                      |          |
//   | in 0: kSwitchDataInput               | in 1: kSwitchPredInput
//   v                                      |          |
//   switch <-------------------------------+          |
//   |                    |                            |
//   | out 0:             | out 1: kSwitchToBody       |
//   | kSwitchToExit      v                            |
//   v                    body(...) --> next_iteration +
//   exit
//   |
//   result (outside the loop)
//
// All enters of one loop share its frame_name and all its switches the one
// loop_cond. A merge is built before the body exists, so its input 1 starts
// as the enter again and is pointed at next_iteration (Node::ReplaceInput)
// once the body is built. A loop invariant is an enter with
// is_constant=true and nothing else: every iteration reads it directly.
namespace while_loop {

inline constexpr char kFrameNameAttr[] = "frame_name";
inline constexpr char kIsConstantAttr[] = "is_constant";
inline constexpr char kParallelIterationsAttr[] = "parallel_iterations";

inline constexpr int kMergeFromEnter = 0;
inline constexpr int kMergeFromNextIteration = 1;
inline constexpr int kMergeInputs = 2;

// The false side leaves the loop; the true side runs the body.
inline constexpr int kSwitchToExit = kSwitchFalseOutput;
inline constexpr int kSwitchToBody = kSwitchTrueOutput;

}  // namespace while_loop

}  // namespace tfg
