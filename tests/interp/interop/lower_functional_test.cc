// Functional control flow lowered to TensorFlow 1 frame ops, on hand-made
// GraphDefs. What each lowered node reads is TensorFlow's own lowering
// (lower_if_op.cc / lower_while_op.cc), written out by hand here; the
// values such graphs compute are checked against TensorFlow by
// tests/scripts/interop/import_functional_*.tfg.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "interp/interop/graph_def_io.h"
#include "interp/interop/lower_functional.h"

namespace tfg::interop {
namespace {

// y = If(p, x, then: x * 2 (a Mul of a Const), else: x passed through).
constexpr const char* kIfGraph = R"pb(
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "if" op: "StatelessIf" input: "p" input: "x"
         attr { key: "Tcond" value { type: DT_BOOL } }
         attr { key: "then_branch" value { func { name: "twice" } } }
         attr { key: "else_branch" value { func { name: "same" } } } }
  node { name: "y" op: "Identity" input: "if:0" attr { key: "T" value { type: DT_FLOAT } } }
  library {
    function {
      signature { name: "twice" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "out" type: DT_FLOAT } }
      node_def { name: "two" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
                 attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 2 } } } }
      node_def { name: "m" op: "Mul" input: "a" input: "two:output:0" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "out" value: "m:z:0" }
    }
    function {
      signature { name: "same" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "out" type: DT_FLOAT } }
      ret { key: "out" value: "a" }
    }
  }
)pb";

std::map<std::string, const tf::NodeDef*> ByName(const tf::GraphDef& def) {
  std::map<std::string, const tf::NodeDef*> nodes;
  for (const tf::NodeDef& n : def.node()) nodes[n.name()] = &n;
  return nodes;
}

std::vector<std::string> Inputs(const tf::NodeDef& n) { return {n.input().begin(), n.input().end()}; }

TEST(LowerFunctionalTest, IfBecomesSwitchesBranchesAndMerge) {
  Result<tf::GraphDef> def = ParseGraphDef(kIfGraph, "if.pbtxt");
  ASSERT_TRUE(def.ok()) << def.status().message();
  Result<LoweredOutputs> lowered = LowerFunctionalControlFlow(*def);
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  auto n = ByName(*def);
  using V = std::vector<std::string>;
  EXPECT_EQ(Inputs(*n.at("if/switch_pred")), (V{"p", "p"}));
  EXPECT_EQ(Inputs(*n.at("if/switch_0")), (V{"x", "p"}));
  EXPECT_EQ(n.at("if/then/two")->op(), "Const");
  EXPECT_EQ(Inputs(*n.at("if/then/two")), (V{"^if/pivot_t"}));  // runs only when p is true
  EXPECT_EQ(Inputs(*n.at("if/then/m")), (V{"if/switch_0:1", "if/then/two:0"}));
  EXPECT_EQ(Inputs(*n.at("if/merge_0")), (V{"if/then/m:0", "if/switch_0:0"}));
  EXPECT_EQ(n.at("if")->op(), "NoOp");
  EXPECT_EQ(Inputs(*n.at("if")), (V{"^if/merge_0"}));
  EXPECT_EQ(Inputs(*n.at("y")), (V{"if/merge_0:0"}));
  ASSERT_EQ(lowered->size(), 1u);
  EXPECT_EQ((*lowered)[0], (std::pair<std::string, std::string>{"if:0", "if/merge_0:0"}));
}

// (i, v) = While(i < 3, (i + 1, v)): the frame TensorFlow's lowering builds.
constexpr const char* kWhileGraph = R"pb(
  node { name: "i0" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 0 } } } }
  node { name: "v0" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "w" op: "While" input: "i0" input: "v0" input: "^v0"
         attr { key: "cond" value { func { name: "c" } } } attr { key: "body" value { func { name: "b" } } }
         attr { key: "parallel_iterations" value { i: 4 } } }
  library {
    function {
      signature { name: "c" input_arg { name: "i" type: DT_INT32 } input_arg { name: "v" type: DT_FLOAT }
                  output_arg { name: "ok" type: DT_BOOL } }
      node_def { name: "three" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                 attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 3 } } } }
      node_def { name: "less" op: "Less" input: "i" input: "three:output:0" attr { key: "T" value { type: DT_INT32 } } }
      ret { key: "ok" value: "less:z:0" }
    }
    function {
      signature { name: "b" input_arg { name: "i" type: DT_INT32 } input_arg { name: "v" type: DT_FLOAT }
                  output_arg { name: "i2" type: DT_INT32 } output_arg { name: "v2" type: DT_FLOAT } }
      node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                 attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 1 } } } }
      node_def { name: "add" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_INT32 } } }
      ret { key: "i2" value: "add:z:0" }
      ret { key: "v2" value: "v" }
    }
  }
)pb";

TEST(LowerFunctionalTest, WhileBecomesAFrame) {
  Result<tf::GraphDef> def = ParseGraphDef(kWhileGraph, "while.pbtxt");
  ASSERT_TRUE(def.ok()) << def.status().message();
  Result<LoweredOutputs> lowered = LowerFunctionalControlFlow(*def);
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  auto n = ByName(*def);
  using V = std::vector<std::string>;
  const tf::NodeDef& enter = *n.at("w/enter_1");
  EXPECT_EQ(Inputs(enter), (V{"v0", "^v0"}));
  EXPECT_EQ(enter.attr().at("frame_name").s(), "w");
  EXPECT_EQ(enter.attr().at("parallel_iterations").i(), 4);
  EXPECT_EQ(Inputs(*n.at("w/merge_0")), (V{"w/enter_0", "w/next_0"}));
  EXPECT_EQ(Inputs(*n.at("w/cond/three")), (V{"^w/merge_0"}));
  EXPECT_EQ(Inputs(*n.at("w/cond/less")), (V{"w/merge_0:0", "w/cond/three:0"}));
  EXPECT_EQ(Inputs(*n.at("w/loop_cond")), (V{"w/cond/less:0"}));
  EXPECT_EQ(Inputs(*n.at("w/switch_1")), (V{"w/merge_1", "w/loop_cond"}));
  EXPECT_EQ(Inputs(*n.at("w/exit_1")), (V{"w/switch_1:0"}));
  EXPECT_EQ(Inputs(*n.at("w/body_in_0")), (V{"w/switch_0:1"}));
  EXPECT_EQ(Inputs(*n.at("w/body/one")), (V{"^w/body_in_0"}));
  EXPECT_EQ(Inputs(*n.at("w/next_0")), (V{"w/body/add:0"}));
  EXPECT_EQ(Inputs(*n.at("w/next_1")), (V{"w/body_in_1:0"}));
  EXPECT_EQ(n.at("w")->op(), "NoOp");
  ASSERT_EQ(lowered->size(), 2u);
  EXPECT_EQ((*lowered)[1], (std::pair<std::string, std::string>{"w:1", "w/exit_1:0"}));
}

TEST(LowerFunctionalTest, BodyCallingItselfIsRefused) {
  constexpr const char* kLoop = R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "w" op: "While" input: "x" attr { key: "cond" value { func { name: "k" } } }
           attr { key: "body" value { func { name: "c" } } } }
    library { function {
      signature { name: "k" input_arg { name: "v" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }
      ret { key: "o" value: "v" } }
    function {
      signature { name: "c" input_arg { name: "v" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }
      node_def { name: "inner" op: "While" input: "v" attr { key: "cond" value { func { name: "k" } } }
                 attr { key: "body" value { func { name: "c" } } } }
      ret { key: "o" value: "inner:output:0" } } }
  )pb";
  Result<tf::GraphDef> def = ParseGraphDef(kLoop, "loop.pbtxt");
  ASSERT_TRUE(def.ok()) << def.status().message();
  Result<LoweredOutputs> lowered = LowerFunctionalControlFlow(*def);
  ASSERT_FALSE(lowered.ok());
  EXPECT_NE(lowered.status().message().find("functions nest more than 64 deep (is 'k' or 'c' recursive?)"), std::string::npos)
      << lowered.status().message();
}

}  // namespace
}  // namespace tfg::interop
