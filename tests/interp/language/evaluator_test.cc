// The evaluator end to end: source in, printed output and errors out.
#include "interp/language/evaluator.h"

#include <gtest/gtest.h>

#include <sstream>

#include "interp/language/interpreter.h"

namespace tfg {
namespace {

struct Outcome {
  Status status;
  std::string out;
  std::string err;
};

Outcome RunScript(const std::string& source, InterpreterOptions options = {}) {
  std::ostringstream out, err;
  options.out = &out;
  options.err = &err;
  options.session.inter_op_threads = options.session.intra_op_threads = 1;
  Interpreter interp(options);
  Status s = interp.RunSource("test.tfg", source);
  return {s, out.str(), err.str()};
}

std::string Output(const std::string& source) {
  Outcome o = RunScript(source);
  EXPECT_TRUE(o.status.ok()) << o.status.ToString();
  return o.out;
}

TEST(EvaluatorTest, HostArithmeticPrintsPythonStyle) {
  EXPECT_EQ(Output("print(1 + 2 * 3, 7 / 2, -7 % 3, 2 ** 10, 0.1 + 0.2, \"a\" + \"b\", true, none)"),
            "7 3.5 2 1024 0.30000000000000004 ab true none\n");
  EXPECT_EQ(Output("print(1, 2, sep=\", \", end=\"!\\n\")"), "1, 2!\n");
}

TEST(EvaluatorTest, ShortCircuitReturnsAnOperand) {
  EXPECT_EQ(Output("print(0 or \"x\", 1 and 2, none and undefined_name, not [])"), "x 2 none true\n");
}

TEST(EvaluatorTest, FunctionsReturnTheLastExpression) {
  EXPECT_EQ(Output("fn f(a, b=10) { a * b }\nprint(f(2), f(2, b=3), f(b=1, a=5))"), "20 6 5\n");
  EXPECT_EQ(Output("fn g(x) { if x > 0 { 1 } }\nprint(g(1))"), "none\n");
  EXPECT_EQ(Output("h = fn(x) { return x + 1; 99 }\nprint(h(1))"), "2\n");
}

TEST(EvaluatorTest, DefaultsAreEvaluatedAtDefinition) {
  EXPECT_EQ(Output("k = 1\nfn f(x=k) { x }\nk = 2\nprint(f())"), "1\n");
}

TEST(EvaluatorTest, ClosuresAndLexicalScope) {
  const char* src =
      "fn counter() {\n"
      "  n = [0]\n"
      "  fn inc() { n[0] = n[0] + 1; n[0] }\n"
      "  return inc\n"
      "}\n"
      "c = counter()\n"
      "c(); c()\n"
      "print(c())\n"
      "g = 5\n"
      "fn shadow() { g = 1; g }\n"
      "print(shadow(), g)\n";
  EXPECT_EQ(Output(src), "3\n1 5\n");
}

TEST(EvaluatorTest, RecursionDepthIsLimited) {
  Outcome o = RunScript("fn f(n) { f(n + 1) }\nf(0)\n");
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find("maximum call depth (200)"), std::string::npos);
  EXPECT_EQ(o.status.span().line, 1);
  EXPECT_EQ(Output("fn fact(n) { if n <= 1 { return 1 }; n * fact(n - 1) }\nprint(fact(20))"),
            "2432902008176640000\n");
}

TEST(EvaluatorTest, CallErrorsNameTheParameter) {
  Outcome o = RunScript("fn f(a, b) { a }\n\nf(1)\n");
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find("'b'"), std::string::npos);
  EXPECT_EQ(o.status.span().line, 3);
  Outcome k = RunScript("fn f(a) { a }\nf(1, c=2)\n");
  ASSERT_FALSE(k.status.ok());
  EXPECT_NE(k.status.message().find("'c'"), std::string::npos);
}

TEST(EvaluatorTest, UnknownNameSuggests) {
  Outcome o = RunScript("x = 1\ny = matmull(x, x)\n");
  ASSERT_FALSE(o.status.ok());
  EXPECT_EQ(o.status.message(), "unknown name 'matmull'; did you mean 'matmul'?");
  EXPECT_EQ(o.status.span().line, 2);
  EXPECT_EQ(o.status.span().col, 5);
  Outcome local = RunScript("learning_rate = 1\nprint(learning_rat)\n");
  EXPECT_NE(local.status.message().find("did you mean 'learning_rate'"), std::string::npos);
}

TEST(EvaluatorTest, Destructuring) {
  EXPECT_EQ(Output("a, b = [1, 2]\nb, a = [a, b]\nprint(a, b)"), "2 1\n");
  Outcome o = RunScript("a, b = [1, 2, 3]\n");
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find("3 values into 2"), std::string::npos);
}

TEST(EvaluatorTest, LoopsAndControlFlow) {
  const char* src =
      "s = 0\n"
      "for i in range(10) { if i % 2 == 0 { continue }; if i > 7 { break }; s += i }\n"
      "print(s)\n"
      "n = 0\n"
      "while n < 5 { n += 2 }\n"
      "print(n)\n"
      "for k, v in items({\"a\": 1, \"b\": 2}) { print(k, v) }\n"
      "for ch in \"hi\" { print(ch) }\n";
  EXPECT_EQ(Output(src), "16\n6\na 1\nb 2\nh\ni\n");
  Outcome o = RunScript("break\n");
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find("outside a loop"), std::string::npos);
  Outcome r = RunScript("return 1\n");
  EXPECT_NE(r.status.message().find("outside a function"), std::string::npos);
}

TEST(EvaluatorTest, TryExcept) {
  const char* src =
      "try { [1][3] } except OutOfRange as e { print(\"range:\", e) }\n"
      "try { nope } except InvalidArgument { print(\"no\") } except NotFound { print(\"notfound\") }\n"
      "try { assert(false) } except { print(\"any\") }\n";
  EXPECT_EQ(Output(src), "range: list index 3 out of range (length 1)\nnotfound\nany\n");
  Outcome o = RunScript("try { nope } except OutOfRange { print(1) }\n");
  ASSERT_FALSE(o.status.ok());
  EXPECT_EQ(o.status.code(), Code::kNotFound);
  Outcome bad = RunScript("try { 1 } except OutOfRang { }\n");
  EXPECT_NE(bad.status.message().find("unknown error kind 'OutOfRang'"), std::string::npos);
}

TEST(EvaluatorTest, IndexingHostValues) {
  EXPECT_EQ(Output("l = [1, 2, 3, 4]\nprint(l[-1], l[1:3], l[::-2], \"hello\"[1:4], range(10)[2:8:3])"),
            "4 [2, 3] [4, 2] ell range(2, 8, 3)\n");
  EXPECT_EQ(Output("d = {}\nd[\"k\"] = 1\nd[\"k\"] += 1\nl = [0]\nl[0] = 5\nprint(d, l)"), "{\"k\": 2} [5]\n");
  Outcome o = RunScript("d = {\"a\": 1}\nprint(d[\"b\"])\n");
  EXPECT_EQ(o.status.code(), Code::kNotFound);
}

TEST(EvaluatorTest, ListArithmeticRunsEagerly) {
  EXPECT_EQ(Output("print([1, 2] * 2)"), "[2 4]\n");
  EXPECT_EQ(Output("print([1, 2] / 2)"), "[0.5 1. ]\n");
  EXPECT_EQ(Output("t = [[1, 2], [3, 4]] @ [[1], [1]]\nprint(t.shape, t.dtype)"), "[2, 1] i32\n");
}

TEST(EvaluatorTest, OperatorsBuildNodes) {
  const char* src =
      "x = placeholder(f32, [?, 3], name=\"x\")\n"
      "y = 2 * x\n"
      "print(y, y.dtype, y.shape)\n"
      "i = placeholder(i32, [2])\n"
      "q = i / i\n"
      "print(q.dtype)\n";
  EXPECT_EQ(Output(src), "<tensor \"mul:0\" f32[?, 3]> f32 [none, 3]\nf64\n");
}

TEST(EvaluatorTest, DTypeErrorsNameBothDTypes) {
  Outcome o = RunScript("i = placeholder(i32, [2])\ny = i * 0.5\n");
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find("i32"), std::string::npos);
  EXPECT_NE(o.status.message().find("f32"), std::string::npos);
  EXPECT_EQ(o.status.span().line, 2);
  Outcome two = RunScript("a = placeholder(f32, [2])\nb = placeholder(f64, [2])\nc = a + b\n");
  ASSERT_FALSE(two.status.ok());
  EXPECT_NE(two.status.message().find("f32 and f64"), std::string::npos);
  EXPECT_NE(two.status.message().find("add"), std::string::npos);
}

TEST(EvaluatorTest, ShapeErrorsPointAtTheExpression) {
  Outcome o = RunScript("x = placeholder(f32, [?, 784])\nw = placeholder(f32, [10, 10])\nlogits = x @ w\n");
  ASSERT_FALSE(o.status.ok());
  EXPECT_EQ(o.status.span().line, 3);
  EXPECT_EQ(o.status.span().col, 10);
  EXPECT_NE(o.status.message().find("[?, 784]"), std::string::npos);
}

TEST(EvaluatorTest, GraphTensorIndexBuildsStridedSlice) {
  std::ostringstream out;
  InterpreterOptions options;
  options.out = &out;
  Interpreter interp(options);
  ASSERT_TRUE(interp.RunSource("t.tfg", "x = placeholder(f32, [4, 5, 6])\ny = x[1:, ::2, 3]\nprint(y.shape)").ok());
  EXPECT_EQ(out.str(), "[3, 3]\n");
  const Node* slice = interp.graph().FindNode("strided_slice");
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(*slice->attr<std::vector<int64_t>>("begin"), std::vector<int64_t>({1, 0, 3}));
  EXPECT_EQ(*slice->attr<std::vector<int64_t>>("end"), std::vector<int64_t>({0, 0, 4}));
  EXPECT_EQ(*slice->attr<std::vector<int64_t>>("strides"), std::vector<int64_t>({1, 2, 1}));
  EXPECT_EQ(*slice->attr<int64_t>("begin_mask"), 2);  // item 1's start omitted
  EXPECT_EQ(*slice->attr<int64_t>("end_mask"), 3);    // items 0 and 1's stops omitted
  EXPECT_EQ(*slice->attr<int64_t>("shrink_axis_mask"), 4);
}

TEST(EvaluatorTest, ScopesNameAndPlaceNodes) {
  InterpreterOptions options;
  std::ostringstream out;
  options.out = &out;
  Interpreter interp(options);
  const char* src =
      "x = placeholder(f32, [2], name=\"x\")\n"
      "with scope(\"a\") { with scope(\"b\") { y = x + 1 } }\n"
      "with device(\"/job:worker/task:1/device:cpu:0\") { with device(\"/task:2\") { z = x * 2 } }\n"
      "u = x - 1\n"
      "with deps(y, [z]) { w = x + 3 }\n"
      "with container(\"c\") { v = variable(1.0, name=\"v\") }\n"
      "print(y.name)\n";
  Status s = interp.RunSource("t.tfg", src);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.str(), "a/b/add:0\n");
  const Graph& g = interp.graph();
  EXPECT_EQ(g.FindNode("mul")->requested_device(), "/job:worker/task:2/device:cpu:0");
  EXPECT_EQ(g.FindNode("sub")->requested_device(), "");
  const Node* w = g.FindNode("add");
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->control_inputs().size(), 2u);
  EXPECT_EQ(w->control_inputs()[0]->name(), "a/b/add");
  EXPECT_EQ(w->control_inputs()[1]->name(), "mul");
  EXPECT_EQ(*g.FindNode("v")->attr<std::string>("container"), "c");
  EXPECT_EQ(*g.FindNode("v/init")->attr<std::string>("shared_name"), "v");
}

TEST(EvaluatorTest, VariablesAndDeps) {
  const char* src =
      "w = variable([1.0, 2.0], name=\"w\")\n"
      "c = variable(0, name=\"c\")\n"
      "init()\n"
      "up = assign_add(c, 5)\n"
      "with deps(up) { seen = c * 1 }\n"
      "print(run(seen), run(c))\n"
      "run(assign(w, [3, 4]))\n"
      "print(run(w))\n"
      "init()\n"
      "print(run(w), run(c))\n"
      "print(len(trainable_variables()))\n";
  EXPECT_EQ(Output(src), "5 5\n[3. 4.]\n[1. 2.] 0\n2\n");
}

TEST(EvaluatorTest, InitRunsDependentInitializersInOrder) {
  EXPECT_EQ(Output("a = variable(3.0)\nb = variable(a * 2)\ninit()\nprint(run(b))"), "6.0\n");
}

TEST(EvaluatorTest, RunFetchStructures) {
  const char* src =
      "x = placeholder(i32, [?], name=\"x\")\n"
      "y = x + 1\n"
      "g = group(y)\n"
      "r = run({\"y\": y, \"both\": [x, g]}, feed={x: [1, 2]})\n"
      "print(r[\"y\"], r[\"both\"][0], r[\"both\"][1])\n";
  EXPECT_EQ(Output(src), "[2 3] [1 2] none\n");
  Outcome bad = RunScript("x = placeholder(i32, [2])\nrun(x, feed={x: [0.5, 1]})\n");
  ASSERT_FALSE(bad.status.ok());
  EXPECT_EQ(bad.status.span().line, 2);
  EXPECT_NE(bad.status.message().find("float 0.5"), std::string::npos);
}

TEST(EvaluatorTest, LeakWarningOnce) {
  const char* src =
      "x = placeholder(f32, [2])\n"
      "for i in range(8) {\n"
      "  y = x * 2\n"
      "  run(y, feed={x: [1, 2]})\n"
      "}\n";
  Outcome o = RunScript(src);
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  std::string expected =
      "test.tfg:3:7: warning: the graph grew by 2 nodes since the last run(); this line adds nodes on every loop "
      "iteration — build the graph once, outside the loop";
  EXPECT_EQ(o.err.find(expected), 0u) << o.err;
  EXPECT_EQ(o.err.find("warning", 30), std::string::npos) << "warned twice: " << o.err;
  Outcome clean = RunScript("x = placeholder(f32, [2])\ny = x * 2\nfor i in range(8) { run(y, feed={x: [1, 2]}) }\n");
  EXPECT_EQ(clean.err, "");
}

TEST(EvaluatorTest, CheckOnlyRunsNoKernels) {
  InterpreterOptions options;
  options.check_only = true;
  const char* src =
      "x = placeholder(f32, [?, 3])\n"
      "w = variable(ones([3, 2]))\n"
      "init()\n"
      "r = run(x @ w)\n"
      "print(\"hidden\")\n"
      "assert(r.shape == [1, 2])\n"
      "if r.shape != [1, 2] { nope }\n";
  Outcome o = RunScript(src, options);
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(o.out, "");
}

TEST(EvaluatorTest, EvalInteractive) {
  std::ostringstream out;
  InterpreterOptions options;
  options.out = &out;
  Interpreter interp(options);
  EXPECT_EQ(*interp.EvalInteractive("a = 2\n"), "");
  EXPECT_EQ(*interp.EvalInteractive("a * 3\n"), "6");
  EXPECT_EQ(*interp.EvalInteractive("\"s\"\n"), "\"s\"");
  EXPECT_EQ(*interp.EvalInteractive("c = constant([1, 2])\nc + a\n"), "");  // two statements: no value shown
  // A graph tensor echoes as what it is, as TensorFlow's does; run() computes it
  // (add_1: the chunk before made the first add).
  EXPECT_EQ(*interp.EvalInteractive("c + a\n"), "<tensor \"add_1:0\" i32[2]>");
  EXPECT_EQ(*interp.EvalInteractive("run(c + a)\n"), "[3 4]");
  EXPECT_EQ(*interp.EvalInteractive("print(a)\n"), "");
  EXPECT_EQ(out.str(), "2\n");
  EXPECT_FALSE(interp.EvalInteractive("nope\n").ok());
  EXPECT_EQ(*interp.EvalInteractive("a\n"), "2");  // state survives an error
}

TEST(EvaluatorTest, Completions) {
  InterpreterOptions options;
  Interpreter interp(options);
  ASSERT_TRUE(interp.RunSource("t.tfg", "my_value = 1\n").ok());
  auto c = interp.Completions("my_");
  EXPECT_EQ(c, std::vector<std::string>({"my_value"}));
  auto m = interp.Completions("matm");
  EXPECT_NE(std::find(m.begin(), m.end(), "matmul"), m.end());
  auto k = interp.Completions("whi");
  EXPECT_NE(std::find(k.begin(), k.end(), "while"), k.end());
  auto b = interp.Completions("assert_c");
  EXPECT_EQ(b, std::vector<std::string>({"assert_close"}));
  // The prelude's functions, before any line has used one.
  EXPECT_EQ(interp.Completions("minimi"), std::vector<std::string>({"minimize"}));
  auto g = interp.Completions("glorot_");
  EXPECT_NE(std::find(g.begin(), g.end(), "glorot_uniform"), g.end());
  auto t = interp.Completions("_tower");
  EXPECT_TRUE(t.empty());
  // Attributes of a value, keyword arguments inside a call, private names
  // only when asked for.
  ASSERT_TRUE(interp.RunSource("u.tfg", "W = variable([1.0], name=\"W\")\n_secret = 1\n").ok());
  EXPECT_EQ(interp.Completions("W.sh"), std::vector<std::string>({"W.shape"}));
  EXPECT_EQ(interp.Completions("W.i"), std::vector<std::string>({"W.initializer"}));
  auto has = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  auto feeds = interp.Completions("feed", "run(W, ");
  EXPECT_TRUE(has(feeds, "feed=") && has(feeds, "feed_dict=")) << feeds.size();
  EXPECT_TRUE(has(interp.Completions("time", "x = run(W, feed={}, "), "timeout="));
  EXPECT_FALSE(has(interp.Completions("time", "x = run(W)"), "timeout="));  // the call is closed
  auto transposes = interp.Completions("transpose_", "matmul(W, [f(1)], ");
  EXPECT_TRUE(has(transposes, "transpose_a=") && has(transposes, "transpose_b="));
  EXPECT_EQ(interp.Completions("_sec"), std::vector<std::string>({"_secret"}));
  for (const std::string& name : interp.Completions("")) EXPECT_NE(name[0], '_') << name;
}

TEST(EvaluatorTest, GraphToDot) {
  InterpreterOptions options;
  Interpreter interp(options);
  ASSERT_TRUE(interp.RunSource("t.tfg", "x = placeholder(f32, [?, 2], name=\"x\")\ny = x + 1\ng = group(y)\n").ok());
  std::string dot = interp.GraphToDot();
  EXPECT_EQ(dot.rfind("digraph", 0), 0u);
  EXPECT_NE(dot.find("label=\"x\\nplaceholder\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"f32[?, 2]\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("style=dashed"), std::string::npos) << dot;
}

TEST(EvaluatorTest, AttributesOfValues) {
  const char* src =
      "x = placeholder(f32, [?, 784], name=\"img\")\n"
      "print(x.shape, x.dtype, x.name, x.ndim)\n"
      "t = run(constant([[1, 2, 3]]))\n"
      "print(t.shape, t.dtype, t.size, len(t))\n";
  EXPECT_EQ(Output(src), "[none, 784] f32 img:0 2\n[1, 3] i32 3 1\n");
  Outcome o = RunScript("x = 1\nx.shape\n");
  ASSERT_FALSE(o.status.ok());
  EXPECT_NE(o.status.message().find("no attribute 'shape'"), std::string::npos);
}

TEST(EvaluatorTest, OpCallsEagerAndGraph) {
  const char* src =
      "a, b = split([1, 2, 3, 4], 2)\n"
      "print(a, b)\n"
      "print(reshape(range(6), [2, 3]))\n"
      "print(concat([[1], [2, 3]], 0))\n"
      "x = placeholder(f32, [2])\n"
      "print(concat([x, [5, 6]], 0))\n"
      "print(cast([1, 2], f64))\n";
  EXPECT_EQ(Output(src),
            "[1 2] [3 4]\n[[0 1 2]\n [3 4 5]]\n[1 2 3]\n<tensor \"concat:0\" f32[4]>\n[1. 2.]\n");
}

}  // namespace
}  // namespace tfg
