// Building graphs node by node in the executor and session tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/framework/graph.h"

namespace tfg::test {

// Adds a node; a failure is a test failure (and returns null).
inline Node* AddNode(Graph& g, const std::string& op, std::vector<Output> inputs, AttrMap attrs = {},
                     const std::string& name = "", SourceSpan span = {}) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  spec.name = name;
  spec.span = std::move(span);
  auto r = g.AddNode(std::move(spec));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

}  // namespace tfg::test
