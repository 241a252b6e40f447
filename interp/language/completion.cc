#include "interp/language/completion.h"

#include <cctype>
#include <optional>
#include <set>
#include <string_view>

#include "interp/language/attribute_names.h"
#include "interp/language/builtins/builtins.h"
#include "interp/language/evaluator.h"

namespace tfg {
namespace {

const char* const kKeywords[] = {"fn",     "return", "if",    "else", "elif",  "for",  "in",   "while",
                                 "break",  "continue", "import", "as", "with", "try", "except", "pass",
                                 "true",   "false",  "none",  "and",  "or",    "not"};

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Private names (`nn._pair`, `_send`) are offered only to a prefix that
// asks for them.
bool Offered(std::string_view name, std::string_view prefix) {
  return StartsWith(name, prefix) && (name.empty() || name[0] != '_' || StartsWith(prefix, "_"));
}

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The value a dotted name (`W`, `nn`, `nn.dense`) stands for at top level,
// without running anything: variables, builtins, ops, then module members.
std::optional<Value> Resolve(Evaluator& ev, std::string_view dotted) {
  size_t dot = dotted.find('.');
  std::string first(dotted.substr(0, dot));
  std::optional<Value> v;
  if (Value* found = ev.main_globals()->Lookup(first)) {
    v = *found;
  } else if (auto it = ev.builtin_names().find(first); it != ev.builtin_names().end()) {
    v = it->second;
  } else if (const OpDef* op = OpRegistry::Global().Find(first)) {
    v = Value::OpFunction(op);
  } else {
    return std::nullopt;
  }
  while (dot != std::string_view::npos) {
    dotted.remove_prefix(dot + 1);
    dot = dotted.find('.');
    if (!v->is(ValueKind::kModule)) return std::nullopt;
    auto& vars = v->as_module()->globals->vars;
    auto it = vars.find(std::string(dotted.substr(0, dot)));
    if (it == vars.end()) return std::nullopt;
    v = it->second;
  }
  return v;
}

// The parameter names a callee takes by keyword.
std::vector<std::string> KeywordNames(const Value& callee) {
  std::vector<std::string> names;
  switch (callee.kind()) {
    case ValueKind::kBuiltin:
      for (const BuiltinParam& p : callee.as_builtin()->params) names.push_back(p.name);
      break;
    case ValueKind::kFunction:
      for (const ast::Param& p : callee.as_function()->def->params) names.push_back(p.name);
      break;
    case ValueKind::kOpFunction: {
      const OpDef& op = *callee.as_op_function();
      for (const ArgDef& in : op.inputs) names.push_back(in.name);
      for (const AttrDef& attr : op.attrs) names.push_back(attr.name);
      names.push_back("name");
      break;
    }
    default: break;
  }
  return names;
}

// The callee of the innermost call still open in `line` (`run` in
// `run(loss, fe`), or "" when the cursor is not inside a call's parentheses.
std::string OpenCallee(std::string_view line) {
  char quote = 0;
  std::vector<size_t> open_parens;  // npos for '[' and '{'
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '(' || c == '[' || c == '{') open_parens.push_back(c == '(' ? i : std::string_view::npos);
    if ((c == ')' || c == ']' || c == '}') && !open_parens.empty()) open_parens.pop_back();
  }
  if (open_parens.empty() || open_parens.back() == std::string_view::npos) return "";
  size_t end = open_parens.back(), begin = end;
  while (begin > 0 && (IsNameChar(line[begin - 1]) || line[begin - 1] == '.')) --begin;
  return std::string(line.substr(begin, end - begin));
}

}  // namespace

std::vector<std::string> CompleteWord(Evaluator& ev, const std::string& prefix, const std::string& line_before) {
  std::set<std::string> out;
  const size_t dot = prefix.rfind('.');
  if (dot != std::string::npos) {
    // "nn.de" completes module nn's members; "W.sh" a value's attributes.
    const std::string object = prefix.substr(0, dot), rest = prefix.substr(dot + 1);
    if (std::optional<Value> v = Resolve(ev, object)) {
      for (const std::string& name : AttributeNames(*v)) {
        if (Offered(name, rest)) out.insert(object + "." + name);
      }
    }
    return {out.begin(), out.end()};
  }
  if (std::string callee = OpenCallee(line_before); !callee.empty()) {
    if (std::optional<Value> v = Resolve(ev, callee)) {
      for (const std::string& name : KeywordNames(*v)) {
        if (Offered(name, prefix)) out.insert(name + "=");
      }
    }
  }
  for (const std::string& name : ev.VisibleNames(ev.main_globals())) {
    if (Offered(name, prefix)) out.insert(name);
  }
  for (const std::string& name : ev.PreludeNames()) {
    if (Offered(name, prefix)) out.insert(name);
  }
  for (const char* kw : kKeywords) {
    if (Offered(kw, prefix)) out.insert(kw);
  }
  return {out.begin(), out.end()};
}

}  // namespace tfg
