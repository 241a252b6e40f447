#include "ops/core/status.h"

#include <algorithm>
#include <array>

namespace tfg {
namespace {

constexpr std::array<std::pair<Code, std::string_view>, 16> kCodeNames = {{
    {Code::kOk, "OK"},
    {Code::kCancelled, "Cancelled"},
    {Code::kUnknown, "Unknown"},
    {Code::kInvalidArgument, "InvalidArgument"},
    {Code::kDeadlineExceeded, "DeadlineExceeded"},
    {Code::kNotFound, "NotFound"},
    {Code::kAlreadyExists, "AlreadyExists"},
    {Code::kPermissionDenied, "PermissionDenied"},
    {Code::kResourceExhausted, "ResourceExhausted"},
    {Code::kFailedPrecondition, "FailedPrecondition"},
    {Code::kAborted, "Aborted"},
    {Code::kOutOfRange, "OutOfRange"},
    {Code::kUnimplemented, "Unimplemented"},
    {Code::kInternal, "Internal"},
    {Code::kUnavailable, "Unavailable"},
    {Code::kDataLoss, "DataLoss"},
}};

// "   12 | logits = x @ W" and the caret line under it.
// A line longer than this (a generated script's one-line literal can be
// megabytes) is shown as a window around the column, with "..." for what
// is cut off on either side.
constexpr int kExcerptWidth = 160;
constexpr int kExcerptLead = 60;

struct Excerpt {
  std::string line;
  int col, last;  // 1-based byte columns in `line`
};

Excerpt Window(std::string_view line, int col, int last) {
  if (static_cast<int>(line.size()) <= kExcerptWidth) return {std::string(line), col, last};
  int begin = std::max(col - 1 - kExcerptLead, 0);
  while (begin > 0 && ContinuesCharacter(line[begin])) --begin;
  int end = std::min<int>(begin + kExcerptWidth, static_cast<int>(line.size()));
  while (end < static_cast<int>(line.size()) && ContinuesCharacter(line[end])) ++end;
  const std::string prefix = begin > 0 ? "..." : "";
  const int shift = static_cast<int>(prefix.size()) - begin;
  std::string shown = prefix + std::string(line.substr(begin, end - begin));
  if (end < static_cast<int>(line.size())) shown += "...";
  return {shown, col + shift, std::min(last, end) + shift};
}

void AppendExcerpt(std::string& out, const SourceSpan& span) {
  if (!span.valid()) return;
  std::string_view full = span.file->Line(span.line);
  if (full.empty() && span.line > span.file->num_lines()) return;
  std::string number = std::to_string(span.line);
  std::string gutter(number.size(), ' ');
  int col = std::max(span.col, 1);
  int last = (span.end_line == span.line && span.end_col >= col) ? span.end_col : col;
  last = std::min<int>(last, std::max<int>(static_cast<int>(full.size()), col));
  const Excerpt excerpt = Window(full, col, last);
  const std::string_view line = excerpt.line;
  col = excerpt.col;
  last = std::max(excerpt.last, col);
  out += fmt::format(" {} | {}\n", number, line);
  std::string marks;
  // Tabs in the source line keep their width in the caret line, and a
  // character of several UTF-8 bytes takes one place.
  for (int i = 1; i < col; ++i) {
    const bool in_line = i - 1 < static_cast<int>(line.size());
    if (in_line && ContinuesCharacter(line[i - 1])) continue;
    marks += (in_line && line[i - 1] == '\t') ? '\t' : ' ';
  }
  marks += '^';
  marks += std::string(CharacterColumn(line, last) - CharacterColumn(line, col), '~');
  out += fmt::format(" {} | {}\n", gutter, marks);
}

}  // namespace

std::string_view CodeName(Code code) {
  for (const auto& [c, name] : kCodeNames) {
    if (c == code) return name;
  }
  return "Unknown";
}

std::optional<Code> CodeFromName(std::string_view name) {
  for (const auto& [c, n] : kCodeNames) {
    if (n == name) return c;
  }
  return std::nullopt;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

const SourceSpan& Status::span() const {
  static const SourceSpan kNone;
  return rep_ ? rep_->span : kNone;
}

const std::vector<Note>& Status::notes() const {
  static const std::vector<Note> kNone;
  return rep_ ? rep_->notes : kNone;
}

void Status::Detach() {
  if (rep_ && rep_.use_count() > 1) rep_ = std::make_shared<Rep>(*rep_);
}

Status& Status::WithSpan(const SourceSpan& span) {
  if (rep_ && !rep_->span.valid() && span.valid()) {
    Detach();
    rep_->span = span;
  }
  return *this;
}

Status& Status::AddNote(SourceSpan span, std::string message) {
  if (rep_) {
    Detach();
    rep_->notes.push_back({std::move(span), std::move(message)});
  }
  return *this;
}

Status& Status::Prepend(std::string_view context) {
  if (rep_) {
    Detach();
    rep_->message = fmt::format("{}{}", context, rep_->message);
  }
  return *this;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string where = rep_->span.valid() ? rep_->span.ToString() + ": " : "";
  return fmt::format("{}{}: {}", where, CodeName(rep_->code), rep_->message);
}

std::string FormatDiagnostic(const Status& status) {
  if (status.ok()) return "";
  std::string out;
  const SourceSpan& span = status.span();
  if (span.valid()) out += span.ToString() + ": ";
  out += "error: " + status.message() + "\n";
  AppendExcerpt(out, span);
  for (const Note& note : status.notes()) {
    if (note.span.valid()) out += note.span.ToString() + ": ";
    out += "note: " + note.message + "\n";
    AppendExcerpt(out, note.span);
  }
  return out;
}

}  // namespace tfg
