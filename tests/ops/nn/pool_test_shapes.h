// The pooling geometry the max_pool tests share (max_pool_loops_test,
// max_pool_backends_test): a shape, TensorFlow's output size and leading
// padding computed here independently of the product, and the product's
// own geometry for calling its loops and kernels directly.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "ops/nn/window.h"

namespace tfg::test {

struct PoolShape {
  const char* name;
  int64_t n, h, w, c, kh, kw, sh, sw;
  bool same;
};

struct PoolOutput {
  int64_t oh, ow, pad_top, pad_left;
};

inline PoolOutput PoolOutputOf(const PoolShape& s) {
  PoolOutput o{};
  o.oh = s.same ? (s.h + s.sh - 1) / s.sh : (s.h - s.kh) / s.sh + 1;
  o.ow = s.same ? (s.w + s.sw - 1) / s.sw : (s.w - s.kw) / s.sw + 1;
  o.pad_top = s.same ? std::max<int64_t>((o.oh - 1) * s.sh + s.kh - s.h, 0) / 2 : 0;
  o.pad_left = s.same ? std::max<int64_t>((o.ow - 1) * s.sw + s.kw - s.w, 0) / 2 : 0;
  return o;
}

// nn::ComputeGeometry for `s` into *g, checked against PoolOutputOf.
inline void PoolGeometryOf(const PoolShape& s, nn::Geometry* g) {
  nn::WindowAttrs attrs;
  attrs.ksize = {s.kh, s.kw};
  attrs.strides = {s.sh, s.sw};
  attrs.padding = s.same ? nn::Padding::kSame : nn::Padding::kValid;
  auto r = nn::ComputeGeometry("max_pool", TensorShape({s.n, s.h, s.w, s.c}), s.kh, s.kw, attrs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const PoolOutput o = PoolOutputOf(s);
  ASSERT_EQ(r->oh, o.oh);
  ASSERT_EQ(r->ow, o.ow);
  ASSERT_EQ(r->pad_top, o.pad_top);
  ASSERT_EQ(r->pad_left, o.pad_left);
  *g = *r;
}

}  // namespace tfg::test
