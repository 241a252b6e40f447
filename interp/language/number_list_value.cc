// NumberListValue; see number_list_value.h.
#include "interp/language/number_list_value.h"

#include <vector>

namespace tfg {

namespace {

using Item = ast::NumberList::Item;

// How many elements the outermost list has (a nested list counts as one).
size_t OutermostLength(const ast::NumberList& list) {
  size_t length = 0, depth = 0;
  for (Item item : list.items) {
    if (depth == 0 && item != Item::kClose) ++length;
    if (item == Item::kOpen) ++depth;
    if (item == Item::kClose && depth > 0) --depth;
  }
  return length;
}

}  // namespace

// A loop with a stack of the lists still open, not recursion: the items say
// where each nested list begins and ends.
Value NumberListValue(const ast::NumberList& list) {
  std::vector<std::vector<Value>> open(1);
  open.front().reserve(OutermostLength(list));
  size_t next = 0;
  for (Item item : list.items) {
    switch (item) {
      case Item::kInt:
        if (next < list.numbers.size()) open.back().push_back(Value::Int(list.numbers[next++].i));
        break;
      case Item::kFloat:
        if (next < list.numbers.size()) open.back().push_back(Value::Float(list.numbers[next++].f));
        break;
      case Item::kOpen: open.emplace_back(); break;
      case Item::kClose:
        if (open.size() > 1) {
          Value inner = Value::NewList(std::move(open.back()));
          open.pop_back();
          open.back().push_back(std::move(inner));
        }
        break;
    }
  }
  return Value::NewList(std::move(open.front()));
}

}  // namespace tfg
