// `tfg graph --dot`: name scopes as clusters, --depth collapsing them, and
// the edges from a variable into the ops that update it in place.
#include "interp/app/graph_dot.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "interp/language/interpreter.h"

namespace tfg {
namespace {

// Two dense layers trained by SGD: TensorFlow names them dense/ and
// dense_1/, the update ops GradientDescent/..., the gradients gradients/....
const char kModel[] =
    "import nn\n"
    "x = placeholder(f32, [?, 3], name=\"x\")\n"
    "y = nn.dense(nn.dense(x, 2), 1)\n"
    "with scope(\"loss\") { loss = mean(y) }\n"
    "train = minimize(loss, sgd(0.1))\n";

std::string Dot(int depth) {
  InterpreterOptions options;
  Interpreter interp(options);
  Status s = interp.RunSource("model.tfg", kModel);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return GraphToDot(interp.graph(), DotOptions{depth});
}

// The dot id of the node labelled `name`.
std::string IdOf(const std::string& dot, const std::string& name) {
  std::smatch m;
  std::regex re("(n[0-9]+) \\[label=\"" + name + "\\\\n");
  return std::regex_search(dot, m, re) ? m[1].str() : "";
}

TEST(GraphDotTest, ScopesAreClusters) {
  std::string dot = Dot(-1);
  for (const char* scope : {"dense", "dense_1", "kernel", "gradients", "GradientDescent"}) {
    EXPECT_NE(dot.find(std::string("label=\"") + scope + "\";"), std::string::npos) << scope << "\n" << dot;
  }
  EXPECT_NE(IdOf(dot, "dense_1/kernel"), "") << dot;
  EXPECT_EQ(IdOf(dot, "dense/kernel_1"), "") << dot;
}

TEST(GraphDotTest, VariablesHaveEdgesIntoTheirUpdates) {
  std::string dot = Dot(-1);
  std::string kernel = IdOf(dot, "dense/kernel");
  std::string update = IdOf(dot, "GradientDescent/update_dense/kernel/apply_gradient_descent");
  ASSERT_NE(kernel, "") << dot;
  ASSERT_NE(update, "") << dot;
  EXPECT_NE(dot.find(kernel + " -> " + update + " [label=\"var\", color="), std::string::npos) << dot;
  // The initializer assigns it, too.
  std::string init = IdOf(dot, "dense/kernel/init");
  ASSERT_NE(init, "") << dot;
  EXPECT_NE(dot.find(kernel + " -> " + init + " [label=\"var\""), std::string::npos) << dot;
}

TEST(GraphDotTest, DepthZeroShowsTopLevelNodesAndScopes) {
  std::string dot = Dot(0);
  EXPECT_EQ(dot.find("subgraph cluster_"), std::string::npos) << dot;
  std::set<std::string> boxes;
  std::regex box("\\[label=\"([^\"\\\\]*)");
  for (std::sregex_iterator it(dot.begin(), dot.end(), box), end; it != end; ++it) boxes.insert((*it)[1].str());
  // The placeholder, two layers, the loss, the gradients and the optimizer.
  EXPECT_EQ(boxes, (std::set<std::string>{"x", "dense/", "dense_1/", "loss/", "gradients/", "GradientDescent/"}))
      << dot;
  // Edges between collapsed scopes are drawn once, none inside one.
  std::set<std::string> edges;
  std::regex edge("\n  (s[0-9]+|n[0-9]+) -> (s[0-9]+|n[0-9]+)");
  for (std::sregex_iterator it(dot.begin(), dot.end(), edge), end; it != end; ++it) {
    EXPECT_NE((*it)[1].str(), (*it)[2].str()) << dot;
    EXPECT_TRUE(edges.insert((*it)[0].str()).second) << (*it)[0].str() << "\n" << dot;
  }
  EXPECT_GE(edges.size(), 5u) << dot;  // x -> dense -> dense_1 -> loss -> gradients -> GradientDescent
}

}  // namespace
}  // namespace tfg
