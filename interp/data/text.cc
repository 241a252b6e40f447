// Tokenizing text and counting a vocabulary; see text.h.
#include "interp/data/text.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace tfg::data {
namespace {

// Bytes in the UTF-8 sequence led by byte c (1 for an invalid lead byte).
size_t Utf8Length(unsigned char c) {
  if (c >= 0xF0 && c <= 0xF4) return 4;
  if (c >= 0xE0) return c <= 0xEF ? 3 : 1;
  if (c >= 0xC2) return 2;
  return 1;
}

// The whole sequence of `n` bytes at text[i] is present and well formed.
bool ValidSequence(std::string_view text, size_t i, size_t n) {
  if (i + n > text.size()) return false;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
  }
  return true;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool IsWordChar(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  return u >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::vector<std::string> SplitChars(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    size_t n = Utf8Length(static_cast<unsigned char>(text[i]));
    if (!ValidSequence(text, i, n)) n = 1;
    out.emplace_back(text.substr(i, n));
    i += n;
  }
  return out;
}

std::vector<std::string> SplitWhitespace(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    size_t j = i;
    while (j < text.size() && !IsSpace(text[j])) ++j;
    if (j > i) out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

// Word characters, joined by single apostrophes or hyphens between them.
std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && !IsWordChar(text[i])) ++i;
    size_t j = i;
    while (j < text.size()) {
      if (IsWordChar(text[j])) {
        ++j;
      } else if ((text[j] == '\'' || text[j] == '-') && j + 1 < text.size() && IsWordChar(text[j + 1])) {
        j += 2;
      } else {
        break;
      }
    }
    if (j > i) out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

Result<TokenSplit> ParseTokenSplit(const std::string& name) {
  if (name == "chars") return TokenSplit::kChars;
  if (name == "whitespace") return TokenSplit::kWhitespace;
  if (name == "words") return TokenSplit::kWords;
  return InvalidArgument("split must be \"chars\", \"whitespace\" or \"words\", got \"{}\"", name);
}

std::string TextAfter(std::string_view text, std::string_view marker) {
  std::string out;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    const size_t at = line.find(marker);
    if (at != std::string_view::npos) {
      out.append(line.substr(at + marker.size()));
      out.push_back('\n');
    }
    start = end + 1;
  }
  return out;
}

std::vector<std::string> Tokenize(std::string_view text, TokenSplit split, bool lower) {
  std::string lowered;
  if (lower) {
    lowered.assign(text);
    for (char& c : lowered) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    text = lowered;
  }
  switch (split) {
    case TokenSplit::kChars: return SplitChars(text);
    case TokenSplit::kWhitespace: return SplitWhitespace(text);
    case TokenSplit::kWords: return SplitWords(text);
  }
  return {};
}

Result<Vocabulary> BuildVocabulary(const std::vector<std::string>& tokens, int64_t min_count, int64_t max_size,
                                   const std::string& unknown) {
  if (min_count < 1) return InvalidArgument("min_count must be >= 1, got {}", min_count);
  if (max_size < 0 || max_size == 1) {
    return InvalidArgument("max_size must be 0 (no limit) or >= 2 (the unknown token and one more), got {}", max_size);
  }
  // Distinct tokens in order of first appearance, and their counts.
  std::unordered_map<std::string_view, size_t> index;
  std::vector<std::string_view> distinct;
  std::vector<int64_t> counts;
  for (const std::string& t : tokens) {
    auto [it, inserted] = index.emplace(t, distinct.size());
    if (inserted) {
      distinct.push_back(t);
      counts.push_back(0);
    }
    ++counts[it->second];
  }
  std::vector<size_t> order(distinct.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return counts[a] > counts[b]; });
  Vocabulary v;
  v.tokens.push_back(unknown);
  v.counts.push_back(0);
  for (size_t k : order) {
    const bool room = max_size == 0 || static_cast<int64_t>(v.tokens.size()) < max_size;
    if (distinct[k] != unknown && counts[k] >= min_count && room) {
      v.tokens.emplace_back(distinct[k]);
      v.counts.push_back(counts[k]);
    } else {
      v.counts[0] += counts[k];
    }
  }
  return v;
}

}  // namespace tfg::data
