// A small JSON reader for what tfg takes from its environment
// (TF_CONFIG): objects keep their keys in document order, numbers are
// doubles. Errors say where the text went wrong; nothing in the text can
// make it abort or recurse without bound.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/status.h"

namespace tfg::cli {

struct JsonMember;

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;                            // kArray
  // kObject, in order. Not a vector of pairs: std::pair of a type still
  // being defined is refused by clang (the fuzz build) though GCC takes it.
  std::vector<JsonMember> members;

  // The member `key` of an object, or null when there is none.
  const JsonValue* Find(const std::string& key) const;
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

Result<JsonValue> ParseJson(const std::string& text);

// "an object", "a string", ... for error messages.
std::string JsonKindName(JsonValue::Kind kind);

}  // namespace tfg::cli
