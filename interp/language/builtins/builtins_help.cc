// help(x) and dir(x): documentation at the prompt. An op's help is its
// section of docs/ops.md (the same generator), a builtin's its signature and
// doc from the builtin table, a function's its header and the `#` comment
// block right above it, a module's its opening comment and public names.
#include <algorithm>
#include <memory>
#include <ostream>
#include <string_view>

#include "interp/language/ast.h"
#include "interp/language/attribute_names.h"
#include "interp/language/builtins/builtins.h"
#include "interp/language/evaluator.h"
#include "interp/language/op_doc_text.h"

namespace tfg {
namespace help {

std::vector<std::string_view> SourceLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

std::string_view Trimmed(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

// The `#` lines directly above line `line` (1-based), without the '#'s,
// or from the top of the file when `line` is 0 (a module's own comment).
std::string CommentAbove(const std::vector<std::string_view>& lines, size_t line) {
  std::vector<std::string_view> block;
  if (line == 0) {
    for (std::string_view l : lines) {
      if (Trimmed(l).substr(0, 2) == "#!") continue;
      if (Trimmed(l).empty() || Trimmed(l)[0] != '#') break;
      block.push_back(Trimmed(l));
    }
  } else {
    for (size_t i = line - 1; i > 0 && i <= lines.size(); --i) {
      std::string_view l = Trimmed(lines[i - 1]);
      if (l.empty() || l[0] != '#') break;
      block.insert(block.begin(), l);
    }
  }
  std::string out;
  for (std::string_view l : block) {
    l.remove_prefix(1);
    if (!l.empty() && l[0] == ' ') l.remove_prefix(1);
    out += std::string(l) + "\n";
  }
  return out;
}

// `fn dense(x, units, act=none)`: the definition's first line up to its '{'.
std::string FunctionHeader(const ast::FunctionDef& def, const std::vector<std::string_view>& lines) {
  const SourceSpan& span = def.span;
  if (span.line < 1 || static_cast<size_t>(span.line) > lines.size()) return "fn " + def.name + "(...)";
  std::string_view line = lines[static_cast<size_t>(span.line) - 1];
  line.remove_prefix(std::min(line.size(), static_cast<size_t>(std::max(span.col - 1, 0))));
  // The body's brace is the first '{' outside the parameters' parentheses.
  size_t brace = std::string_view::npos;
  int depth = 0;
  for (size_t i = 0; i < line.size() && brace == std::string_view::npos; ++i) {
    if (line[i] == '(') ++depth;
    if (line[i] == ')') --depth;
    if (line[i] == '{' && depth == 0) brace = i;
  }
  std::string header(Trimmed(brace == std::string_view::npos ? line : line.substr(0, brace)));
  // A header spread over several lines (long parameter lists) is cut short.
  if (header.find(')') == std::string::npos) header += " ...)";
  return header;
}

std::string FunctionHelp(const Function& fn) {
  const ast::FunctionDef& def = *fn.def;
  if (def.span.file == nullptr) return "fn " + def.name + "(...)\n";
  std::vector<std::string_view> lines = SourceLines(def.span.file->text());
  std::string out = FunctionHeader(def, lines) + "\n";
  std::string doc = CommentAbove(lines, static_cast<size_t>(std::max(def.span.line, 0)));
  out += doc.empty() ? "  (no doc comment)\n" : "\n" + doc;
  return out;
}

// A member's one-line summary in a module's help.
std::string MemberLine(const std::string& name, const Value& v) {
  switch (v.kind()) {
    case ValueKind::kFunction: {
      const ast::FunctionDef& def = *v.as_function()->def;
      if (def.span.file == nullptr) return name;
      std::string header = FunctionHeader(def, SourceLines(def.span.file->text()));
      if (header.rfind("fn ", 0) == 0) header.erase(0, 3);
      return header;
    }
    case ValueKind::kModule: return name + "  (module " + v.as_module()->name + ")";
    default: return name + " = " + Repr(v).substr(0, 60);
  }
}

std::string ModuleHelp(const Module& module) {
  std::string out = "module " + module.name;
  if (!module.path.empty()) out += " (" + module.path + ")";
  out += "\n";
  if (!module.path.empty() && !module.globals->vars.empty()) {
    // The module's own opening comment, from any of its functions' file.
    for (const auto& [name, v] : module.globals->vars) {
      if (!v.is(ValueKind::kFunction) || v.as_function()->def->span.file == nullptr) continue;
      if (v.as_function()->def->span.file->path() != module.path) continue;
      std::string doc = CommentAbove(SourceLines(v.as_function()->def->span.file->text()), 0);
      if (!doc.empty()) out += "\n" + doc;
      break;
    }
  }
  out += "\nMembers (help(" + module.name + ".NAME) for one):\n";
  Value as_value = Value::Mod(std::make_shared<Module>(module));
  for (const std::string& name : AttributeNames(as_value)) {
    out += "  " + MemberLine(name, module.globals->vars.at(name)) + "\n";
  }
  return out;
}

std::string BuiltinHelp(const BuiltinDef& def) { return BuiltinSignature(def) + "\n\n" + def.doc + "\n"; }

std::string OpHelp(const OpDef& op) { return OpDocSection(op, OpRegistry::Global()); }

// What help(x) prints for any other value: what it is and its attributes.
std::string ValueHelp(const Value& v) {
  std::string out = Repr(v) + "\n\nA " + std::string(KindName(v.kind())) + ".";
  std::vector<std::string> attributes = AttributeNames(v);
  if (!attributes.empty()) {
    out += " Attributes:";
    for (const std::string& a : attributes) out += " " + a;
  }
  return out + "\n";
}

Result<std::string> HelpText(const Value& v, const SourceSpan& span) {
  switch (v.kind()) {
    case ValueKind::kOpFunction: return OpHelp(*v.as_op_function());
    case ValueKind::kBuiltin: return BuiltinHelp(*v.as_builtin());
    case ValueKind::kFunction: return FunctionHelp(*v.as_function());
    case ValueKind::kModule: return ModuleHelp(*v.as_module());
    case ValueKind::kString: {
      // help("matmul"), as Python's help("topic"): a builtin or op by name.
      if (const BuiltinDef* b = BuiltinRegistry::Global().Find(v.as_string())) return BuiltinHelp(*b);
      if (const OpDef* op = OpRegistry::Global().Find(v.as_string())) return OpHelp(*op);
      return Status(Code::kNotFound,
                    fmt::format("help(): no builtin or op is named '{}'; help(x) also takes the value itself "
                                "(a function, module, tensor)",
                                v.as_string()),
                    span);
    }
    default: return ValueHelp(v);
  }
}

constexpr const char* kHelpIntro =
    "help(x) shows the documentation of x: an op (help(matmul)), a builtin (help(run)), a function\n"
    "written in tfg (its header and the # comment above it), or a module (help(nn)); help(\"name\")\n"
    "looks a builtin or op up by name. dir(x) lists x's attributes or a module's members, dir() the\n"
    "names you have defined. At the prompt, Tab completes names, attributes (W.<Tab>), module\n"
    "members and keyword arguments.\n"
    "The language: docs/language.md; every op: docs/ops.md.\n";

Result<Value> Help(BuiltinContext& ev, BoundArgs& args) {
  if (!args.given[0]) {
    ev.out() << kHelpIntro;
    return Value();
  }
  TFG_ASSIGN_OR_RETURN(std::string text, HelpText(args[0], args.spans[0]));
  ev.out() << text;
  if (!text.empty() && text.back() != '\n') ev.out() << '\n';
  return Value();
}

// dir() with no value: the names the session has defined at top level,
// sorted, as Python's dir() at its prompt; `_` names stay hidden, as Tab
// hides them.
Result<Value> SessionNames(BuiltinContext& ev, const SourceSpan& span) {
  auto* evaluator = dynamic_cast<Evaluator*>(&ev);
  if (evaluator == nullptr || evaluator->main_globals() == nullptr) {
    return Status(Code::kUnimplemented, "dir() without a value is not supported here: give one (dir(nn))", span);
  }
  std::vector<std::string> sorted;
  for (const auto& [name, value] : evaluator->main_globals()->vars) {
    if (!name.empty() && name[0] != '_') sorted.push_back(name);
  }
  std::sort(sorted.begin(), sorted.end());
  std::vector<Value> names;
  for (const std::string& name : sorted) names.push_back(Value::Str(name));
  return Value::NewList(std::move(names));
}

Result<Value> Dir(BuiltinContext& ev, BoundArgs& args) {
  if (!args.given[0]) return SessionNames(ev, args.span);
  std::vector<Value> names;
  for (const std::string& name : AttributeNames(args[0])) names.push_back(Value::Str(name));
  return Value::NewList(std::move(names));
}

const BuiltinRegistrar kHelpBuiltins({
    {"help", {BuiltinParam{"x", Value()}},
     "Prints the documentation of x: an op's signature and reference text (as docs/ops.md has it), a builtin's "
     "signature and doc, a function's header and the # comment above its definition, a module's opening comment "
     "and members, or what any other value is; help(\"name\") looks a builtin or op up by name.",
     Help},
    {"dir", {BuiltinParam{"x", Value()}},
     "The names of x's attributes (shape, dtype, name, ... of a tensor), or a module's public members, as a "
     "sorted list of strings; dir() with no x: the names the session (the script or the REPL) has defined at top "
     "level, also when called inside a function, without those starting with '_'.",
     Dir},
});

}  // namespace help
}  // namespace tfg
