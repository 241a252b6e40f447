// A Tensor is a dtype, a concrete shape and a ref-counted buffer from a
// device allocator. Copies share the buffer (cheap); kernels write only into
// tensors they allocated, or into an input whose buffer nobody else holds
// (RefCountIsOne), so sharing is safe.
#pragma once

#include <cstring>
#include <memory>
#include <string>

#include "ops/core/allocator.h"
#include "ops/core/dtype.h"
#include "ops/core/shape.h"
#include "ops/core/status.h"

namespace tfg {

class Buffer {
 public:
  // Allocates room for `n` elements of `dtype`; for strings, constructs
  // empty std::strings. data() is nullptr when allocation failed.
  Buffer(Allocator* alloc, DType dtype, int64_t n);
  // Host memory that something else owns (a received network frame):
  // `owner` keeps `data` alive for as long as the buffer is, and nothing is
  // handed back to an allocator. Never strings.
  Buffer(void* data, size_t bytes, std::shared_ptr<const void> owner);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  // Where the memory is (HostAllocator() for borrowed host memory).
  Allocator* allocator() const { return alloc_; }

 private:
  Allocator* alloc_;
  DType dtype_;
  int64_t n_;
  size_t bytes_;
  void* data_;
  std::shared_ptr<const void> owner_;  // set for memory this buffer does not own
};

class Tensor {
 public:
  Tensor() = default;  // not initialized
  // Allocates an uninitialized (zeroed for strings: empty) tensor. Check
  // IsInitialized() or use Allocate() to get an error on out-of-memory.
  Tensor(Allocator* alloc, DType dtype, TensorShape shape);
  static Result<Tensor> Allocate(Allocator* alloc, DType dtype, TensorShape shape);
  // A tensor over `buffer` (a numeric dtype; the buffer holds at least
  // shape.num_elements() elements and is aligned for the dtype).
  Tensor(DType dtype, TensorShape shape, std::shared_ptr<Buffer> buffer)
      : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {}

  // Host scalars and vectors, for tests and host code.
  template <typename T>
  static Tensor Scalar(T value);
  template <typename T>
  static Tensor Vector(const std::vector<T>& values);
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, TensorShape shape);

  bool IsInitialized() const { return dtype_ != DType::kInvalid && (buffer_ != nullptr || num_elements() == 0); }
  DType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t bytes() const { return static_cast<size_t>(num_elements()) * DTypeSize(dtype_); }

  // Unchecked typed access; the caller has dispatched on dtype().
  template <typename T>
  T* data() const { return static_cast<T*>(raw_data()); }
  void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  template <typename T>
  T scalar() const { return data<T>()[0]; }

  // Same buffer, new shape with the same number of elements.
  Tensor Reshaped(TensorShape shape) const;
  // A deep copy into `alloc` (strings copied element by element).
  Tensor DeepCopy(Allocator* alloc = HostAllocator()) const;
  // True when this is the only holder of the buffer, so a kernel may
  // overwrite it in place.
  bool RefCountIsOne() const { return buffer_ && buffer_.use_count() == 1; }
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }

  // "f32[2, 3]" — dtype and shape, not the values.
  std::string DebugString() const;

 private:
  DType dtype_ = DType::kInvalid;
  TensorShape shape_;
  std::shared_ptr<Buffer> buffer_;
};

// NumPy's layout: "[[1. 2.]\n [3. 4.]]", summarised with "..." past
// `threshold` elements (NumPy's default 1000). f32 prints like NumPy's
// float32 repr.
std::string FormatTensor(const Tensor& t, int64_t threshold = 1000);

// Element-wise equality of dtype, shape and values (used by tests and
// assert_equal).
bool TensorsEqual(const Tensor& a, const Tensor& b);

}  // namespace tfg

#include "ops/core/tensor_inl.h"
