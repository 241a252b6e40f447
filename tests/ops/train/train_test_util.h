// A session for optimizer apply-op tests: variables are set by running
// assign ops, and each apply op is built once with placeholders for its
// tensor inputs, so every step feeds its own values (a learning-rate
// schedule, a fresh gradient).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "interp/runtime/session.h"
#include "ops/core/resource_mgr.h"

namespace tfg::test {

// Variable parameter -> variable name, e.g. {{"var", "W"}, {"accum", "W/acc"}}.
using VarBinding = std::vector<std::pair<std::string, std::string>>;

class ApplyGraph {
 public:
  // Sets variable `name` to `value` by running an assign op.
  void Set(const std::string& name, Tensor value) {
    DType dtype = value.dtype();
    Output c = Add("constant", {}, {{"value", std::move(value)}, {"dtype", dtype}});
    Output a = Add("assign", {c}, {{"shared_name", name}});
    auto r = session().Run({}, {}, {a.node});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // Runs `op` once on the variables `vars`, feeding `inputs` (in the op's
  // input order). The node is built on the first call for (op, vars).
  Status Apply(const std::string& op, const VarBinding& vars, const std::vector<Tensor>& inputs,
               AttrMap attrs = {}) {
    std::string key = op;
    for (const auto& [param, name] : vars) key += "|" + param + "=" + name;
    auto it = built_.find(key);
    if (it == built_.end()) {
      Built b;
      std::vector<Output> ins;
      for (const Tensor& t : inputs) {
        auto p = graph_.AddNode({"placeholder", {}, {}, {{"dtype", t.dtype()}}, "", "", {}});
        if (!p.ok()) return p.status();
        b.placeholders.push_back((*p)->output(0));
      }
      for (const auto& [param, name] : vars) attrs[param] = name;
      auto node = graph_.AddNode({op, b.placeholders, {}, std::move(attrs), op, "", {}});
      if (!node.ok()) return node.status();
      b.node = *node;
      it = built_.emplace(key, std::move(b)).first;
    }
    std::vector<std::pair<Output, Tensor>> feeds;
    for (size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(it->second.placeholders[i], inputs[i]);
    auto r = session().Run(feeds, {}, {it->second.node});
    return r.ok() ? Status::OK() : r.status();
  }

  // The variable's current value, copied (so the test shares no buffer).
  Tensor Value(const std::string& name) {
    auto var = Var(name);
    if (var == nullptr) return Tensor();
    std::lock_guard<std::mutex> lock(var->mu);
    return var->value.DeepCopy();
  }
  std::shared_ptr<Variable> Var(const std::string& name) {
    return session().resources()->Lookup<Variable>("", name);
  }

  Session& session() {
    if (!session_) session_ = std::make_unique<Session>(&graph_, SessionOptions{});
    return *session_;
  }
  Graph& graph() { return graph_; }

 private:
  struct Built {
    Node* node = nullptr;
    std::vector<Output> placeholders;
  };
  Output Add(const std::string& op, std::vector<Output> inputs, AttrMap attrs) {
    auto r = graph_.AddNode({op, std::move(inputs), {}, std::move(attrs), "", "", {}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)->output(0) : Output{};
  }

  Graph graph_;
  std::unique_ptr<Session> session_;
  std::map<std::string, Built> built_;
};

}  // namespace tfg::test
