// save_variables / restore_variables as graph nodes, without the
// interpreter: their signatures, shape checks and attr checks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "ops/core/op_registry.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/state/state_test_util.h"

namespace tfg {
namespace {

using StringList = std::vector<std::string>;

TEST(CheckpointOps, AreStatefulWithoutGradient) {
  for (const char* name : {"save_variables", "restore_variables"}) {
    const OpDef* op = OpRegistry::Global().Find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->stateful) << name;
    EXPECT_FALSE(op->no_gradient_reason.empty()) << name;
    EXPECT_TRUE(op->outputs.empty()) << name;
  }
}

TEST(CheckpointOps, FileNameMustBeAScalar) {
  AttrMap attrs{{"tensor_names", StringList{"v"}}, {"shared_names", StringList{"v"}}, {"containers", StringList{""}}};
  EXPECT_EQ(test::InferShapesString("save_variables", {PartialShape{}}, {DType::kString}, attrs), "");
  EXPECT_NE(test::InferShapesString("save_variables", {PartialShape{2}}, {DType::kString}, attrs)
                .find("the file name must be a scalar string, got shape [2]"),
            std::string::npos);
}

TEST(CheckpointOps, SaveThenRestoreThroughNodes) {
  char tmpl[] = "/tmp/tfg_ckpt_ops_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/ck";
  test::StateGraph g;
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "v", test::MakeTensor<float>({1, 2}, {2}))}).ok());
  AttrMap names{{"tensor_names", StringList{"weights"}}, {"shared_names", StringList{"v"}},
                {"containers", StringList{""}}};
  Node* save = g.Add("save_variables", {g.Const(Tensor::Scalar<std::string>(path))}, names, "save");
  ASSERT_TRUE(g.Run({}, {save}).ok());
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "v", test::MakeTensor<float>({7, 7}, {2}))}).ok());
  AttrMap restore_attrs = names;
  restore_attrs["dtypes"] = std::vector<DType>{DType::kF32};
  restore_attrs["shapes"] = std::vector<PartialShape>{PartialShape{2}};
  Node* restore = g.Add("restore_variables", {g.Const(Tensor::Scalar<std::string>(path))}, restore_attrs, "restore");
  ASSERT_TRUE(g.Run({}, {restore}).ok());
  auto v = g.Run({g.Read("v", DType::kF32, PartialShape{2})});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  test::ExpectTensorEq<float>((*v)[0], {1, 2}, {2});
  std::filesystem::remove_all(tmpl);
}

TEST(CheckpointOps, AttrListsMustAgree) {
  test::StateGraph g;
  AttrMap attrs{{"tensor_names", StringList{"a", "b"}}, {"shared_names", StringList{"a"}},
                {"containers", StringList{""}}};
  Node* save = g.Add("save_variables", {g.Const(Tensor::Scalar<std::string>("/tmp/unused"))}, attrs, "save");
  auto r = g.Run({}, {save});
  test::ExpectError(r, Code::kInvalidArgument, "one entry per variable, got 2, 1 and 1");
}

}  // namespace
}  // namespace tfg
