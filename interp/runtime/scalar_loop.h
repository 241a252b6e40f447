// A while_loop whose values are all numeric scalars, compiled to a register
// machine. Run node by node, such a loop spends its time making and
// freeing one-element tensors and on the executor's per-edge bookkeeping,
// not on arithmetic; here each iteration is one pass over a fixed list of
// instructions on 8-byte registers, with the functions of
// ops/core/scalar_fn.h doing the math.
//
// The semantics are the executor's: every node of the frame runs once per
// iteration, live or dead; a switch makes one side dead; a merge takes its
// live input; the loop goes on while a next_iteration is live; the exits
// keep the values of the last iteration. A loop variable whose
// next_iteration is dead while another's is live (only a hand-built graph
// can do that) is dead in the next iteration.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "ops/core/scalar_fn.h"
#include "ops/core/tensor.h"

namespace tfg {

struct Plan;

class ScalarLoop {
 public:
  // Null when some node of `frame` is not a scalar computation this path
  // knows (the loop then runs on the general sequential path).
  static std::unique_ptr<const ScalarLoop> Compile(const Plan& plan, int32_t frame);

  // Per-run state: one per live instance of the loop.
  struct Registers {
    std::vector<ScalarValue> value;
    std::vector<uint8_t> dead;
  };
  Registers MakeRegisters() const;

  // Puts the value an enter delivered (uninitialized: dead) in its
  // register. False when it is not a scalar of the enter's dtype.
  bool Load(int32_t enter_node, const Tensor& value, Registers& r) const;

  // Runs iterations until no next_iteration is live, or `cancelled`.
  // Returns -1, or the plan index of a node whose scalar function refused
  // its inputs (integer division by zero): the caller runs that node's
  // kernel on `Inputs(node)` for the error. `progress` (may be null) is
  // bumped now and then, for the hang watchdog: a long loop is not a hang.
  int32_t Run(Registers& r, const std::atomic<bool>& cancelled, std::atomic<int64_t>* progress) const;

  // The input values of a compute node, as tensors.
  std::vector<Tensor> Inputs(int32_t node, const Registers& r) const;

  // The loop's exits and their values after Run (uninitialized: dead).
  struct ExitValue {
    int32_t node;
    Tensor value;
  };
  std::vector<ExitValue> Exits(const Registers& r) const;

 private:
  enum class Kind : uint8_t { kCompute, kConstant, kForward, kSwitch, kMerge, kHeaderMerge, kNextIteration };
  struct Instr {
    Kind kind = Kind::kForward;
    ScalarFn fn = nullptr;   // kCompute
    int32_t node = -1;       // plan index
    int32_t args_begin = 0;  // into args_: data registers, then control registers
    int32_t num_data = 0;
    int32_t num_control = 0;
    int32_t out = -1;        // first output register; a switch's: false, true, then the node's own
    int32_t carried = -1;    // kHeaderMerge, kNextIteration: the loop variable's value for the next iteration
  };
  struct Slot {
    int32_t node;
    int32_t reg;
  };
  friend class ScalarLoopCompiler;

  bool ControlDead(const Instr& in, const Registers& r) const;
  void RunMerge(const Instr& in, Registers& r) const;

  std::vector<Instr> program_;  // one iteration, in dependency order
  std::vector<int32_t> args_;
  std::vector<DType> dtype_;    // by register
  std::vector<std::pair<int32_t, ScalarValue>> constants_;  // registers set once
  std::vector<Slot> enters_;
  std::vector<Slot> exits_;
};

}  // namespace tfg
