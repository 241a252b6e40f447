// The abstract syntax tree of a .tfg script. The parser (interp/language/parser.cc)
// builds it from ANTLR's parse tree; the evaluator walks it. Every node keeps
// the span of the text it came from, so errors point at the user's line.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/core/source.h"

namespace tfg::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

// ---------------------------------------------------------------- expressions

enum class ExprKind {
  kInt,        // 42
  kFloat,      // 1.5, 1e-3
  kString,     // "text" or 'text' (escapes already decoded)
  kBool,       // true / false
  kNone,       // none
  kUnknownDim, // ?   (only meaningful inside shapes: [?, 784])
  kName,       // x
  kList,       // [a, b, c]
  kNumberList, // [1, -2.5, [3e4, 0x10]]: numbers only, packed (NumberList)
  kDict,       // {k: v, ...}
  kUnary,      // -x, not x
  kBinary,     // x + y, x and y, x < y, ...
  kCall,       // f(a, b, k=v)
  kAttribute,  // x.shape
  kIndex,      // x[1:, ::2, 0]
  kLambda,     // fn(a, b=1) { ... }
  kListComp,   // [x * 2 for x in xs if x > 0]
  kDictComp,   // {k: v for k, v in d.items()}
  kFString,    // f"loss {l:.3f}"
};

enum class UnaryOp { kNeg, kPos, kNot };

enum class BinaryOp {
  kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kMatMul, kPow,
  kLt, kLe, kGt, kGe, kEq, kNe,
  kIn, kNotIn,  // membership in host containers
  kAnd, kOr,  // short-circuit on host values
};

// "+", "@", "and", ... as written in source.
const char* BinaryOpSymbol(BinaryOp op);
const char* UnaryOpSymbol(UnaryOp op);

struct Expr {
  explicit Expr(ExprKind k, SourceSpan s) : kind(k), span(std::move(s)) {}
  virtual ~Expr() = default;
  ExprKind kind;
  SourceSpan span;
};

struct IntLit : Expr {
  IntLit(SourceSpan s, int64_t v) : Expr(ExprKind::kInt, std::move(s)), value(v) {}
  int64_t value;
};
struct FloatLit : Expr {
  FloatLit(SourceSpan s, double v) : Expr(ExprKind::kFloat, std::move(s)), value(v) {}
  double value;
};
struct StringLit : Expr {
  StringLit(SourceSpan s, std::string v) : Expr(ExprKind::kString, std::move(s)), value(std::move(v)) {}
  std::string value;
};
struct BoolLit : Expr {
  BoolLit(SourceSpan s, bool v) : Expr(ExprKind::kBool, std::move(s)), value(v) {}
  bool value;
};
struct NoneLit : Expr {
  explicit NoneLit(SourceSpan s) : Expr(ExprKind::kNone, std::move(s)) {}
};
struct UnknownDim : Expr {
  explicit UnknownDim(SourceSpan s) : Expr(ExprKind::kUnknownDim, std::move(s)) {}
};
struct Name : Expr {
  Name(SourceSpan s, std::string id) : Expr(ExprKind::kName, std::move(s)), id(std::move(id)) {}
  std::string id;
};
struct ListLit : Expr {
  explicit ListLit(SourceSpan s) : Expr(ExprKind::kList, std::move(s)) {}
  std::vector<ExprPtr> elements;
};
// A list literal of nothing but number literals and nested lists of them,
// the way data tables are written. It is stored packed, a byte and a number
// per element, instead of a node per element: a 4 MB table of numbers would
// otherwise take hundreds of MB of nodes. It evaluates exactly as the ListLit
// of the same text would (ints stay ints, `-x` is negated x).
struct NumberList : Expr {
  enum class Item : uint8_t { kInt, kFloat, kOpen, kClose };
  union Number {
    int64_t i;
    double f;
  };
  explicit NumberList(SourceSpan s) : Expr(ExprKind::kNumberList, std::move(s)) {}
  // The contents of the outermost list in order: kOpen and kClose bracket a
  // nested list, and each kInt or kFloat takes the next of `numbers`.
  std::vector<Item> items;
  std::vector<Number> numbers;
};
struct DictLit : Expr {
  explicit DictLit(SourceSpan s) : Expr(ExprKind::kDict, std::move(s)) {}
  std::vector<ExprPtr> keys;    // same length as values
  std::vector<ExprPtr> values;
};
struct Unary : Expr {
  Unary(SourceSpan s, UnaryOp o, ExprPtr x) : Expr(ExprKind::kUnary, std::move(s)), op(o), operand(std::move(x)) {}
  UnaryOp op;
  ExprPtr operand;
};
struct Binary : Expr {
  Binary(SourceSpan s, BinaryOp o, ExprPtr l, ExprPtr r)
      : Expr(ExprKind::kBinary, std::move(s)), op(o), lhs(std::move(l)), rhs(std::move(r)) {}
  BinaryOp op;
  ExprPtr lhs, rhs;
};

struct Argument {
  std::optional<std::string> keyword;  // set for k=v
  ExprPtr value;
  SourceSpan span;
};
struct Call : Expr {
  explicit Call(SourceSpan s) : Expr(ExprKind::kCall, std::move(s)) {}
  ExprPtr callee;
  std::vector<Argument> args;  // positional ones first (the parser enforces it)
};
struct Attribute : Expr {
  Attribute(SourceSpan s, ExprPtr obj, std::string n)
      : Expr(ExprKind::kAttribute, std::move(s)), object(std::move(obj)), name(std::move(n)) {}
  ExprPtr object;
  std::string name;
};

// One subscript inside [...]: a plain index `i`, a slice `a:b:c` (each part
// optional) or `...`. `x[1:, ::2]` has two subscripts, both slices.
struct Subscript {
  bool is_slice = false;
  bool is_ellipsis = false;      // `...`: no expressions
  ExprPtr index;                 // when neither a slice nor `...`
  ExprPtr start, stop, step;     // when is_slice; null = omitted
  SourceSpan span;
};
struct Index : Expr {
  explicit Index(SourceSpan s) : Expr(ExprKind::kIndex, std::move(s)) {}
  ExprPtr object;
  std::vector<Subscript> subscripts;
};

struct Param {
  std::string name;
  ExprPtr default_value;  // null when required
  SourceSpan span;
};
// The shared body of `fn name(...) {...}` statements and `fn(...) {...}`
// lambdas. Held by shared_ptr so closures can outlive the statement.
struct FunctionDef {
  std::string name;  // "<lambda>" for lambdas
  std::vector<Param> params;
  Block body;
  SourceSpan span;
};
struct Lambda : Expr {
  Lambda(SourceSpan s, std::shared_ptr<FunctionDef> f)
      : Expr(ExprKind::kLambda, std::move(s)), def(std::move(f)) {}
  std::shared_ptr<FunctionDef> def;
};

// One `for NAMES in ITERABLE if COND ...` clause of a comprehension.
struct CompFor {
  std::vector<std::string> vars;  // several destructure, as in a for loop
  ExprPtr iterable;
  std::vector<ExprPtr> conditions;  // every one must hold
  SourceSpan span;
};
// A list or dict comprehension: `element` (and `value` for a dict) for
// each combination of the clauses, the first clause outermost.
struct Comprehension : Expr {
  Comprehension(ExprKind k, SourceSpan s) : Expr(k, std::move(s)) {}
  ExprPtr element;  // a dict's key
  ExprPtr value;    // a dict's value; null for a list
  std::vector<CompFor> clauses;
};
// f"...": literal text and `{expr!conversion:spec}` fields, in order.
struct FStringPart {
  std::string literal;  // when expr is null
  ExprPtr expr;
  char conversion = 0;  // 'r' (repr), 's' (str) or 0
  std::string spec;     // Python's format spec: ">10", ".3f", "+,d", ...
  SourceSpan span;
};
struct FString : Expr {
  explicit FString(SourceSpan s) : Expr(ExprKind::kFString, std::move(s)) {}
  std::vector<FStringPart> parts;
};

// ----------------------------------------------------------------- statements

enum class StmtKind {
  kExpr,       // f(x)
  kAssign,     // a = e;  a, b = e;  d["k"] = e;  x.y = e  (targets: Name, Index or Attribute)
  kAugAssign,  // a += e  (also -= *= /= %= @=)
  kFnDef,      // fn name(params) { body }
  kReturn,     // return [e]
  kIf,         // if c { } else if c { } else { }
  kFor,        // for a, b in e { }
  kWhile,      // while c { }
  kBreak,
  kContinue,
  kImport,     // import nn   |  import "lib/util.tfg" as util
  kWith,       // with device("...") { }  |  with scope("s") as s { }
  kTry,        // try { } except OutOfRange as e { } except { }
  kPass,       // pass (an empty statement is also allowed)
};

struct Stmt {
  Stmt(StmtKind k, SourceSpan s) : kind(k), span(std::move(s)) {}
  virtual ~Stmt() = default;
  StmtKind kind;
  SourceSpan span;
};

struct ExprStmt : Stmt {
  ExprStmt(SourceSpan s, ExprPtr e) : Stmt(StmtKind::kExpr, std::move(s)), expr(std::move(e)) {}
  ExprPtr expr;
};
struct Assign : Stmt {
  explicit Assign(SourceSpan s) : Stmt(StmtKind::kAssign, std::move(s)) {}
  std::vector<ExprPtr> targets;  // more than one: destructuring
  ExprPtr value;
};
struct AugAssign : Stmt {
  AugAssign(SourceSpan s, BinaryOp o) : Stmt(StmtKind::kAugAssign, std::move(s)), op(o) {}
  BinaryOp op;
  ExprPtr target;
  ExprPtr value;
};
struct FnDef : Stmt {
  FnDef(SourceSpan s, std::shared_ptr<FunctionDef> f) : Stmt(StmtKind::kFnDef, std::move(s)), def(std::move(f)) {}
  std::shared_ptr<FunctionDef> def;
};
struct Return : Stmt {
  explicit Return(SourceSpan s) : Stmt(StmtKind::kReturn, std::move(s)) {}
  ExprPtr value;  // null: returns none
};
struct If : Stmt {
  explicit If(SourceSpan s) : Stmt(StmtKind::kIf, std::move(s)) {}
  ExprPtr cond;
  Block then_body;
  Block else_body;  // `else if` nests another If as the only statement here
};
struct For : Stmt {
  explicit For(SourceSpan s) : Stmt(StmtKind::kFor, std::move(s)) {}
  std::vector<std::string> vars;  // `for i, x in ...` destructures
  ExprPtr iterable;
  Block body;
};
struct While : Stmt {
  explicit While(SourceSpan s) : Stmt(StmtKind::kWhile, std::move(s)) {}
  ExprPtr cond;
  Block body;
};
struct Break : Stmt {
  explicit Break(SourceSpan s) : Stmt(StmtKind::kBreak, std::move(s)) {}
};
struct Continue : Stmt {
  explicit Continue(SourceSpan s) : Stmt(StmtKind::kContinue, std::move(s)) {}
};
struct Pass : Stmt {
  explicit Pass(SourceSpan s) : Stmt(StmtKind::kPass, std::move(s)) {}
};
struct Import : Stmt {
  explicit Import(SourceSpan s) : Stmt(StmtKind::kImport, std::move(s)) {}
  bool is_path = false;  // import "x.tfg" vs import nn
  std::string module;    // "nn" or "lib/util.tfg"
  std::string alias;     // binding name: alias if given, else module name (for paths: file stem)
};
struct With : Stmt {
  explicit With(SourceSpan s) : Stmt(StmtKind::kWith, std::move(s)) {}
  ExprPtr context;   // device("..."), scope("..."), deps(...), container("..."), ...
  std::string as_name;  // empty when no `as`
  Block body;
};
struct ExceptClause {
  std::string error_kind;  // "OutOfRange", ...; empty catches every error
  std::string as_name;     // empty when no `as`
  Block body;
  SourceSpan span;
};
struct Try : Stmt {
  explicit Try(SourceSpan s) : Stmt(StmtKind::kTry, std::move(s)) {}
  Block body;
  std::vector<ExceptClause> handlers;
};

// A parsed file. Keeps its SourceFile alive for the spans inside it.
struct Program {
  std::shared_ptr<const SourceFile> file;
  Block body;
};

}  // namespace tfg::ast
