// Whole scripts with nodes on a GPU: transfers between host and GPU memory
// through _send/_recv, GPU fetches copied back, variables on the CPU with
// their gradients computed on the GPU. Without a GPU: SKIPPED.
#include <gtest/gtest.h>

#include <sstream>

#include "devices/cuda/cuda_devices.h"
#include "interp/language/interpreter.h"

namespace tfg {
namespace {

Status RunScript(const std::string& source, const std::string& device_type = "") {
  std::ostringstream out;
  InterpreterOptions o;
  o.session.inter_op_threads = o.session.intra_op_threads = 2;
  o.out = &out;
  o.err = &out;
  o.session.default_device_type = device_type;
  Interpreter interp(o);
  return interp.RunSource("gpu.tfg", source);
}

// [[1, 2], [3, 4]] @ itself = [[7, 10], [15, 22]].
TEST(GpuSessionTest, NodesRequestedOnTheGpuComputeThere) {
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  Status s = RunScript(R"(
x = placeholder(f32, [2, 2], name="x")
with device("/device:gpu:0") {
  y = add(matmul(x, x), 1.0, name="y")
  total = sum(y)
}
r = run([y, total], feed={x: [[1, 2], [3, 4]]})
assert_close(r[0], [[8, 11], [16, 23]])
assert_close(r[1], 58)
)");
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// loss = sum((x @ w)^2) with x = I: dloss/dw = 2w, so one step of sgd(0.1)
// leaves 0.8 w.
TEST(GpuSessionTest, TrainingWithPreferredGpuUpdatesCpuVariables) {
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  Status s = RunScript(R"(
w = variable([[1.0, 2.0], [3.0, 4.0]])
x = constant([[1.0, 0.0], [0.0, 1.0]])
loss = sum(square(matmul(x, w)))
train = minimize(loss, sgd(0.1))
init()
run(train)
assert_close(run(w), [[0.8, 1.6], [2.4, 3.2]])
)",
                       "gpu");
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// 2^36 f32 (256 GiB) is beyond any GPU's memory: the add fails as a
// ResourceExhausted error the script catches, and the GPU keeps working.
TEST(GpuSessionTest, AnAllocationBeyondTheGpusMemoryIsAnErrorNotACrash) {
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  Status s = RunScript(R"(
a = constant(range(262144), f32)
with device("/device:gpu:0") {
  huge = reshape(a, [262144, 1]) + reshape(a, [1, 262144])
  total = sum(huge)
}
caught = ""
try {
  run(total)
} except ResourceExhausted as e {
  caught = e
}
assert(len(caught) > 0)
with device("/device:gpu:0") { small = sum(a * 2.0) }
assert_close(run(small), 262143.0 * 262144.0, tol=1e-4)
)");
  EXPECT_TRUE(s.ok()) << s.ToString();
}

}  // namespace
}  // namespace tfg
