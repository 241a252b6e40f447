// Text in: read_tokens, build_vocab, write_lines. They run at once on the
// host, like the file loaders of builtins_data.cc; the ids of tokens are then
// looked up in the graph (index_table_find, stdlib/text.tfg) so that the
// input pipeline maps strings to ids on every step.

#include "interp/data/text.h"
#include "interp/language/builtins/builtins.h"
#include "interp/language/builtins/path_arg.h"
#include "interp/language/value_convert.h"
#include "ops/core/memory_budget.h"
#include "ops/core/safe_file.h"

namespace tfg {
namespace {

Status ArgError(const BoundArgs& args, size_t i, const std::string& what) {
  return Status(Code::kInvalidArgument, args.def->name + ": " + what, args.spans[i]);
}

// A host string tensor (or a list of strings) as a vector.
Result<std::vector<std::string>> StringsArg(const BoundArgs& args, size_t i) {
  if (ContainsGraph(args[i])) return ArgError(args, i, "expected host strings, got " + Describe(args[i]));
  Result<Tensor> t = ToTensor(args[i]);
  if (!t.ok() || t->dtype() != DType::kString) {
    return ArgError(args, i, "expected a string tensor or a list of strings, got " + Describe(args[i]));
  }
  const std::string* p = t->data<std::string>();
  return std::vector<std::string>(p, p + t->num_elements());
}

Result<Value> ReadTokens(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  TFG_ASSIGN_OR_RETURN(std::string split_name, StringArg(args, 1));
  Result<data::TokenSplit> split = data::ParseTokenSplit(split_name);
  if (!split.ok()) return ArgError(args, 1, split.status().message());
  TFG_ASSIGN_OR_RETURN(bool lower, BoolArg(args, 2));
  Result<std::string> text = ReadRegularFile(path, static_cast<uint64_t>(MemoryLimit()), "text file");
  if (!text.ok()) return Status(text.status()).Prepend(args.def->name + ": ").WithSpan(args.span);
  std::string body = std::move(text).value();
  if (!args[3].is_none()) {
    TFG_ASSIGN_OR_RETURN(std::string after, StringArg(args, 3));
    if (after.empty()) return ArgError(args, 3, "after= must not be empty");
    body = data::TextAfter(body, after);
  }
  std::vector<std::string> tokens = data::Tokenize(body, *split, lower);
  const int64_t n = static_cast<int64_t>(tokens.size());
  return Value::HostTensor(Tensor::FromVector<std::string>(tokens, TensorShape({n})));
}

Result<Value> BuildVocab(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::vector<std::string> tokens, StringsArg(args, 0));
  TFG_ASSIGN_OR_RETURN(int64_t min_count, IntArg(args, 1));
  int64_t max_size = 0;
  if (!args[2].is_none()) {
    TFG_ASSIGN_OR_RETURN(max_size, IntArg(args, 2));
  }
  TFG_ASSIGN_OR_RETURN(std::string unk, StringArg(args, 3));
  Result<data::Vocabulary> v = data::BuildVocabulary(tokens, min_count, max_size, unk);
  if (!v.ok()) return Status(v.status()).Prepend(args.def->name + ": ").WithSpan(args.span);
  const int64_t n = static_cast<int64_t>(v->tokens.size());
  return Value::NewList({Value::HostTensor(Tensor::FromVector<std::string>(v->tokens, TensorShape({n}))),
                         Value::HostTensor(Tensor::FromVector<int64_t>(v->counts, TensorShape({n})))});
}

Result<Value> WriteLines(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  TFG_ASSIGN_OR_RETURN(std::vector<std::string> lines, StringsArg(args, 1));
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find('\n') != std::string::npos) {
      return ArgError(args, 1, fmt::format("line {} holds a newline; lines are written one a line", i));
    }
  }
  if (ev.options().check_only) return Value();
  std::string bytes;
  for (const std::string& l : lines) bytes.append(l).push_back('\n');
  Status s = WriteFileReplacing(path, bytes);
  if (!s.ok()) return s.Prepend(args.def->name + ": ").WithSpan(args.span);
  return Value();
}

BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }

const BuiltinRegistrar kTextBuiltins({
    {"read_tokens",
     {Req("path"), Opt("split", Value::Str("words")), Opt("lower", Value::Bool(false)), Opt("after", Value())},
     "Reads a text file into a 1-D host string tensor of tokens. split=\"words\" (runs of letters and digits, "
     "inner ' and - kept, punctuation dropped), \"whitespace\" (as tf.strings.split) or \"chars\" (UTF-8 "
     "characters, spaces and newlines included); lower=true lowercases ASCII letters; after=s keeps of each "
     "line only the text after its first s, and skips lines without one (WordNet's glosses: after=\"| \"). "
     "Relative paths are relative to the working directory.",
     ReadTokens},
    {"build_vocab",
     {Req("tokens"), Opt("min_count", Value::Int(1)), Opt("max_size", Value()), Opt("unk", Value::Str("<unk>"))},
     "[vocab, counts] of host tokens: vocab[0] is `unk`, then every token seen at least min_count times, most "
     "frequent first (ties: first seen first), at most max_size entries in all; counts (i64) of each, counts[0] "
     "those of every token cut off. write_lines(path, vocab) makes the file index_table_from_file reads.",
     BuildVocab},
    {"write_lines", {Req("path"), Req("lines")},
     "Writes host strings to a text file, one a line (a vocabulary file for index_table_from_file). Relative "
     "paths are relative to the working directory; writes nothing in check mode.",
     WriteLines},
});

}  // namespace
}  // namespace tfg
