#include "ops/train/accumulator.h"

#include <fmt/format.h>

#include "ops/core/kernel.h"

namespace tfg {
namespace {

constexpr char kSeparator = '\x1f';

template <typename T>
void MeanInto(const std::vector<Tensor>& grads, int64_t n, Tensor& out) {
  T* dst = out.data<T>();
  const int64_t size = out.num_elements();
  for (int64_t i = 0; i < size; ++i) dst[i] = T(0);
  for (int64_t k = 0; k < n; ++k) {
    const T* src = grads[k].data<T>();
    for (int64_t i = 0; i < size; ++i) dst[i] += src[i];
  }
  for (int64_t i = 0; i < size; ++i) dst[i] /= static_cast<T>(n);
}

}  // namespace

Result<bool> ConditionalAccumulator::ApplyGradient(int64_t local_step, const Tensor& gradient) {
  if (gradient.dtype() != dtype_) {
    return InvalidArgument("accumulator '{}' holds {} gradients, got {}", name_, DTypeName(dtype_),
                           gradient.DebugString());
  }
  if (!shape_.CompatibleWith(PartialShape(gradient.shape()))) {
    return InvalidArgument("accumulator '{}' holds gradients of shape {}, got {}", name_, shape_.ToString(),
                           gradient.shape().ToString());
  }
  std::function<void()> served;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (local_step < global_step_) return false;
    if (!gradients_.empty() && gradients_[0].shape() != gradient.shape()) {
      return InvalidArgument("accumulator '{}' holds gradients of shape {} for this step, got {}", name_,
                             gradients_[0].shape().ToString(), gradient.shape().ToString());
    }
    gradients_.push_back(gradient);
    served = ServeLocked();
  }
  if (served) served();
  return true;
}

void ConditionalAccumulator::TakeGradient(int64_t num_required, CancellationManager* cm, TakeCallback done) {
  if (num_required < 1) {
    return done(InvalidArgument("take_gradient from accumulator '{}' needs num_required >= 1, got {}", name_,
                                num_required));
  }
  std::function<void()> served;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t id = next_id_++;
    takes_.push_back(Take{id, num_required, std::move(done), cm, 0, shared_from_this()});
    Take& take = takes_.back();
    if (cm != nullptr) {
      std::weak_ptr<ConditionalAccumulator> weak = weak_from_this();
      take.token = cm->Register([weak, id] {
        if (auto self = weak.lock()) self->CancelTake(id);
      });
      if (take.token == CancellationManager::kAlreadyCancelled) {
        served = [done = std::move(take.done), n = name_] {
          done(Error(Code::kCancelled, "take_gradient from accumulator '{}' was cancelled", n));
        };
        takes_.pop_back();
      }
    }
    if (!served) served = ServeLocked();
  }
  if (served) served();
}

std::function<void()> ConditionalAccumulator::ServeLocked() {
  if (takes_.empty()) return {};
  Take& take = takes_.front();
  if (static_cast<int64_t>(gradients_.size()) < take.num_required) return {};
  Result<Tensor> mean = MeanOfFirstLocked(take.num_required);
  gradients_.clear();
  ++global_step_;
  auto served = [done = std::move(take.done), cm = take.cm, token = take.token, keep = std::move(take.keep_alive),
                 mean = std::move(mean)]() mutable {
    if (cm != nullptr) cm->Deregister(token);
    done(std::move(mean));
  };
  takes_.pop_front();
  return served;
}

Result<Tensor> ConditionalAccumulator::MeanOfFirstLocked(int64_t n) const {
  TFG_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(HostAllocator(), dtype_, gradients_[0].shape()));
  switch (dtype_) {
    case DType::kF32: MeanInto<float>(gradients_, n, out); break;
    case DType::kF64: MeanInto<double>(gradients_, n, out); break;
    default: return Internal("accumulator '{}': unsupported dtype {}", name_, DTypeName(dtype_));
  }
  return out;
}

void ConditionalAccumulator::CancelTake(int64_t id) {
  TakeCallback done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = takes_.begin(); it != takes_.end(); ++it) {
      if (it->id != id) continue;
      done = std::move(it->done);
      takes_.erase(it);
      break;
    }
  }
  if (done) done(Error(Code::kCancelled, "take_gradient from accumulator '{}' was cancelled", name_));
}

void ConditionalAccumulator::SetGlobalStep(int64_t step) {
  std::lock_guard<std::mutex> lock(mu_);
  global_step_ = step;
}

int64_t ConditionalAccumulator::num_accumulated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(gradients_.size());
}

int64_t ConditionalAccumulator::global_step() const {
  std::lock_guard<std::mutex> lock(mu_);
  return global_step_;
}

std::string ConditionalAccumulator::WaitDescription() const {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t wanted = takes_.empty() ? 0 : takes_.front().num_required;
  return fmt::format("accumulator '{}' ({} of {} gradients, global step {})", name_, gradients_.size(), wanted,
                     global_step_);
}

std::string ConditionalAccumulator::DebugString() const {
  return fmt::format("conditional_accumulator '{}' {}{}", name_, DTypeName(dtype_), shape_.ToString());
}

Status ConditionalAccumulator::CheckCompatible(DType dtype, const PartialShape& shape) const {
  if (dtype == dtype_ && shape == shape_) return Status::OK();
  return FailedPrecondition("accumulator '{}' already exists as {}{}, not {}{}", name_, DTypeName(dtype_),
                            shape_.ToString(), DTypeName(dtype), shape.ToString());
}

std::string AccumulatorHandle(const std::string& container, const std::string& name) {
  return container.empty() ? name : container + kSeparator + name;
}

Result<std::shared_ptr<ConditionalAccumulator>> LookupAccumulator(ResourceMgr* resources, const Tensor& handle) {
  if (handle.dtype() != DType::kString || handle.num_elements() != 1) {
    return InvalidArgument("an accumulator handle is a string scalar (from conditional_accumulator(...)), got {}",
                           handle.DebugString());
  }
  if (resources == nullptr) return Internal("accumulators need a resource manager");
  const std::string& text = handle.data<std::string>()[0];
  const size_t sep = text.find(kSeparator);
  const std::string container = sep == std::string::npos ? "" : text.substr(0, sep);
  const std::string name = sep == std::string::npos ? text : text.substr(sep + 1);
  auto acc = resources->Lookup<ConditionalAccumulator>(container, name);
  if (!acc) {
    return NotFound("accumulator '{}'{} does not exist (was its container reset?)", name,
                    container.empty() ? "" : " in container '" + container + "'");
  }
  return acc;
}

}  // namespace tfg
