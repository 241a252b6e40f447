// A graph and session for state-op tests: variables only live in a
// session's ResourceMgr, so these tests build nodes and run them.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "interp/runtime/session.h"

namespace tfg::test {

class StateGraph {
 public:
  Node* Add(const std::string& op, std::vector<Output> inputs, AttrMap attrs = {}, const std::string& name = "",
            std::vector<Node*> control = {}) {
    NodeSpec spec{op, std::move(inputs), std::move(control), std::move(attrs), name, "", {}};
    auto r = graph_.AddNode(std::move(spec));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }
  Output Const(Tensor value) {
    DType dtype = value.dtype();
    return Add("constant", {}, {{"value", std::move(value)}, {"dtype", dtype}})->output(0);
  }
  // A read of variable `name` (declared `dtype`/`shape`).
  Output Read(const std::string& name, DType dtype, PartialShape shape, std::vector<Node*> control = {},
              const std::string& container = "") {
    AttrMap attrs = {{"dtype", dtype}, {"shape", shape}, {"shared_name", name}, {"container", container}};
    return Add("variable", {}, std::move(attrs), name, std::move(control))->output(0);
  }
  // assign / assign_add / assign_sub of a constant to variable `name`.
  Node* Update(const std::string& op, const std::string& name, Tensor value, AttrMap extra = {}) {
    extra["shared_name"] = name;
    return Add(op, {Const(std::move(value))}, std::move(extra), name + "/" + op);
  }
  Result<std::vector<Tensor>> Run(std::vector<Output> fetches, std::vector<Node*> targets = {}) {
    if (!session_) session_ = std::make_unique<Session>(&graph_, SessionOptions{});
    return session_->Run({}, fetches, targets);
  }
  Session& session() {
    if (!session_) session_ = std::make_unique<Session>(&graph_, SessionOptions{});
    return *session_;
  }
  Graph& graph() { return graph_; }

 private:
  Graph graph_;
  std::unique_ptr<Session> session_;
};

}  // namespace tfg::test
