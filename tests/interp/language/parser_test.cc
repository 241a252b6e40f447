// Tests for the front end (interp/language/parser.cc): scripts are parsed and the AST
// is compared through a compact S-expression dump, so each test shows the
// shape it expects; spans and error messages are checked exactly.
#include "interp/language/parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace tfg {
namespace {

using namespace ast;

std::string Dump(const Expr* e);
std::string Dump(const Stmt& s);

// Joins the dumps of `items` with `sep`. (Built with fmt rather than
// "literal" + std::string, which trips a false -Wrestrict in GCC 12 at -O2.)
template <typename T, typename F>
std::string JoinDumps(const std::vector<T>& items, const char* sep, F dump) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out = fmt::format("{}{}{}", out, i ? sep : "", dump(items[i]));
  return out;
}

std::string Dump(const Block& block) {
  return fmt::format("{{{}}}", JoinDumps(block, "; ", [](const StmtPtr& s) { return Dump(*s); }));
}

std::string DumpParams(const FunctionDef& def) {
  return fmt::format("({})", JoinDumps(def.params, " ", [](const Param& p) {
    return p.default_value ? fmt::format("{}={}", p.name, Dump(p.default_value.get())) : p.name;
  }));
}

std::string DumpSubscript(const Subscript& s) {
  if (s.is_ellipsis) return "...";
  if (!s.is_slice) return Dump(s.index.get());
  std::string out = fmt::format("{}:{}", s.start ? Dump(s.start.get()) : "", s.stop ? Dump(s.stop.get()) : "");
  return s.step ? fmt::format("{}:{}", out, Dump(s.step.get())) : out;
}

std::string DumpCall(const Call& c) {
  std::string args = JoinDumps(c.args, "", [](const Argument& a) {
    return fmt::format(" {}{}", a.keyword ? *a.keyword + "=" : std::string(), Dump(a.value.get()));
  });
  return fmt::format("(call {}{})", Dump(c.callee.get()), args);
}

std::string DumpCollection(const Expr& e) {
  auto dump = [](const ExprPtr& x) { return Dump(x.get()); };
  if (e.kind == ExprKind::kList) {
    return fmt::format("[{}]", JoinDumps(static_cast<const ListLit&>(e).elements, " ", dump));
  }
  const auto& d = static_cast<const DictLit&>(e);
  std::vector<std::string> items;
  for (size_t i = 0; i < d.keys.size(); ++i) items.push_back(Dump(d.keys[i].get()) + ":" + Dump(d.values[i].get()));
  return fmt::format("{{{}}}", fmt::join(items, " "));
}

// A packed number list reads as `#[1 -2.5f [3 4]]`: `#` tells it from an
// ordinary list, and its negative numbers are values, not (- x).
std::string DumpNumberList(const NumberList& list) {
  std::string out = "#[";
  size_t next = 0;
  bool first = true;
  for (NumberList::Item item : list.items) {
    std::string_view gap = first || item == NumberList::Item::kClose ? "" : " ";
    first = item == NumberList::Item::kOpen;
    switch (item) {
      case NumberList::Item::kInt: out = fmt::format("{}{}{}", out, gap, list.numbers[next++].i); break;
      case NumberList::Item::kFloat: out = fmt::format("{}{}{}f", out, gap, list.numbers[next++].f); break;
      case NumberList::Item::kOpen: out = fmt::format("{}{}[", out, gap); break;
      case NumberList::Item::kClose: out += "]"; break;
    }
  }
  return out + "]";
}

std::string Dump(const Expr* e) {
  if (e == nullptr) return "<null>";
  switch (e->kind) {
    case ExprKind::kInt: return std::to_string(static_cast<const IntLit*>(e)->value);
    case ExprKind::kFloat: return fmt::format("{}f", static_cast<const FloatLit*>(e)->value);
    case ExprKind::kString: return fmt::format("\"{}\"", static_cast<const StringLit*>(e)->value);
    case ExprKind::kBool: return static_cast<const BoolLit*>(e)->value ? "true" : "false";
    case ExprKind::kNone: return "none";
    case ExprKind::kUnknownDim: return "?";
    case ExprKind::kName: return static_cast<const Name*>(e)->id;
    case ExprKind::kList:
    case ExprKind::kDict: return DumpCollection(*e);
    case ExprKind::kNumberList: return DumpNumberList(*static_cast<const NumberList*>(e));
    case ExprKind::kUnary: {
      auto* u = static_cast<const Unary*>(e);
      return fmt::format("({} {})", UnaryOpSymbol(u->op), Dump(u->operand.get()));
    }
    case ExprKind::kBinary: {
      auto* b = static_cast<const Binary*>(e);
      return fmt::format("({} {} {})", BinaryOpSymbol(b->op), Dump(b->lhs.get()), Dump(b->rhs.get()));
    }
    case ExprKind::kCall: return DumpCall(*static_cast<const Call*>(e));
    case ExprKind::kAttribute: {
      auto* a = static_cast<const Attribute*>(e);
      return fmt::format("(. {} {})", Dump(a->object.get()), a->name);
    }
    case ExprKind::kIndex: {
      auto* x = static_cast<const Index*>(e);
      std::string subscripts = JoinDumps(x->subscripts, "", [](const Subscript& s) { return fmt::format(" {}", DumpSubscript(s)); });
      return fmt::format("(index {}{})", Dump(x->object.get()), subscripts);
    }
    case ExprKind::kLambda: {
      auto& def = *static_cast<const Lambda*>(e)->def;
      return fmt::format("(fn {} {} {})", def.name, DumpParams(def), Dump(def.body));
    }
    case ExprKind::kFString: {
      auto& f = *static_cast<const FString*>(e);
      std::string parts = JoinDumps(f.parts, "", [](const FStringPart& p) {
        return p.expr ? fmt::format(" {{{}}}", Dump(p.expr.get())) : fmt::format(" \"{}\"", p.literal);
      });
      return fmt::format("(f{})", parts);
    }
    default: break;  // comprehensions: no test dumps them
  }
  return fmt::format("<expr kind {}>", static_cast<int>(e->kind));
}

std::string Dump(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::kExpr: return Dump(static_cast<const ExprStmt&>(s).expr.get());
    case StmtKind::kAssign: {
      auto& a = static_cast<const Assign&>(s);
      std::string targets = JoinDumps(a.targets, " ", [](const ExprPtr& t) { return Dump(t.get()); });
      return fmt::format("(= {} {})", targets, Dump(a.value.get()));
    }
    case StmtKind::kAugAssign: {
      auto& a = static_cast<const AugAssign&>(s);
      return fmt::format("({}= {} {})", BinaryOpSymbol(a.op), Dump(a.target.get()), Dump(a.value.get()));
    }
    case StmtKind::kFnDef: {
      auto& def = *static_cast<const FnDef&>(s).def;
      return fmt::format("(def {} {} {})", def.name, DumpParams(def), Dump(def.body));
    }
    case StmtKind::kReturn: {
      auto& r = static_cast<const Return&>(s);
      return r.value ? fmt::format("(return {})", Dump(r.value.get())) : "(return)";
    }
    case StmtKind::kIf: {
      auto& i = static_cast<const If&>(s);
      return fmt::format("(if {} {} {})", Dump(i.cond.get()), Dump(i.then_body), Dump(i.else_body));
    }
    case StmtKind::kFor: {
      auto& f = static_cast<const For&>(s);
      return fmt::format("(for {} {} {})", fmt::join(f.vars, ","), Dump(f.iterable.get()), Dump(f.body));
    }
    case StmtKind::kWhile: {
      auto& w = static_cast<const While&>(s);
      return fmt::format("(while {} {})", Dump(w.cond.get()), Dump(w.body));
    }
    case StmtKind::kBreak: return "break";
    case StmtKind::kContinue: return "continue";
    case StmtKind::kPass: return "pass";
    case StmtKind::kImport: {
      auto& i = static_cast<const Import&>(s);
      return fmt::format("(import {}{} as {})", i.is_path ? "path " : "", i.module, i.alias);
    }
    case StmtKind::kWith: {
      auto& w = static_cast<const With&>(s);
      return fmt::format("(with {} as '{}' {})", Dump(w.context.get()), w.as_name, Dump(w.body));
    }
    case StmtKind::kTry: {
      auto& t = static_cast<const Try&>(s);
      std::string handlers = JoinDumps(t.handlers, "", [](const ExceptClause& h) {
        return fmt::format(" (except '{}' as '{}' {})", h.error_kind, h.as_name, Dump(h.body));
      });
      return fmt::format("(try {}{})", Dump(t.body), handlers);
    }
  }
  return "<?>";
}

Result<std::shared_ptr<Program>> ParseText(const std::string& text) {
  return ParseProgram(std::make_shared<SourceFile>("test.tfg", text));
}

// The whole program as "stmt; stmt; ...", or the error when parsing fails.
std::string P(const std::string& text) {
  auto program = ParseText(text);
  if (!program.ok()) return fmt::format("ERROR {}", program.status().ToString());
  return JoinDumps((*program)->body, "; ", [](const StmtPtr& s) { return Dump(*s); });
}

// "line:col: message" of the syntax error `text` must produce.
std::string E(const std::string& text) {
  auto program = ParseText(text);
  if (program.ok()) return "parsed without error";
  const Status& s = program.status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_TRUE(s.span().valid()) << s.ToString();
  return fmt::format("{}:{}: {}", s.span().line, s.span().col, s.message());
}

std::string SpanOf(const SourceSpan& s) {
  return fmt::format("{}:{}-{}:{}", s.line, s.col, s.end_line, s.end_col);
}

const Expr* FirstExpr(const Program& program) {
  const Stmt& s = *program.body.at(0);
  if (s.kind == StmtKind::kAssign) return static_cast<const Assign&>(s).value.get();
  return static_cast<const ExprStmt&>(s).expr.get();
}

// --------------------------------------------------------------- literals

TEST(ParserTest, NumberLiterals) {
  EXPECT_EQ(P("42; 0x1F; 0XfF; 007"), "42; 31; 255; 7");
  EXPECT_EQ(P("1.5; 1e-3; .5; 2.; 3E2; 1.25e+1"), "1.5f; 0.001f; 0.5f; 2f; 300f; 12.5f");
  EXPECT_EQ(P("9223372036854775807"), "9223372036854775807");
  // The smallest int is written as a negated literal whose digits alone do
  // not fit; it is read whole. Anything else around them still does not.
  EXPECT_EQ(P("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(P("- 9223372036854775807"), "(- 9223372036854775807)");
  EXPECT_EQ(E("-9223372036854775808 ** 1"), "1:2: integer 9223372036854775808 does not fit in 64 bits");
  EXPECT_EQ(E("9223372036854775808"), "1:1: integer 9223372036854775808 does not fit in 64 bits");
}

TEST(ParserTest, StringLiteralsDecodeEscapes) {
  auto program = ParseText(R"(s = "a\n\t\\\"\'\0\x41\x7a" + 'it\'s "q"')");
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  auto* sum = static_cast<const Binary*>(FirstExpr(**program));
  EXPECT_EQ(static_cast<const StringLit*>(sum->lhs.get())->value, std::string("a\n\t\\\"'\0Az", 9));
  EXPECT_EQ(static_cast<const StringLit*>(sum->rhs.get())->value, "it's \"q\"");
  EXPECT_EQ(P(R"(x = "" + '' + "#not a comment")"), R"((= x (+ (+ "" "") "#not a comment")))");
  EXPECT_EQ(P("x = \"h\xc3\xa9llo\""), "(= x \"h\xc3\xa9llo\")");
}

TEST(ParserTest, ConstantsListsDictsAndUnknownDims) {
  EXPECT_EQ(P("[true, false, none, ?]"), "[true false none ?]");
  EXPECT_EQ(P("x = placeholder(f32, [?, 784], name=\"x\")"), "(= x (call placeholder f32 [? 784] name=\"x\"))");
  EXPECT_EQ(P("[]; [1,]; [[784], []]"), "#[]; #[1]; #[[784] []]");
  EXPECT_EQ(P("[1, -2.5, [0x10]]; [1, -x]"), "#[1 -2.5f [16]]; [1 (- x)]");
  EXPECT_EQ(P("d = {x: xs, \"k\": 1}"), "(= d {x:xs \"k\":1})");
  EXPECT_EQ(P("d = {}"), "(= d {})");
}

// ------------------------------------------------------------- precedence

TEST(ParserTest, PowerBindsTighterThanUnaryMinus) {
  EXPECT_EQ(P("-x**2"), "(- (** x 2))");
  EXPECT_EQ(P("2**-1"), "(** 2 (- 1))");
  EXPECT_EQ(P("a**b**c"), "(** a (** b c))");
  EXPECT_EQ(P("-a * +b"), "(* (- a) (+ b))");
  EXPECT_EQ(P("--x"), "(- (- x))");
}

TEST(ParserTest, ArithmeticPrecedenceAndAssociativity) {
  EXPECT_EQ(P("a + b * c @ d"), "(+ a (@ (* b c) d))");
  EXPECT_EQ(P("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(P("a / b % c * d"), "(* (% (/ a b) c) d)");
  EXPECT_EQ(P("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(P("x @ W + b"), "(+ (@ x W) b)");
  EXPECT_EQ(P("a // b * c / d"), "(/ (* (// a b) c) d)");
  EXPECT_EQ(P("n //= 2"), "(//= n 2)");
}

TEST(ParserTest, LogicalAndComparisonPrecedence) {
  EXPECT_EQ(P("not a == b"), "(not (== a b))");
  EXPECT_EQ(P("a or b and c"), "(or a (and b c))");
  EXPECT_EQ(P("a and not b or c"), "(or (and a (not b)) c)");
  EXPECT_EQ(P("a + 1 < b * 2"), "(< (+ a 1) (* b 2))");
  EXPECT_EQ(P("a <= b; a > b; a >= b; a != b"), "(<= a b); (> a b); (>= a b); (!= a b)");
  EXPECT_EQ(P("step % 100 == 0"), "(== (% step 100) 0)");
}

TEST(ParserTest, PostfixCallsAttributesAndIndexing) {
  EXPECT_EQ(P("x.shape[1]"), "(index (. x shape) 1)");
  EXPECT_EQ(P("x[i][j]"), "(index (index x i) j)");
  EXPECT_EQ(P("nn.dense(x, 128)(y)"), "(call (call (. nn dense) x 128) y)");
  EXPECT_EQ(P("-f(x).y ** 2"), "(- (** (. (call f x) y) 2))");
  EXPECT_EQ(P("f()"), "(call f)");
  EXPECT_EQ(P("f(a, b,)"), "(call f a b)");
}

TEST(ParserTest, SlicingForms) {
  EXPECT_EQ(P("t[1:]"), "(index t 1:)");
  EXPECT_EQ(P("t[:, ::2]"), "(index t : ::2)");
  EXPECT_EQ(P("t[::-1]"), "(index t ::(- 1))");
  EXPECT_EQ(P("t[0]"), "(index t 0)");
  EXPECT_EQ(P("t[1:3, 0]"), "(index t 1:3 0)");
  EXPECT_EQ(P("t[a:b:c, :n]"), "(index t a:b:c :n)");
  EXPECT_EQ(P("t[1, ]"), "(index t 1)");
  EXPECT_EQ(P("t[..., 0]"), "(index t ... 0)");
  EXPECT_EQ(P("t[1:, ...]"), "(index t 1: ...)");
  EXPECT_EQ(P("t[...]"), "(index t ...)");
  EXPECT_EQ(P("t[x.y]"), "(index t (. x y))");
}

TEST(ParserTest, KeywordArguments) {
  EXPECT_EQ(P("run([train, loss], feed={x: xs, y: ys})"), "(call run [train loss] feed={x:xs y:ys})");
  EXPECT_EQ(P("f(a, k=v, j=1 + 2)"), "(call f a k=v j=(+ 1 2))");
  EXPECT_EQ(P("f(a == b)"), "(call f (== a b))");
}

// -------------------------------------------------------------- statements

TEST(ParserTest, Assignments) {
  EXPECT_EQ(P("a = 1"), "(= a 1)");
  EXPECT_EQ(P("a, b = e"), "(= a b e)");
  EXPECT_EQ(P("_, l = run([train, loss])"), "(= _ l (call run [train loss]))");
  EXPECT_EQ(P("d[\"k\"] = v; o.attr = 2"), "(= (index d \"k\") v); (= (. o attr) 2)");
  EXPECT_EQ(P("a += 1; a -= 2; a *= 3; a /= 4; a %= 5; a @= w"),
            "(+= a 1); (-= a 2); (*= a 3); (/= a 4); (%= a 5); (@= a w)");
  EXPECT_EQ(P("x[0] += 1"), "(+= (index x 0) 1)");
}

TEST(ParserTest, MembershipTests) {
  EXPECT_EQ(P("k in d"), "(in k d)");
  EXPECT_EQ(P("k not in d"), "(not in k d)");
  EXPECT_EQ(P("not k in d"), "(not (in k d))");
  EXPECT_EQ(P("a + 1 in l and b"), "(and (in (+ a 1) l) b)");
  EXPECT_EQ(P("for x in l { x in l }"), "(for x l {(in x l)})");
  EXPECT_EQ(E("a in b in c"), "1:1: comparisons cannot be chained; write 'a < b and b < c'");
}

TEST(ParserTest, CommaSeparatedValuesMakeAList) {
  EXPECT_EQ(P("a, b = b, a"), "(= a b [b a])");
  EXPECT_EQ(P("x = 1, 2"), "(= x [1 2])");
  EXPECT_EQ(P("a, b"), "[a b]");
  EXPECT_EQ(P("fn f() { return 1, 2 }"), "(def f () {(return [1 2])})");
  EXPECT_EQ(P("x += 1, 2"), "(+= x [1 2])");
}

TEST(ParserTest, FunctionDefinitionsAndLambdas) {
  EXPECT_EQ(P("fn dense(x, units, act=relu) {\n  w = variable(1)\n  return act(x @ w)\n}"),
            "(def dense (x units act=relu) {(= w (call variable 1)); (return (call act (@ x w)))})");
  EXPECT_EQ(P("fn f() { return }"), "(def f () {(return)})");
  EXPECT_EQ(P("fn f(a,) { }"), "(def f (a) {})");
  EXPECT_EQ(P("g = fn(a) { a * 2 }"), "(= g (fn <lambda> (a) {(* a 2)}))");
  EXPECT_EQ(P("fn(i, s) { [i + 1, s + i] }"), "(fn <lambda> (i s) {[(+ i 1) (+ s i)]})");
  EXPECT_EQ(P("fn(a) { a }(3)"), "(call (fn <lambda> (a) {a}) 3)");
}

TEST(ParserTest, ControlFlow) {
  EXPECT_EQ(P("if a { b } else if c { d } else { e }"), "(if a {b} {(if c {d} {e})})");
  EXPECT_EQ(P("if a { b } elif c { d }"), "(if a {b} {(if c {d} {})})");
  EXPECT_EQ(P("if a { }"), "(if a {} {})");
  EXPECT_EQ(P("for step in range(10) { continue }"), "(for step (call range 10) {continue})");
  EXPECT_EQ(P("for i, x in enumerate(xs) { pass }"), "(for i,x (call enumerate xs) {pass})");
  EXPECT_EQ(P("while i < n { i += 1; break }"), "(while (< i n) {(+= i 1); break})");
}

TEST(ParserTest, ElseOnTheLineAfterTheBrace) {
  EXPECT_EQ(P("if a {\n  b\n}\nelse if c {\n  d\n}\n\nelse {\n  e\n}\nf"),
            "(if a {b} {(if c {d} {e})}); f");
  EXPECT_EQ(P("if a { b }\nelif c { d }\nx"), "(if a {b} {(if c {d} {})}); x");
  EXPECT_EQ(P("if a { b }\n\nc"), "(if a {b} {}); c");
}

TEST(ParserTest, Imports) {
  EXPECT_EQ(P("import nn"), "(import nn as nn)");
  EXPECT_EQ(P("import nn as n"), "(import nn as n)");
  EXPECT_EQ(P("import \"lib/util.tfg\" as u"), "(import path lib/util.tfg as u)");
  EXPECT_EQ(P("import \"lib/util.tfg\""), "(import path lib/util.tfg as util)");
  EXPECT_EQ(P("import 'helpers'"), "(import path helpers as helpers)");
}

TEST(ParserTest, WithBlocks) {
  EXPECT_EQ(P("with device(\"/job:worker/task:1/device:cpu:0\") { h = dense(x, 128) }"),
            "(with (call device \"/job:worker/task:1/device:cpu:0\") as '' {(= h (call dense x 128))})");
  EXPECT_EQ(P("with scope(\"layer2\") as s { pass }"), "(with (call scope \"layer2\") as 's' {pass})");
  EXPECT_EQ(P("with deps(update) { }"), "(with (call deps update) as '' {})");
}

TEST(ParserTest, TryExcept) {
  EXPECT_EQ(P("try { x } except OutOfRange as e { y } except { z }"),
            "(try {x} (except 'OutOfRange' as 'e' {y}) (except '' as '' {z}))");
  EXPECT_EQ(P("try {\n  x\n}\nexcept DataLoss {\n}\nexcept as err { }"),
            "(try {x} (except 'DataLoss' as '' {}) (except '' as 'err' {}))");
}

// ------------------------------------------------------------------ layout

TEST(ParserTest, NewlinesInsideParensAndBracketsAreIgnored) {
  EXPECT_EQ(P("x = f(a,\n      b,\n)\ny = [1,\n 2]"), "(= x (call f a b)); (= y #[1 2])");
  EXPECT_EQ(P("x = (a\n + b)"), "(= x (+ a b))");
  EXPECT_EQ(P("t[1\n:\n]"), "(index t 1:)");
}

TEST(ParserTest, NewlinesInsideALambdaWithinACallSeparateStatements) {
  EXPECT_EQ(P("c = cond(p, fn() {\n x = a*2\n x + 1\n}, fn() { a + 1 })"),
            "(= c (call cond p (fn <lambda> () {(= x (* a 2)); (+ x 1)}) (fn <lambda> () {(+ a 1)})))");
  EXPECT_EQ(P("f(fn() {\n  g([1,\n     2])\n})"), "(call f (fn <lambda> () {(call g #[1 2])}))");
}

TEST(ParserTest, DictLiteralsMaySpanLines) {
  EXPECT_EQ(P("d = {\n  x: 1,\n  \"k\": 2,\n}\ne = 1"), "(= d {x:1 \"k\":2}); (= e 1)");
  EXPECT_EQ(P("d = {\n  a: 1\n  ,\n  b: 2\n}"), "(= d {a:1 b:2})");
  EXPECT_EQ(P("d = {\n}"), "(= d {})");
}

TEST(ParserTest, SemicolonsCommentsAndBlankLines) {
  EXPECT_EQ(P("a = 1; b = 2;; ;\n\n# only a comment\n   # another\nc # trailing\n"), "(= a 1); (= b 2); c");
  EXPECT_EQ(P("#!/usr/bin/env tfg\nx = 1"), "(= x 1)");
  EXPECT_EQ(P(""), "");
  EXPECT_EQ(P("\n\n;\n"), "");
  EXPECT_EQ(P("fn f() {\n\n  # comment\n  ;\n  a\n\n}"), "(def f () {a})");
  EXPECT_EQ(P("x = 1\r\ny = 2\r\n"), "(= x 1); (= y 2)");
  EXPECT_EQ(P("\xEF\xBB\xBFx = 1"), "(= x 1)");  // a UTF-8 byte order mark
  EXPECT_EQ(E("\xEF\xBB\xBFx = )"), "1:8: unexpected ')'");
}

TEST(ParserTest, DesignBriefExampleParses) {
  const char* script = R"(#!/usr/bin/env tfg
import nn
import "lib/util.tfg" as util

x = placeholder(f32, [?, 784], name="x")
logits = x @ W + b
train = minimize(loss, sgd(0.1))

fn dense(x, units, act=relu) {
  w = variable(glorot_uniform([x.shape[1], units]))
  return act(x @ w + variable(zeros([units])))
}

with device("/job:worker/task:1/device:cpu:0") { h = dense(x, 128) }
i, s = while_loop(fn(i, s) { i < n }, fn(i, s) { [i + 1, s + i] }, [0, 0])
q = fifo_queue(capacity=64, dtypes=[f32, i32], shapes=[[784], []])
enq = enqueue(q, [img, label]); xb, yb = dequeue_many(q, 32)
for step in range(1000) {
  _, l = run([train, loss], feed={x: xs, y: ys})
  if step % 100 == 0 { print("step", step, "loss", l) }
}
assert_close(run(logits, feed={x: xs}), expected, tol=1e-5)
)";
  auto program = ParseText(script);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_EQ((*program)->body.size(), 13u);
  EXPECT_EQ(Dump(*(*program)->body[7]),
            "(= i s (call while_loop (fn <lambda> (i s) {(< i n)}) (fn <lambda> (i s) {[(+ i 1) (+ s i)]}) #[0 0]))");
}

// ------------------------------------------------------------------- spans

TEST(ParserTest, SpansCoverTheirConstructs) {
  auto program = ParseText("x = 1\nlogits = x @ W + b\ny = f(a, k=2)[0]\n");
  ASSERT_TRUE(program.ok());
  const Block& body = (*program)->body;
  EXPECT_EQ(SpanOf(body[0]->span), "1:1-1:5");
  EXPECT_EQ((*program)->file->path(), "test.tfg");
  auto& assign = static_cast<const Assign&>(*body[1]);
  EXPECT_EQ(SpanOf(assign.span), "2:1-2:18");
  EXPECT_EQ(SpanOf(assign.targets[0]->span), "2:1-2:6");
  auto* sum = static_cast<const Binary*>(assign.value.get());
  EXPECT_EQ(SpanOf(sum->span), "2:10-2:18");
  EXPECT_EQ(SpanOf(sum->lhs->span), "2:10-2:14");
  EXPECT_EQ(SpanOf(sum->rhs->span), "2:18-2:18");
  EXPECT_EQ(sum->span.file.get(), (*program)->file.get());
  auto* index = static_cast<const Index*>(static_cast<const Assign&>(*body[2]).value.get());
  EXPECT_EQ(SpanOf(index->span), "3:5-3:16");
  auto* call = static_cast<const Call*>(index->object.get());
  EXPECT_EQ(SpanOf(call->span), "3:5-3:13");
  EXPECT_EQ(SpanOf(call->args[1].span), "3:10-3:12");
  EXPECT_EQ(SpanOf(index->subscripts[0].span), "3:15-3:15");
}

TEST(ParserTest, MultiLineSpansAndNonAsciiColumns) {
  auto program = ParseText("fn f(a) {\n  a\n}\ns = \"\xc3\xa9\xc3\xa9\" + zz");
  ASSERT_TRUE(program.ok());
  const Block& body = (*program)->body;
  EXPECT_EQ(SpanOf(body[0]->span), "1:1-3:1");
  EXPECT_EQ(SpanOf(static_cast<const FnDef&>(*body[0]).def->params[0].span), "1:6-1:6");
  // Columns count bytes, as the caret line of FormatDiagnostic does.
  auto* sum = static_cast<const Binary*>(static_cast<const Assign&>(*body[1]).value.get());
  EXPECT_EQ(SpanOf(sum->lhs->span), "4:5-4:10");
  EXPECT_EQ(SpanOf(sum->rhs->span), "4:14-4:15");
}

TEST(ParserTest, ElseIfAndExceptSpans) {
  auto program = ParseText("if a {\n} else if b {\n} else {\n}\ntry { } except E as e {\n}");
  ASSERT_TRUE(program.ok());
  auto& top = static_cast<const If&>(*(*program)->body[0]);
  EXPECT_EQ(SpanOf(top.span), "1:1-4:1");
  EXPECT_EQ(SpanOf(top.else_body[0]->span), "2:3-4:1");
  auto& t = static_cast<const Try&>(*(*program)->body[1]);
  EXPECT_EQ(SpanOf(t.handlers[0].span), "5:9-6:1");
}

// ------------------------------------------------------------------ errors

TEST(ParserErrorTest, UnclosedBlockNamesWhereItOpened) {
  EXPECT_EQ(E("x = 1\n\nfn f() {\n  y = 2\n"), "4:8: expected '}' to close the block opened at line 3, found end of file");
  EXPECT_EQ(E("for i in r {\n  if i {\n    pass\n  }\n"),
            "4:4: expected '}' to close the block opened at line 1, found end of file");
  auto program = ParseText("fn f() {\n  y\n");
  ASSERT_EQ(program.status().notes().size(), 1u);
  EXPECT_EQ(SpanOf(program.status().notes()[0].span), "1:8-1:8");
  EXPECT_EQ(program.status().notes()[0].message, "opened here");
}

TEST(ParserErrorTest, MismatchedAndStrayBrackets) {
  EXPECT_EQ(E("x = )"), "1:5: unexpected ')'");
  EXPECT_EQ(E("x = 1\n}"), "2:1: unexpected '}'");
  EXPECT_EQ(E("x = [1, 2)"), "1:10: expected ']' to close the '[' opened at line 1, found ')'");
  EXPECT_EQ(E("x = (1 +"), "1:9: expected ')' to close the '(' opened at line 1, found end of file");
  EXPECT_EQ(E("d = {a: 1"), "1:10: expected '}' to close the '{' opened at line 1, found end of file");
  // Inside an unclosed '(' newlines vanish, so the real cause is the '('.
  EXPECT_EQ(E("x = f(a,\ny = 2\nz = 3\n"), "3:6: expected ')' to close the '(' opened at line 1, found end of file");
}

TEST(ParserErrorTest, MissingSeparatorsAndCommas) {
  EXPECT_EQ(E("x = 1 2"), "1:7: expected a newline or ';' after the statement, found number 2");
  EXPECT_EQ(E("fn f() { a b }"), "1:12: expected a newline or ';' after the statement, found name 'b'");
  EXPECT_EQ(E("f(a b)"), "1:5: expected ',' or ')', found name 'b'");
  EXPECT_EQ(E("[1 2]"), "1:4: expected ',' or ']', found number 2");
  EXPECT_EQ(E("d = {a: 1 b: 2}"), "1:11: expected ',' or '}', found name 'b'");
  EXPECT_EQ(E("x = (a b)"), "1:8: expected ')' to close the '(' opened at line 1, found name 'b'");
}

TEST(ParserErrorTest, ExpectedTokens) {
  EXPECT_EQ(E("x = "), "1:4: expected an expression, found end of file");
  EXPECT_EQ(E("x = \ny = 1"), "1:5: expected an expression, found end of line");
  EXPECT_EQ(E("x = (1 + )"), "1:10: expected an expression, found ')'");
  EXPECT_EQ(E("if x\n{ }"), "1:5: expected '{', found end of line");
  EXPECT_EQ(E("for i x in y {}"), "1:7: expected 'in', found name 'x'");
  EXPECT_EQ(E("import 3"), "1:8: expected a string or a name, found number 3");
  EXPECT_EQ(E("f(,)"), "1:3: unexpected ','");
  EXPECT_EQ(E("else { }"), "1:1: unexpected 'else'");
}

TEST(ParserErrorTest, LexicalErrors) {
  EXPECT_EQ(E("x = \"abc\ny = 1"), "1:5: unterminated string");
  EXPECT_EQ(E("f(x, 'abc)"), "1:6: unterminated string");
  EXPECT_EQ(E("x = 1 $ 2"), "1:7: unexpected '$'");
  EXPECT_EQ(E("x = \xff"), "1:5: invalid UTF-8 byte 0xff");
  EXPECT_EQ(E("x = \x01"), "1:5: unexpected character U+0001");
  EXPECT_EQ(E("s = \"a\\qb\""), "1:7: unknown escape sequence '\\q'");
  EXPECT_EQ(E("s = \"\\x4\""), "1:6: '\\x' must be followed by two hex digits");
  EXPECT_EQ(E("x = 99999999999999999999"), "1:5: integer 99999999999999999999 does not fit in 64 bits");
  EXPECT_EQ(E("x = 1e999"), "1:5: number 1e999 is out of range for a 64-bit float");
}

TEST(ParserErrorTest, SemanticChecks) {
  EXPECT_EQ(E("f(a=1, 2)"), "1:8: positional argument follows keyword argument");
  EXPECT_EQ(E("f(k=1, k=2)"), "1:8: keyword argument 'k' given twice");
  EXPECT_EQ(E("f(x) = 3"), "1:1: invalid assignment target");
  EXPECT_EQ(E("a, 1 = t"), "1:4: invalid assignment target");
  EXPECT_EQ(E("a + b += 1"), "1:1: invalid assignment target");
  EXPECT_EQ(E("a, b += 1"), "1:6: '+=' needs exactly one target");
  EXPECT_EQ(E("a < b < c"), "1:1: comparisons cannot be chained; write 'a < b and b < c'");
  EXPECT_EQ(E("fn f(a=1, b) { }"), "1:11: parameter without a default follows a parameter with a default");
  EXPECT_EQ(E("fn f(a, a) { }"), "1:9: duplicate parameter 'a'");
  EXPECT_EQ(E("t[]"), "1:3: expected an index or a slice");
  EXPECT_EQ(E("t[1,,2]"), "1:5: expected an index or a slice");
  EXPECT_EQ(E("import \"my-lib.tfg\""), "1:8: cannot name a module after \"my-lib.tfg\"; add 'as NAME'");
}

TEST(ParserErrorTest, PythonHabitsGetAHint) {
  EXPECT_EQ(E("if x > 0:\n  y = 1"), "1:9: expected '{', found ':'; blocks go in braces: 'if c { ... }'");
  EXPECT_EQ(E("def f(x):"), "1:5: expected a newline or ';' after the statement, found name 'f'; functions are "
                            "written 'fn name(args) { ... }'");
  EXPECT_EQ(E("g = lambda x: x"), "1:12: expected a newline or ';' after the statement, found name 'x'; a lambda is "
                                  "written 'fn(x) { x * 2 }'");
  EXPECT_EQ(E("y = 1 if c else 2"), "1:7: expected a newline or ';' after the statement, found 'if'; there is no "
                                    "'a if c else b': use an if statement, or where(c, a, b) on tensors");
  EXPECT_EQ(E("if c { } if"), "1:10: expected a newline or ';' after the statement, found 'if'");
  EXPECT_EQ(E("x = [1:2]"), "1:7: expected ',' or ']', found ':'");
}

TEST(ParserErrorTest, FirstErrorWins) {
  EXPECT_EQ(E("x = 1 2\ny = )"), "1:7: expected a newline or ';' after the statement, found number 2");
  EXPECT_EQ(E("x = )\ny = \"open"), "1:5: unexpected ')'");
  EXPECT_EQ(E("x = \"open\ny = )"), "1:5: unterminated string");
}

TEST(ParserErrorTest, ErrorsRenderWithFileAndCaret) {
  auto program = ParseText("x = 1\ny = f(a b)\n");
  EXPECT_EQ(FormatDiagnostic(program.status()),
            "test.tfg:2:9: error: expected ',' or ')', found name 'b'\n"
            " 2 | y = f(a b)\n"
            "   |         ^\n");
}

// -------------------------------------------------------------- robustness

TEST(ParserRobustnessTest, NestingLimits) {
  auto nest = [](int n, const std::string& open, const std::string& close) {
    std::string s = "x = ";
    for (int i = 0; i < n; ++i) s += open;
    s += "1";
    for (int i = 0; i < n; ++i) s += close;
    return s;
  };
  EXPECT_EQ(P(nest(3, "(", ")")), "(= x 1)");
  EXPECT_TRUE(ParseText(nest(199, "(", ")")).ok());
  EXPECT_TRUE(ParseText(nest(99, "f(fn() {\n", "\n})")).ok());
  EXPECT_TRUE(ParseText(nest(66, "[g(a, ", ")]")).ok());
  EXPECT_EQ(E(nest(201, "(", ")")), "1:205: brackets nested too deeply (the limit is 200 levels)");
  EXPECT_EQ(E(nest(300, "[", "]")), "1:205: brackets nested too deeply (the limit is 200 levels)");
}

TEST(ParserRobustnessTest, LongChainsAreRefusedNotOverflowed) {
  auto repeat = [](const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
  };
  EXPECT_TRUE(ParseText(fmt::format("x = {}1", repeat("a + ", 500))).ok());
  EXPECT_EQ(E(fmt::format("x = {}1", repeat("a + ", 20000))), "1:5: expression nested too deeply (the limit is 1000 levels)");
  EXPECT_EQ(E(fmt::format("x = {}1", repeat("-", 10000))), "1:2995: expression nested too deeply to parse");
  EXPECT_EQ(E(fmt::format("x = {}1", repeat("not ", 10000))), "1:11981: expression nested too deeply to parse");
  EXPECT_EQ(E(fmt::format("x = {}1", repeat("2 ** ", 10000))), "1:7475: expression nested too deeply to parse");
  EXPECT_EQ(E(fmt::format("x = {}1", repeat("-", 1500))), "1:1004: expression nested too deeply (the limit is 1000 levels)");
  EXPECT_EQ(E(fmt::format("if a {{}}{}", repeat(" else if a {}", 5000))), "1:64996: too many 'else if' branches (the limit is 999)");
  EXPECT_TRUE(ParseText(fmt::format("if a {{}}{}", repeat(" else if a {}", 500))).ok());
  EXPECT_TRUE(ParseText(repeat("x = 1\n", 5000)).ok());
}

TEST(ParserRobustnessTest, ArbitraryBytesNeverCrash) {
  std::mt19937 rng(1234);
  const std::string alphabet = "(){}[]:;,.=+-*/%@<>!?\"'\\#\n\t x1_fn if else for in while not and or 0x1e5";
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    int len = static_cast<int>(rng() % 60);
    for (int i = 0; i < len; ++i) {
      if (rng() % 4 == 0) {
        text += static_cast<char>(rng() % 256);
      } else {
        text += alphabet[rng() % alphabet.size()];
      }
    }
    auto program = ParseText(text);
    if (!program.ok()) {
      EXPECT_EQ(program.status().code(), Code::kInvalidArgument) << program.status().ToString();
      EXPECT_TRUE(program.status().span().valid()) << program.status().ToString();
      EXPECT_FALSE(program.status().message().empty());
    }
    (void)NeedsMoreInput(text);
  }
}

TEST(ParserRobustnessTest, NullFileIsAnError) {
  auto program = ParseProgram(nullptr);
  EXPECT_FALSE(program.ok());
}

// -------------------------------------------------------------------- REPL

TEST(NeedsMoreInputTest, OpenBracketsAndStrings) {
  EXPECT_FALSE(NeedsMoreInput("x = 1"));
  EXPECT_FALSE(NeedsMoreInput(""));
  EXPECT_TRUE(NeedsMoreInput("fn f() {"));
  EXPECT_TRUE(NeedsMoreInput("fn f() {\n  x = [1,\n"));
  EXPECT_TRUE(NeedsMoreInput("x = f(a,"));
  EXPECT_TRUE(NeedsMoreInput("x = [1, 2,"));
  EXPECT_TRUE(NeedsMoreInput("d = {a: 1,\n"));
  EXPECT_TRUE(NeedsMoreInput("print(\"abc"));
  EXPECT_FALSE(NeedsMoreInput("fn f() { }"));
  EXPECT_FALSE(NeedsMoreInput("x = (1))"));   // an error, not more input
  EXPECT_FALSE(NeedsMoreInput("x = (1]"));
  EXPECT_FALSE(NeedsMoreInput("x = \"a\" # {"));
  EXPECT_FALSE(NeedsMoreInput("x = \"{(\""));
  EXPECT_FALSE(NeedsMoreInput("s = \"abc\nt = 1"));  // strings end at the line
}

}  // namespace
}  // namespace tfg
