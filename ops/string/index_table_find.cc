// index_table_find(keys, vocabulary_file, default_value=-1): the line number
// (from 0) of every string key in a vocabulary file of one token a line,
// default_value for a key not in it: TensorFlow's static hash table
// initialised from a text file (index_table_from_file + lookup, whose
// stdlib wrappers are in stdlib/text.tfg).
//
// The table is read once, when the kernel is created, and never changes
// (TensorFlow's HashTable is immutable after its initializer ran); so steps
// read it concurrently without a lock. A key twice in the file is an error
// naming both lines, as TensorFlow's "HashTable has different value for
// same key". Lines end at '\n' (a trailing '\r' is dropped).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ops/core/memory_budget.h"
#include "ops/core/op_registry.h"
#include "ops/core/safe_file.h"

namespace tfg::string_ops::index_table {
namespace {

constexpr const char* kOp = "index_table_find";

Result<std::unordered_map<std::string, int64_t>> ReadVocabulary(const std::string& path) {
  if (path.empty()) return InvalidArgument("{}: vocabulary_file is empty", kOp);
  Result<std::string> text = ReadRegularFile(path, static_cast<uint64_t>(MemoryLimit()), "vocabulary file");
  if (!text.ok()) return Status(text.status()).Prepend(std::string(kOp) + ": ");
  std::unordered_map<std::string, int64_t> table;
  std::string_view rest = *text;
  for (int64_t n = 0; !rest.empty(); ++n) {
    const size_t end = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto [it, inserted] = table.emplace(std::string(line), n);
    if (!inserted) {
      return InvalidArgument("{}: '{}' is on line {} and again on line {} of '{}'", kOp, line, it->second + 1, n + 1,
                             path);
    }
  }
  return table;
}

class IndexTableFindKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const std::string* path = c.attr<std::string>("vocabulary_file");
    const int64_t* def = c.attr<int64_t>("default_value");
    if (!path || !def) return Internal("{}: missing attributes", kOp);
    default_ = *def;
    TFG_ASSIGN_OR_RETURN(table_, ReadVocabulary(*path));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& keys = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, keys.shape()));
    const std::string* k = keys.data<std::string>();
    int64_t* ids = out->data<int64_t>();
    ctx.ParallelFor(keys.num_elements(), 50, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        auto it = table_.find(k[i]);
        ids[i] = it == table_.end() ? default_ : it->second;
      }
    });
    return Status::OK();
  }

 private:
  std::unordered_map<std::string, int64_t> table_;
  int64_t default_ = -1;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("keys", "string")
                    .Attr("vocabulary_file", AttrType::kString, std::nullopt,
                          "one token a line; a token's id is its line number from 0")
                    .Attr("default_value", AttrType::kInt, int64_t{-1}, "the id of a key not in the file")
                    .Output("ids", "i64")
                    .SetShapeFn(shape_fns::Unchanged)
                    .NoGradient("string input")
                    .Doc("The id (line number from 0) of every string key in `vocabulary_file`, `default_value` "
                         "for the others: TensorFlow's static hash table from a text file. The file is read once "
                         "when the step's kernels are created; a token on two lines is an error. Scripts usually "
                         "call `lookup(index_table_from_file(path), keys)`."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<IndexTableFindKernel>());

}  // namespace tfg::string_ops::index_table
