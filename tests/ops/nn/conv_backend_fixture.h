// A test run once per CPU convolution backend (oneDNN and the reference
// loops): the backend is switched for the test and put back after it.
#pragma once

#include <gtest/gtest.h>

#include "ops/nn/conv_backend.h"

namespace tfg::test {

class EachConvBackend : public ::testing::TestWithParam<nn::ConvBackend> {
 protected:
  void SetUp() override {
    if (GetParam() == nn::ConvBackend::kOneDnn && !nn::OneDnnBuilt()) GTEST_SKIP() << "built without oneDNN";
    saved_ = nn::CpuConvBackend();
    nn::SetCpuConvBackend(GetParam());
  }
  void TearDown() override { nn::SetCpuConvBackend(saved_); }

 private:
  nn::ConvBackend saved_ = nn::ConvBackend::kReference;
};

}  // namespace tfg::test
