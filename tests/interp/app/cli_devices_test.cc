// The device options: --local-devices cpu=N, --device TYPE, graph --placed.
#include <gtest/gtest.h>

#include "interp/app/cli.h"

namespace tfg::cli {
namespace {

TEST(CliDevicesTest, LocalDevicesTakesACpuCount) {
  auto o = ParseArgs({"--local-devices", "cpu=3", "train.tfg"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->interpreter.session.local_cpu_devices, 3);
  auto eq = ParseArgs({"--local-devices=cpu=2", "train.tfg"});
  ASSERT_TRUE(eq.ok()) << eq.status().ToString();
  EXPECT_EQ(eq->interpreter.session.local_cpu_devices, 2);
  auto none = ParseArgs({"train.tfg"});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->interpreter.session.local_cpu_devices, 1);
}

TEST(CliDevicesTest, LocalDevicesRejectsOtherForms) {
  for (const char* bad : {"2", "gpu=2", "cpu=0", "cpu=65", "cpu=x", "cpu="}) {
    auto o = ParseArgs({"--local-devices", bad, "train.tfg"});
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_NE(o.status().message().find("--local-devices expects cpu=N"), std::string::npos) << bad;
  }
}

TEST(CliDevicesTest, DeviceTakesCpuOrGpu) {
  auto gpu = ParseArgs({"--device", "gpu", "train.tfg"});
  ASSERT_TRUE(gpu.ok());
  EXPECT_EQ(gpu->interpreter.session.default_device_type, "gpu");
  auto tpu = ParseArgs({"--device", "tpu", "train.tfg"});
  ASSERT_FALSE(tpu.ok());
  EXPECT_NE(tpu.status().message().find("--device expects cpu or gpu"), std::string::npos);
}

TEST(CliDevicesTest, PlacedIsAGraphFlag) {
  auto o = ParseArgs({"graph", "m.tfg", "--placed"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_TRUE(o->placed);
  EXPECT_FALSE(ParseArgs({"--placed", "m.tfg"}).ok());
}

}  // namespace
}  // namespace tfg::cli
