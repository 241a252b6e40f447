// Freeing nested values without recursion. A list's implicit destructor
// would destroy its items, each of which destroys its own list, and so on:
// one stack frame per level, so `x = [x]` run 150,000 times overflows the
// stack when x goes. Instead a list, dict or function that is being freed
// moves what it holds into a work list, and a loop frees that list's values
// one at a time, first moving out what each of them alone holds. Every
// destructor below then only meets emptied containers, so the depth of
// nesting never becomes depth of the stack.
#include <iterator>
#include <utility>
#include <vector>

#include "interp/language/value.h"

namespace tfg {
namespace {

// Frees `pending` and everything only it holds, level by level.
void FreeIteratively(std::vector<Value> pending) {
  while (!pending.empty()) {
    Value v = std::move(pending.back());
    pending.pop_back();
    v.ReleaseContentsInto(pending);
  }  // v goes here, holding nothing nested any more
}

void MoveValues(std::vector<Value>& from, std::vector<Value>& out) {
  out.insert(out.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  from.clear();
}

void MoveEntries(std::vector<std::pair<Value, Value>>& entries, std::vector<Value>& out) {
  for (auto& [key, value] : entries) {
    out.push_back(std::move(key));
    out.push_back(std::move(value));
  }
  entries.clear();
}

// A closure's defaults, and its captured scope's variables when no other
// closure or frame shares that scope (a chain of closures, each capturing
// the last, nests as deeply as a list can).
void MoveFunctionParts(Function& fn, std::vector<Value>& out) {
  for (std::optional<Value>& d : fn.defaults) {
    if (d) out.push_back(std::move(*d));
  }
  fn.defaults.clear();
  if (fn.closure && fn.closure.use_count() == 1) {
    for (auto& [name, value] : fn.closure->vars) out.push_back(std::move(value));
    fn.closure->vars.clear();
  }
}

}  // namespace

void Value::ReleaseContentsInto(std::vector<Value>& out) {
  // use_count() == 1: nothing else can reach the object, so emptying it
  // changes nothing anyone sees (no weak pointers to lists, dicts or
  // functions exist).
  if (auto* list = std::get_if<std::shared_ptr<List>>(&rep_)) {
    if (list->use_count() == 1) MoveValues((*list)->items, out);
  } else if (auto* dict = std::get_if<std::shared_ptr<Dict>>(&rep_)) {
    if (dict->use_count() == 1) {
      MoveEntries((*dict)->entries_, out);
      (*dict)->index_.clear();
    }
  } else if (auto* fn = std::get_if<std::shared_ptr<Function>>(&rep_)) {
    if (fn->use_count() == 1) MoveFunctionParts(**fn, out);
  }
}

List::~List() { FreeIteratively(std::move(items)); }

Dict::~Dict() {
  std::vector<Value> pending;
  MoveEntries(entries_, pending);
  FreeIteratively(std::move(pending));
}

Function::~Function() {
  std::vector<Value> pending;
  MoveFunctionParts(*this, pending);
  FreeIteratively(std::move(pending));
}

}  // namespace tfg
