#include "interp/language/value_equal.h"

#include <functional>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tfg {
namespace {

using PairId = std::pair<const void*, const void*>;

struct PairIdHash {
  size_t operator()(const PairId& p) const {
    const std::hash<const void*> h;
    return h(p.first) * 31 + h(p.second);
  }
};

// Two containers being compared, and the next of their items to compare.
struct PairFrame {
  const Value* a;
  const Value* b;
  PairId id;
  size_t next = 0;
};

enum class Verdict { kEqual, kDiffer, kEnter };

class PairWalk {
 public:
  PairWalk(bool dicts, const LeafEqual& leaf) : dicts_(dicts), leaf_(leaf) {}

  Result<bool> Run(const Value& a, const Value& b) {
    TFG_ASSIGN_OR_RETURN(Verdict first, Compare(a, b));
    if (first != Verdict::kEnter) return first == Verdict::kEqual;
    while (!stack_.empty()) {
      PairFrame& top = stack_.back();
      const Value* x = nullptr;
      const Value* y = nullptr;
      if (!NextPair(top, x, y)) {
        on_path_.erase(top.id);
        stack_.pop_back();
        continue;
      }
      if (y == nullptr) return false;  // a key of one dict missing from the other
      TFG_ASSIGN_OR_RETURN(Verdict v, Compare(*x, *y));  // may grow stack_: `top` is not used after
      if (v == Verdict::kDiffer) return false;
    }
    return true;
  }

 private:
  bool IsContainer(const Value& v) const {
    return v.is(ValueKind::kList) || (dicts_ && v.is(ValueKind::kDict));
  }

  Result<Verdict> Compare(const Value& a, const Value& b) {
    if (!IsContainer(a) || a.kind() != b.kind()) {
      TFG_ASSIGN_OR_RETURN(bool same, leaf_(a, b));
      return same ? Verdict::kEqual : Verdict::kDiffer;
    }
    const bool list = a.is(ValueKind::kList);
    const void* ia = list ? static_cast<const void*>(&a.as_list()) : &a.as_dict();
    const void* ib = list ? static_cast<const void*>(&b.as_list()) : &b.as_dict();
    if (ia == ib) return Verdict::kEqual;
    const size_t na = list ? a.as_list().items.size() : a.as_dict().size();
    const size_t nb = list ? b.as_list().items.size() : b.as_dict().size();
    if (na != nb) return Verdict::kDiffer;
    PairId id{ia, ib};
    if (!on_path_.insert(id).second) return Verdict::kEqual;
    stack_.push_back(PairFrame{&a, &b, id});
    return Verdict::kEnter;
  }

  // The next pair of items of `f`, false when there is none; `y` is null
  // when a dict key of `a` is missing from `b`.
  static bool NextPair(PairFrame& f, const Value*& x, const Value*& y) {
    if (f.a->is(ValueKind::kList)) {
      const auto& xs = f.a->as_list().items;
      if (f.next >= xs.size()) return false;
      x = &xs[f.next];
      y = &f.b->as_list().items[f.next];
    } else {
      const auto& entries = f.a->as_dict().entries();
      if (f.next >= entries.size()) return false;
      x = &entries[f.next].second;
      y = f.b->as_dict().Find(entries[f.next].first);
    }
    ++f.next;
    return true;
  }

  bool dicts_;
  const LeafEqual& leaf_;
  std::vector<PairFrame> stack_;
  std::unordered_set<PairId, PairIdHash> on_path_;
};

}  // namespace

Result<bool> PairwiseEqual(const Value& a, const Value& b, bool dicts, const LeafEqual& leaf) {
  PairWalk walk(dicts, leaf);
  return walk.Run(a, b);
}

}  // namespace tfg
