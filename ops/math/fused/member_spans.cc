#include "ops/math/fused/member_spans.h"

#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace tfg::fused {
namespace {

using SpanKey = std::tuple<const SourceFile*, int, int, int, int>;

struct SpanTable {
  std::mutex mu;
  std::vector<SourceSpan> spans;   // by id
  std::map<SpanKey, int64_t> ids;  // guarded by mu
};

SpanTable& Spans() {
  static SpanTable* table = new SpanTable;  // never destroyed: kernels may run at exit
  return *table;
}

}  // namespace

int64_t InternSpan(const SourceSpan& span) {
  SpanTable& t = Spans();
  const SpanKey key{span.file.get(), span.line, span.col, span.end_line, span.end_col};
  std::lock_guard<std::mutex> lock(t.mu);
  auto [it, added] = t.ids.emplace(key, static_cast<int64_t>(t.spans.size()));
  if (added) t.spans.push_back(span);
  return it->second;
}

SourceSpan SpanOf(int64_t id) {
  SpanTable& t = Spans();
  std::lock_guard<std::mutex> lock(t.mu);
  if (id < 0 || id >= static_cast<int64_t>(t.spans.size())) return SourceSpan();
  return t.spans[id];
}

}  // namespace tfg::fused
