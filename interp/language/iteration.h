// Iterating a host value, as `for` loops and comprehensions do: a list, a
// range, a string's characters, a dict's keys, a host tensor's rows.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/language/value.h"
#include "interp/language/value_convert.h"

namespace tfg {

// One item of a for loop's iterable; nullopt past the end. Lists are read
// live (appending while iterating sees the new items, as in Python).
class Iteration {
 public:
  static Result<Iteration> Of(const Value& v) {
    Iteration it;
    it.v_ = v;
    switch (v.kind()) {
      case ValueKind::kList:
      case ValueKind::kRange: return it;
      case ValueKind::kString:
        for (std::string_view c : Characters(v.as_string())) it.chars_.emplace_back(c);
        return it;
      case ValueKind::kDict:
        for (const auto& [k, item] : v.as_dict().entries()) it.keys_.push_back(k);
        return it;
      case ValueKind::kTensor:
        if (v.as_tensor().rank() == 0) return InvalidArgument("cannot iterate over a scalar host tensor");
        return it;
      case ValueKind::kGraphTensor:
      case ValueKind::kVariable:
        return InvalidArgument(
            "cannot iterate over {} while the graph is built; run(...) it first, or use while_loop(...)",
            Describe(v));
      default: return InvalidArgument("cannot iterate over {}", Describe(v));
    }
  }

  std::optional<Value> Next() {
    int64_t i = pos_++;
    switch (v_.kind()) {
      case ValueKind::kList:
        if (i < static_cast<int64_t>(v_.as_list().items.size())) return v_.as_list().items[i];
        break;
      case ValueKind::kRange:
        if (i < v_.as_range().size()) return Value::Int(v_.as_range().at(i));
        break;
      case ValueKind::kString:
        if (i < static_cast<int64_t>(chars_.size())) return Value::Str(chars_[i]);
        break;
      case ValueKind::kDict:
        if (i < static_cast<int64_t>(keys_.size())) return keys_[i];
        break;
      case ValueKind::kTensor:
        if (i < v_.as_tensor().dim(0)) return Value::HostTensor(TensorRow(v_.as_tensor(), i));
        break;
      default: break;
    }
    return std::nullopt;
  }

 private:
  Value v_;
  std::vector<Value> keys_;
  std::vector<std::string> chars_;  // a string's characters (copies: v_ may move)
  int64_t pos_ = 0;
};

}  // namespace tfg
