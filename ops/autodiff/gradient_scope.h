// The name scope the nodes of one grad() call are built under. TensorFlow
// names them gradients/..., a second call's gradients_1/..., and inside
// `with name_scope("s")` s/gradients/...; the caller, which knows the
// enclosing scope and the names taken, picks it and sets it here for the
// duration of the call. The op authors' GradContext::Op reads it, so their
// gradient functions need not pass it on.
#pragma once

#include <string>

namespace tfg {

class GradientScope {
 public:
  // `name` without a trailing '/' ("gradients_1", "s/gradients"); for this
  // thread until the object goes.
  explicit GradientScope(std::string name);
  ~GradientScope();
  GradientScope(const GradientScope&) = delete;
  GradientScope& operator=(const GradientScope&) = delete;

  // The innermost scope set on this thread, or "gradients".
  static const std::string& Current();

 private:
  std::string name_;
  const GradientScope* outer_;
};

}  // namespace tfg
