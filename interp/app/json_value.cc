#include "interp/app/json_value.h"

#include <cstdlib>

namespace tfg::cli {
namespace {

constexpr int kMaxDepth = 64;

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : text_(text) {}

  Result<JsonValue> ParseDocument() {
    TFG_ASSIGN_OR_RETURN(JsonValue v, ParseValue(0));
    SkipSpace();
    if (pos_ != text_.size()) return Fail("unexpected text after the value");
    return v;
  }

 private:
  Status Fail(const std::string& what) const {
    return InvalidArgument("not valid JSON at offset {}: {}", pos_, what);
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Take(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool TakeWord(const char* word) {
    const std::string w(word);
    if (text_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }

  Result<JsonValue> ParseValue(int depth) {
    if (depth > kMaxDepth) return Fail("nested too deeply");
    SkipSpace();
    if (pos_ >= text_.size()) return Fail("the text ends where a value should be");
    JsonValue v;
    const char c = text_[pos_];
    if (c == '{') return ParseObject(depth);
    if (c == '[') return ParseArray(depth);
    if (c == '"') {
      v.kind = JsonValue::Kind::kString;
      TFG_ASSIGN_OR_RETURN(v.string, ParseString());
    } else if (TakeWord("true") || TakeWord("false")) {
      v.kind = JsonValue::Kind::kBool;
      v.boolean = c == 't';
    } else if (TakeWord("null")) {
      v.kind = JsonValue::Kind::kNull;
    } else {
      return ParseNumber();
    }
    return v;
  }

  Result<JsonValue> ParseNumber() {
    const char* begin = text_.c_str() + pos_;
    char* end = nullptr;
    const double d = std::strtod(begin, &end);
    if (end == begin || (*begin != '-' && (*begin < '0' || *begin > '9'))) return Fail("expected a value");
    pos_ += static_cast<size_t>(end - begin);
    JsonValue v;
    v.kind = JsonValue::Kind::kNumber;
    v.number = d;
    return v;
  }

  // Escapes other than \uXXXX are kept as their character; \uXXXX below
  // 0x80 becomes that byte, others are refused (TF_CONFIG is ASCII).
  Result<std::string> ParseString() {
    ++pos_;  // the opening quote
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char e = text_[pos_++];
      if (e == 'n') out += '\n';
      else if (e == 't') out += '\t';
      else if (e == 'r') out += '\r';
      else if (e == 'b') out += '\b';
      else if (e == 'f') out += '\f';
      else if (e == 'u') {
        if (pos_ + 4 > text_.size()) return Fail("a \\u escape is cut short");
        const long code = std::strtol(text_.substr(pos_, 4).c_str(), nullptr, 16);
        if (code <= 0 || code >= 0x80) return Fail("only ASCII \\u escapes are supported");
        out += static_cast<char>(code);
        pos_ += 4;
      } else {
        out += e;
      }
    }
    if (pos_ >= text_.size()) return Fail("a string is not closed");
    ++pos_;  // the closing quote
    return out;
  }

  Result<JsonValue> ParseArray(int depth) {
    ++pos_;
    JsonValue v;
    v.kind = JsonValue::Kind::kArray;
    if (Take(']')) return v;
    do {
      TFG_ASSIGN_OR_RETURN(JsonValue item, ParseValue(depth + 1));
      v.items.push_back(std::move(item));
    } while (Take(','));
    if (!Take(']')) return Fail("expected ',' or ']'");
    return v;
  }

  Result<JsonValue> ParseObject(int depth) {
    ++pos_;
    JsonValue v;
    v.kind = JsonValue::Kind::kObject;
    if (Take('}')) return v;
    do {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Fail("expected a key in quotes");
      TFG_ASSIGN_OR_RETURN(std::string key, ParseString());
      if (!Take(':')) return Fail("expected ':' after a key");
      TFG_ASSIGN_OR_RETURN(JsonValue item, ParseValue(depth + 1));
      v.members.push_back(JsonMember{std::move(key), std::move(item)});
    } while (Take(','));
    if (!Take('}')) return Fail("expected ',' or '}'");
    return v;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

const JsonValue* JsonValue::Find(const std::string& key) const {
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

Result<JsonValue> ParseJson(const std::string& text) { return JsonParser(text).ParseDocument(); }

std::string JsonKindName(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull: return "null";
    case JsonValue::Kind::kBool: return "a boolean";
    case JsonValue::Kind::kNumber: return "a number";
    case JsonValue::Kind::kString: return "a string";
    case JsonValue::Kind::kArray: return "a list";
    case JsonValue::Kind::kObject: return "an object";
  }
  return "a value";
}

}  // namespace tfg::cli
