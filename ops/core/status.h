// Errors are values. A Status carries a code, a message written for the
// person reading it, the source span of the script construct that raised it,
// and optional notes pointing at other places ("declared here").
#pragma once

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ops/core/source.h"

namespace tfg {

// The error kinds a script can catch by name (`except OutOfRange { ... }`).
enum class Code {
  kOk = 0,
  kCancelled,
  kUnknown,
  kInvalidArgument,
  kDeadlineExceeded,
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kResourceExhausted,
  kFailedPrecondition,
  kAborted,
  kOutOfRange,
  kUnimplemented,
  kInternal,
  kUnavailable,
  kDataLoss,
};

// "InvalidArgument", "OutOfRange", ... as scripts name them.
std::string_view CodeName(Code code);
std::optional<Code> CodeFromName(std::string_view name);

struct Note {
  SourceSpan span;
  std::string message;
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message, SourceSpan span = {})
      : rep_(std::make_shared<Rep>(Rep{code, std::move(message), std::move(span), {}})) {}

  static Status OK() { return Status(); }
  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  const std::string& message() const;
  const SourceSpan& span() const;
  const std::vector<Note>& notes() const;

  // Attaches `span` unless the error already points somewhere: the innermost
  // location (the node that failed) is the most useful one.
  Status& WithSpan(const SourceSpan& span);
  Status& AddNote(SourceSpan span, std::string message);
  // Prefixes the message ("while running init(): ...").
  Status& Prepend(std::string_view context);

  // One line: "file.tfg:3:7: InvalidArgument: message" (no source excerpt).
  std::string ToString() const;

 private:
  struct Rep {
    Code code;
    std::string message;
    SourceSpan span;
    std::vector<Note> notes;
  };
  void Detach();  // copy-on-write: statuses are shared by copies
  std::shared_ptr<Rep> rep_;
};

// Renders an error the way the user sees it:
//   train.tfg:12:7: error: matmul: inner dimensions differ: [?, 784] vs [10, 10]
//      12 | logits = x @ W
//         |          ^~~~~
// followed by each note in the same form.
std::string FormatDiagnostic(const Status& status);

template <typename... Args>
Status Error(Code code, fmt::format_string<Args...> f, Args&&... args) {
  return Status(code, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status InvalidArgument(fmt::format_string<Args...> f, Args&&... args) {
  return Status(Code::kInvalidArgument, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status NotFound(fmt::format_string<Args...> f, Args&&... args) {
  return Status(Code::kNotFound, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status FailedPrecondition(fmt::format_string<Args...> f, Args&&... args) {
  return Status(Code::kFailedPrecondition, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status OutOfRange(fmt::format_string<Args...> f, Args&&... args) {
  return Status(Code::kOutOfRange, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status Unimplemented(fmt::format_string<Args...> f, Args&&... args) {
  return Status(Code::kUnimplemented, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status Internal(fmt::format_string<Args...> f, Args&&... args) {
  return Status(Code::kInternal, fmt::format(f, std::forward<Args>(args)...));
}

// Result<T> holds a T or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Status status) : v_(std::move(status)) {}
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace tfg

#define TFG_STATUS_CONCAT_INNER(a, b) a##b
#define TFG_STATUS_CONCAT(a, b) TFG_STATUS_CONCAT_INNER(a, b)

#define TFG_RETURN_IF_ERROR(expr)             \
  do {                                        \
    ::tfg::Status tfg_status_ = (expr);       \
    if (!tfg_status_.ok()) return tfg_status_; \
  } while (0)

// TFG_ASSIGN_OR_RETURN(auto x, ComputeX());
#define TFG_ASSIGN_OR_RETURN(lhs, expr) \
  TFG_ASSIGN_OR_RETURN_IMPL(TFG_STATUS_CONCAT(tfg_result_, __LINE__), lhs, expr)
#define TFG_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
