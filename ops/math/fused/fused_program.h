// A fused elementwise kernel's program, read from the attrs of its
// `fused_elementwise` node (written by interp/runtime/fuse_elementwise.cc):
// the member ops in dependency order, where each takes its operands from,
// and for each the op's own kernel, which runs the group unfused when the
// fused loop cannot (an error to report at the member's line, a NaN for
// --check-numerics, a layout the loop does not handle).
//
// Attrs: `ops`, `names` (the members' op and node names), `types` (their
// output dtypes), `args` (each member's operands in order: k >= 0 is the
// fused node's input k, k < 0 the result of member -k-1), `spans`
// (fused/member_spans.h), `params` (each member's BlockOp param, where
// any member has one), `axis` and `keepdims` of a trailing reduction,
// `check_numerics`, `exports` (members whose values are outputs 1, 2, ...
// as well; `Textra` their dtypes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ops/core/kernel.h"
#include "ops/math/fused/block_ops.h"

namespace tfg::fused {

struct Member {
  std::string op, name;
  SourceSpan span;
  DType type = DType::kInvalid;   // of its result
  std::vector<int> args;          // >= 0: input; < 0: member -a-1
  const BlockOp* block = nullptr;  // null: the trailing reduction
  double param = 0;                // the loop's param (BlockOp::param_attr)
  int output = -1;                 // the node's output its values are (>= 1), or -1
  int slot = -1;                   // its scratch block; -1 when a pair hands it on in registers
  // The op's own kernel, for running the group unfused.
  AttrMap attrs;
  KernelConstruction construction;
  std::unique_ptr<OpKernel> kernel;
};

// What the block loop runs: one member, or two in one loop (the first's
// result handed to the second without being stored, block_ops.h PairRun).
struct Step {
  int member = 0;         // the first (or only) member
  PairRun pair = nullptr;  // set: members `member` and `member + 1`
  PairForm form = PairForm::kLeft;
  int other = 0;          // the second member's other operand (an arg), unless kBoth
  // Set on the last step of a group ending in sum or mean: the pair's loop
  // that adds into the sum's lanes instead of storing.
  PairSumRun pair_sum = nullptr;
  int result() const { return pair ? member + 1 : member; }
};

// Reduction ops a group may end in.
bool IsFusableReduction(const std::string& op);

class Program {
 public:
  // Errors name the fused node; they are the user's only when a script
  // builds a fused_elementwise node by hand.
  Status Init(const KernelConstruction& c);

  const std::vector<std::unique_ptr<Member>>& members() const { return members_; }
  const Member& last() const { return *members_.back(); }
  bool reduces() const { return members_.back()->block == nullptr; }
  // The member whose values the output (or the reduction) takes.
  int elementwise_root() const { return static_cast<int>(members_.size()) - (reduces() ? 2 : 1); }
  // The elementwise members, in order, as the block loop runs them.
  const std::vector<Step>& steps() const { return steps_; }
  // The members whose values are outputs 1, 2, ... too, in that order.
  const std::vector<int>& exports() const { return exports_; }
  int num_inputs() const { return num_inputs_; }
  int num_member_slots() const { return num_slots_; }
  int64_t cost() const { return cost_; }
  bool check_numerics() const { return check_numerics_; }
  // Whether a run may stop partway and go unfused: a member checks its
  // operands, or --check-numerics checks its results.
  bool may_fall_back() const;
  DType TypeOf(int arg) const { return arg >= 0 ? input_types_[arg] : members_[-arg - 1]->type; }

  // The group run node by node with the members' own kernels; errors and
  // --check-numerics failures name the member and carry its span.
  Status RunUnfused(OpKernelContext& ctx) const;

 private:
  Status AddMember(const KernelConstruction& c, size_t k, const std::vector<int64_t>& args, size_t& next_arg);
  Status ReadExports(const KernelConstruction& c);
  Status MakeKernel(const KernelConstruction& c, Member& m);
  void PlanSteps();
  bool PairsWithNext(int k, const std::vector<int>& uses, Step& step) const;
  void AssignSlots();

  std::vector<std::unique_ptr<Member>> members_;
  std::vector<Step> steps_;
  std::vector<int> exports_;
  std::vector<DType> input_types_;
  int num_inputs_ = 0;
  int num_slots_ = 0;
  int64_t cost_ = 0;
  bool check_numerics_ = false;
};

// "NaN", "Inf" or "NaN and Inf" with the counts, as --check-numerics words
// it for an unfused node; empty when `t` is finite or not a float.
std::string NonFiniteMessage(const Tensor& t);

}  // namespace tfg::fused
