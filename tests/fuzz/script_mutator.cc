// Structure-aware mutations for build_fuzz: scripts are lines, and the
// crashes of issue 20 came from extreme numbers in otherwise valid calls
// (max_pool(x, [2**40, 2**40], ...), slice(..., [9223372036854775807])).
// Half of the mutations are libFuzzer's own byte-level ones; the others
// keep the script parsable and change one thing: a number literal becomes
// an extreme value, or a line is deleted, duplicated or swapped. Crossing
// over splices a run of lines from one script into another.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

const char* const kExtremeNumbers[] = {"0",    "-1",          "-2",         "2**31",  "2**32",
                                       "2**62", "2**63 - 1", "9223372036854775807", "-9223372036854775808",
                                       "3037000500", "nan",     "inf",        "-inf",   "1e308",
                                       "[]",   "[2**62, 2**62]", "[0, 2**63 - 1]", "[-1]", "65"};

std::vector<std::string> SplitLines(const uint8_t* data, size_t size) {
  std::vector<std::string> lines;
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    cur.push_back(static_cast<char>(data[i]));
    if (data[i] == '\n') lines.push_back(std::move(cur)), cur.clear();
  }
  if (!cur.empty()) lines.push_back(std::move(cur));
  return lines;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l;
  return out;
}

// The [begin, end) of every decimal literal in `text`.
std::vector<std::pair<size_t, size_t>> Numbers(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < text.size();) {
    const bool after_name = i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_');
    const bool starts = text[i] >= '0' && text[i] <= '9' && !after_name;
    if (!starts) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    out.emplace_back(i, j);
    i = j;
  }
  return out;
}

std::string MutateLines(std::string text, std::mt19937& random) {
  std::vector<std::string> lines = SplitLines(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  if (lines.empty()) return text;
  const size_t a = random() % lines.size(), b = random() % lines.size();
  switch (random() % 5) {
    case 0:
    case 1: {  // an extreme number in place of one literal
      auto numbers = Numbers(text);
      if (numbers.empty()) return text;
      auto [begin, end] = numbers[random() % numbers.size()];
      return text.substr(0, begin) + kExtremeNumbers[random() % std::size(kExtremeNumbers)] + text.substr(end);
    }
    case 2: lines.erase(lines.begin() + a); break;
    case 3: lines.insert(lines.begin() + a, lines[b]); break;
    default: std::swap(lines[a], lines[b]); break;
  }
  return Join(lines);
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937 random(seed);
  if (random() % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string out = MutateLines(std::string(reinterpret_cast<const char*>(data), size), random);
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1, const uint8_t* data2, size_t size2,
                                            uint8_t* out, size_t max_out_size, unsigned int seed) {
  std::mt19937 random(seed);
  std::vector<std::string> first = SplitLines(data1, size1), second = SplitLines(data2, size2);
  if (second.empty()) return 0;
  const size_t at = first.empty() ? 0 : random() % (first.size() + 1);
  const size_t from = random() % second.size();
  const size_t count = 1 + random() % std::min<size_t>(8, second.size() - from);
  first.insert(first.begin() + at, second.begin() + from, second.begin() + from + count);
  const std::string joined = Join(first);
  const size_t n = std::min(joined.size(), max_out_size);
  std::memcpy(out, joined.data(), n);
  return n;
}
