#include "ops/core/tensor.h"

#include <new>

#include "ops/core/checked_size.h"

namespace tfg {

Buffer::Buffer(Allocator* alloc, DType dtype, int64_t n)
    : alloc_(alloc), dtype_(dtype), n_(n), bytes_(static_cast<size_t>(n) * DTypeSize(dtype)) {
  data_ = alloc_->Allocate(bytes_);
  if (data_ && dtype_ == DType::kString) {
    auto* s = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < n_; ++i) new (s + i) std::string();
  }
}

Buffer::Buffer(void* data, size_t bytes, std::shared_ptr<const void> owner)
    : alloc_(HostAllocator()),
      dtype_(DType::kInvalid),
      n_(0),
      bytes_(bytes),
      data_(data),
      owner_(std::move(owner)) {}

Buffer::~Buffer() {
  if (!data_ || owner_) return;
  if (dtype_ == DType::kString) {
    auto* s = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < n_; ++i) s[i].~basic_string();
  }
  alloc_->Deallocate(data_, bytes_);
}

Tensor::Tensor(Allocator* alloc, DType dtype, TensorShape shape) : dtype_(dtype), shape_(std::move(shape)) {
  // A shape no tensor may have gets no buffer (IsInitialized() is false
  // unless it has no elements); Allocate() says why.
  if (!checked::CheckTensorShape("", shape_, dtype_).ok()) return;
  auto buffer = std::make_shared<Buffer>(alloc, dtype, shape_.num_elements());
  if (buffer->data() != nullptr) buffer_ = std::move(buffer);
}

Result<Tensor> Tensor::Allocate(Allocator* alloc, DType dtype, TensorShape shape) {
  for (int64_t d : shape.dims()) {
    if (d < 0) return InvalidArgument("cannot allocate a tensor of shape {}: negative dimension", shape.ToString());
  }
  Status valid = checked::CheckTensorShape("cannot allocate a tensor", shape, dtype);
  if (!valid.ok()) return valid;
  Tensor t(alloc, dtype, std::move(shape));
  if (!t.IsInitialized()) {
    return Error(Code::kResourceExhausted, "out of memory allocating {} {} ({} bytes) on {}", DTypeName(dtype),
                 t.shape().ToString(), t.bytes(), alloc->name());
  }
  return t;
}

Tensor Tensor::Reshaped(TensorShape shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::DeepCopy(Allocator* alloc) const {
  Tensor t(alloc, dtype_, shape_);
  if (!t.IsInitialized() || !IsInitialized()) return t;
  if (dtype_ == DType::kString) {
    for (int64_t i = 0; i < num_elements(); ++i) t.data<std::string>()[i] = data<std::string>()[i];
  } else if (bytes() > 0) {
    std::memcpy(t.raw_data(), raw_data(), bytes());
  }
  return t;
}

std::string Tensor::DebugString() const { return std::string(DTypeName(dtype_)) + shape_.ToString(); }

}  // namespace tfg
