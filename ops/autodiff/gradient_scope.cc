#include "ops/autodiff/gradient_scope.h"

#include <utility>

namespace tfg {
namespace {

// Per thread: two sessions may build gradients in two graphs at once.
thread_local const GradientScope* t_innermost = nullptr;

}  // namespace

GradientScope::GradientScope(std::string name) : name_(std::move(name)), outer_(t_innermost) { t_innermost = this; }

GradientScope::~GradientScope() { t_innermost = outer_; }

const std::string& GradientScope::Current() {
  static const std::string kDefault = "gradients";
  return t_innermost ? t_innermost->name_ : kDefault;
}

}  // namespace tfg
