// Shapes. TensorShape is the concrete shape of a tensor at run time;
// PartialShape is what graph building knows: maybe an unknown rank, maybe
// unknown dims (written `?`, stored as -1).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "ops/core/status.h"

namespace tfg {

class TensorShape {
 public:
  TensorShape() = default;  // scalar
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t num_elements() const;
  bool operator==(const TensorShape& o) const { return dims_ == o.dims_; }
  bool operator!=(const TensorShape& o) const { return dims_ != o.dims_; }
  std::string ToString() const;  // "[2, 3]", "[]" for a scalar

 private:
  std::vector<int64_t> dims_;
};

class PartialShape {
 public:
  static constexpr int64_t kUnknown = -1;

  PartialShape() : known_rank_(false) {}  // unknown rank
  PartialShape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
  explicit PartialShape(std::vector<int64_t> dims) : known_rank_(true), dims_(std::move(dims)) {}
  PartialShape(const TensorShape& s) : known_rank_(true), dims_(s.dims()) {}  // NOLINT: implicit on purpose
  static PartialShape Unknown() { return PartialShape(); }
  static PartialShape Scalar() { return PartialShape(std::vector<int64_t>{}); }
  static PartialShape UnknownOfRank(int rank) { return PartialShape(std::vector<int64_t>(rank, kUnknown)); }

  bool known_rank() const { return known_rank_; }
  int rank() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  bool fully_defined() const;
  // Only valid when fully_defined().
  TensorShape ToTensorShape() const { return TensorShape(dims_); }
  // -1 unless fully defined.
  int64_t num_elements() const;

  // True when some concrete shape satisfies both.
  bool CompatibleWith(const PartialShape& other) const;
  bool IsCompatibleWith(const TensorShape& s) const { return CompatibleWith(PartialShape(s)); }
  // The most specific shape compatible with both; error when incompatible.
  Result<PartialShape> Merge(const PartialShape& other) const;

  bool operator==(const PartialShape& o) const { return known_rank_ == o.known_rank_ && dims_ == o.dims_; }
  bool operator!=(const PartialShape& o) const { return !(*this == o); }
  std::string ToString() const;  // "[?, 784]", "<unknown>" for unknown rank

 private:
  bool known_rank_;
  std::vector<int64_t> dims_;
};

// NumPy broadcasting of two shapes; the error names both shapes.
Result<PartialShape> BroadcastShapes(const PartialShape& a, const PartialShape& b);
Result<TensorShape> BroadcastShapes(const TensorShape& a, const TensorShape& b);

}  // namespace tfg
