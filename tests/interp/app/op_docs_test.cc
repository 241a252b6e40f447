#include "interp/app/op_docs.h"

#include <gtest/gtest.h>

#include "ops/core/kernel.h"

namespace tfg {
namespace {

class NothingKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext&) override { return Status::OK(); }
};

// The builder's chain yields an lvalue; Build() consumes it.
OpDef Make(OpDefBuilder& b) { return std::move(b).Build(); }

OpDef MatMulLike() {
  return Make(OpDefBuilder("matmul")
      .Input("a", "T")
      .Input("b", "T")
      .Output("product", "T")
      .TypeAttr("T", {DType::kF32, DType::kF64})
      .Attr("transpose_a", AttrType::kBool, false)
      .Attr("transpose_b", AttrType::kBool, false)
      .SetGradFn([](GradContext&) { return Status::OK(); })
      .Doc("Matrix product."));
}

TEST(OpSignatureTest, InputsThenAttrsWithDefaultsInferredTypeHidden) {
  EXPECT_EQ(OpSignature(MatMulLike()), "matmul(a, b, transpose_a=false, transpose_b=false)");
}

TEST(OpSignatureTest, PositionalTypeAttrAndRequiredAttrs) {
  OpDef def = Make(OpDefBuilder("placeholder")
                  .TypeAttr("dtype", AllTypes())
                  .Attr("dims", AttrType::kIntList)
                  .Attr("shape", AttrType::kShape, PartialShape({PartialShape::kUnknown, 3}))
                  .Attr("name", AttrType::kString, std::string("x"))
                  .Attr("stddev", AttrType::kFloat, 0.5)
                  .Output("output", "dtype")
                  .Stateful());
  EXPECT_EQ(OpSignature(def), "placeholder(dtype, dims, shape=[?, 3], name=\"x\", stddev=0.5)");
}

TEST(OpSignatureTest, ListInputCountIsNotAParameter) {
  OpDef def = Make(OpDefBuilder("concat")
                  .InputList("values", "T")
                  .Attr("axis", AttrType::kInt, int64_t{0})
                  .Output("output", "T")
                  .TypeAttr("T", AllTypes()));
  EXPECT_EQ(OpSignature(def), "concat(values, axis=0)");
}

TEST(OpReferenceTest, SectionPerOpWithKernelsGradientAndState) {
  OpRegistry registry;
  registry.Register(MatMulLike());
  registry.Register(Make(OpDefBuilder("argmax")
                        .Input("x", "f32")
                        .Output("index", "i64")
                        .NoGradient("integer output")));
  registry.Register(Make(OpDefBuilder("no_kernels").Output("y", "f32")));
  registry.RegisterKernel(KernelDef("matmul", DeviceType::kGpu).TypeConstraint({DType::kF32}).Create<NothingKernel>());
  registry.RegisterKernel(KernelDef("matmul", DeviceType::kCpu).TypeConstraint({DType::kF64}).Create<NothingKernel>());
  registry.RegisterKernel(KernelDef("matmul", DeviceType::kCpu).TypeConstraint({DType::kF32}).Create<NothingKernel>());
  registry.RegisterKernel(KernelDef("argmax", DeviceType::kCpu).Create<NothingKernel>());
  std::string md = OpReferenceMarkdown(registry);

  EXPECT_EQ(md.rfind("# Op reference\n", 0), 0u);
  EXPECT_NE(md.find("3 ops."), std::string::npos);
  EXPECT_NE(md.find("[argmax](#argmax) · [matmul](#matmul) · [no_kernels](#no_kernels)"), std::string::npos);
  // Sections in name order.
  size_t argmax = md.find("## argmax\n"), matmul = md.find("## matmul\n"), none = md.find("## no_kernels\n");
  ASSERT_NE(matmul, std::string::npos);
  EXPECT_LT(argmax, matmul);
  EXPECT_LT(matmul, none);

  std::string section = md.substr(matmul, none - matmul);
  EXPECT_NE(section.find("```\nmatmul(a, b, transpose_a=false, transpose_b=false)\n```"), std::string::npos);
  EXPECT_NE(section.find("Matrix product.\n"), std::string::npos);
  EXPECT_NE(section.find("- **inputs:** `a`: T, `b`: T\n"), std::string::npos);
  EXPECT_NE(section.find("- **outputs:** `product`: T\n"), std::string::npos);
  EXPECT_NE(section.find("- **attrs:**\n"
                         "  - `T`: dtype in {f32, f64} (inferred from the inputs)\n"
                         "  - `transpose_a`: bool = `false`\n"
                         "  - `transpose_b`: bool = `false`\n"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("- **gradient:** yes\n"), std::string::npos);
  EXPECT_NE(section.find("- **stateful:** no\n"), std::string::npos);
  // Device and dtype order do not depend on registration order.
  EXPECT_NE(section.find("- **kernels:** cpu (f32, f64); gpu (f32)\n"), std::string::npos) << section;

  std::string argmax_section = md.substr(argmax, matmul - argmax);
  EXPECT_NE(argmax_section.find("- **gradient:** none (integer output)\n"), std::string::npos);
  EXPECT_NE(argmax_section.find("- **kernels:** cpu\n"), std::string::npos) << argmax_section;
  EXPECT_NE(argmax_section.find("`index`: i64"), std::string::npos);

  std::string last = md.substr(none);
  EXPECT_NE(last.find("- **gradient:** not yet\n"), std::string::npos);
  EXPECT_NE(last.find("- **kernels:** none yet\n"), std::string::npos);
}

TEST(OpReferenceTest, Deterministic) {
  OpRegistry registry;
  registry.Register(MatMulLike());
  EXPECT_EQ(OpReferenceMarkdown(registry), OpReferenceMarkdown(registry));
}

}  // namespace
}  // namespace tfg
