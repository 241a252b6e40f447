#include "ops/math/einsum_spec.h"

#include <algorithm>
#include <array>


namespace tfg::math::einsum {
namespace {

constexpr std::string_view kEllipsis = "...";

int LetterLabel(char ch) { return ch >= 'a' && ch <= 'z' ? ch - 'a' : ch - 'A' + 26; }
char LabelLetter(int label) { return label < 26 ? static_cast<char>('a' + label) : static_cast<char>('A' + label - 26); }
bool IsLetter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

// Checks one term: letters and at most one "...".
Status CheckTerm(std::string_view equation, const std::string& term) {
  size_t ellipses = 0;
  for (size_t i = 0; i < term.size();) {
    if (term.compare(i, kEllipsis.size(), kEllipsis) == 0) {
      ++ellipses;
      i += kEllipsis.size();
      continue;
    }
    if (!IsLetter(term[i])) {
      return InvalidArgument("einsum: equation '{}' has '{}' in term '{}'; terms are letters a-z, A-Z and '...'",
                             equation, term[i], term);
    }
    ++i;
  }
  if (ellipses > 1) return InvalidArgument("einsum: equation '{}' has more than one '...' in term '{}'", equation, term);
  return Status::OK();
}

std::vector<std::string> SplitTerms(const std::string& s) {
  std::vector<std::string> terms(1);
  for (char ch : s) {
    if (ch == ',') {
      terms.emplace_back();
    } else {
      terms.back() += ch;
    }
  }
  return terms;
}

bool HasEllipsis(const std::string& term) { return term.find(kEllipsis) != std::string::npos; }

// NumPy's implicit output: "..." when any input has it, then the letters
// used exactly once, in ASCII order.
std::string ImplicitOutput(const std::vector<std::string>& inputs) {
  std::array<int, 52> uses{};
  bool ellipsis = false;
  for (const std::string& term : inputs) {
    ellipsis = ellipsis || HasEllipsis(term);
    for (char ch : term) {
      if (IsLetter(ch)) ++uses[LetterLabel(ch)];
    }
  }
  std::string out = ellipsis ? std::string(kEllipsis) : "";
  for (int label = 0; label < 52; ++label) {  // 'A'..'Z' sort before 'a'..'z'
    const int l = (label + 26) % 52;
    if (uses[l] == 1) out += LabelLetter(l);
  }
  return out;
}

}  // namespace

Result<EquationText> ParseEquation(std::string_view equation) {
  std::string text;
  for (char ch : equation) {
    if (ch != ' ') text += ch;
  }
  EquationText eq;
  const size_t arrow = text.find("->");
  eq.inputs = SplitTerms(text.substr(0, arrow));
  for (const std::string& term : eq.inputs) TFG_RETURN_IF_ERROR(CheckTerm(equation, term));
  if (arrow == std::string::npos) {
    eq.output = ImplicitOutput(eq.inputs);
    return eq;
  }
  eq.output = text.substr(arrow + 2);
  if (eq.output.find(',') != std::string::npos || eq.output.find("->") != std::string::npos) {
    return InvalidArgument("einsum: equation '{}' must have one output term after '->'", equation);
  }
  TFG_RETURN_IF_ERROR(CheckTerm(equation, eq.output));
  for (char ch : eq.output) {
    if (!IsLetter(ch)) continue;
    const bool found = std::any_of(eq.inputs.begin(), eq.inputs.end(),
                                   [&](const std::string& t) { return t.find(ch) != std::string::npos; });
    if (!found) return InvalidArgument("einsum: equation '{}': output label '{}' is in no input", equation, ch);
  }
  return eq;
}

std::string JoinEquation(const std::vector<std::string>& inputs, const std::string& output) {
  std::string s;
  for (size_t i = 0; i < inputs.size(); ++i) s += (i ? "," : "") + inputs[i];
  return s + "->" + output;
}

namespace {

int ExplicitLetters(const std::string& term) {
  return static_cast<int>(std::count_if(term.begin(), term.end(), IsLetter));
}

// Labels of `term` for `ellipsis_rank` dims of "..." out of `total` in all.
std::vector<int> TermLabels(const std::string& term, int ellipsis_rank, int total) {
  std::vector<int> labels;
  for (size_t i = 0; i < term.size();) {
    if (term.compare(i, kEllipsis.size(), kEllipsis) == 0) {
      for (int j = 0; j < ellipsis_rank; ++j) labels.push_back(kEllipsisLabel + total - ellipsis_rank + j);
      i += kEllipsis.size();
    } else {
      labels.push_back(LetterLabel(term[i++]));
    }
  }
  return labels;
}

}  // namespace

Result<BoundEquation> Bind(const EquationText& eq, const std::vector<int>& ranks) {
  const std::string equation = JoinEquation(eq.inputs, eq.output);
  if (ranks.size() != eq.inputs.size()) {
    return InvalidArgument("einsum: equation '{}' has {} input terms but {} operands were given", equation,
                           eq.inputs.size(), ranks.size());
  }
  std::vector<int> ellipsis_ranks(ranks.size(), 0);
  int total = 0;
  for (size_t k = 0; k < ranks.size(); ++k) {
    const std::string& term = eq.inputs[k];
    const int letters = ExplicitLetters(term);
    const bool ellipsis = HasEllipsis(term);
    if (ranks[k] < letters || (!ellipsis && ranks[k] != letters)) {
      return InvalidArgument("einsum: equation '{}': operand {} has rank {}, which does not fit its term '{}'",
                             equation, k, ranks[k], term);
    }
    ellipsis_ranks[k] = ranks[k] - letters;
    total = std::max(total, ellipsis_ranks[k]);
  }
  if (total > 0 && !HasEllipsis(eq.output)) {  // TensorFlow refuses to sum them silently
    return InvalidArgument("einsum: equation '{}': the operands have {} '...' dims but the output has no '...'",
                           equation, total);
  }
  BoundEquation b;
  for (size_t k = 0; k < ranks.size(); ++k) b.inputs.push_back(TermLabels(eq.inputs[k], ellipsis_ranks[k], total));
  b.output = TermLabels(eq.output, total, total);
  b.num_labels = kEllipsisLabel + total;
  return b;
}

Result<std::vector<int64_t>> LabelSizes(const std::string& equation, const BoundEquation& b,
                                        const std::vector<PartialShape>& shapes) {
  constexpr int64_t kUnseen = -2;
  std::vector<int64_t> sizes(static_cast<size_t>(b.num_labels), kUnseen);
  auto shapes_text = [&] {
    std::string s;
    for (size_t k = 0; k < shapes.size(); ++k) s += (k ? ", " : "") + shapes[k].ToString();
    return s;
  };
  for (size_t k = 0; k < b.inputs.size(); ++k) {
    for (size_t d = 0; d < b.inputs[k].size(); ++d) {
      const int label = b.inputs[k][d];
      const int64_t n = shapes[k].dim(static_cast<int>(d));
      int64_t& size = sizes[static_cast<size_t>(label)];
      const bool broadcasts = label >= kEllipsisLabel;
      if (size == kUnseen || size == -1 || (broadcasts && size == 1)) {
        if (!(size == -1 && n == 1 && broadcasts)) size = n;
      } else if (n != -1 && n != size && !(broadcasts && n == 1)) {
        if (broadcasts) {
          return InvalidArgument("einsum: equation '{}': the '...' dims of operands {} do not broadcast", equation,
                                 shapes_text());
        }
        return InvalidArgument("einsum: equation '{}': label '{}' has size {} and {} in operands {}", equation,
                               LabelLetter(label), size, n, shapes_text());
      }
    }
  }
  for (int64_t& size : sizes) {
    if (size == kUnseen) size = 1;  // an output "..." no operand has (rank 0)
  }
  return sizes;
}

std::vector<int64_t> OutputDims(const BoundEquation& b, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> dims;
  for (int label : b.output) dims.push_back(sizes[static_cast<size_t>(label)]);
  return dims;
}

}  // namespace tfg::math::einsum
