#include "ops/core/shape.h"

#include <algorithm>

#include "ops/core/checked_size.h"

namespace tfg {

// Saturates instead of wrapping: tensors never hold such a shape
// (checked::CheckTensorShape), but a shape from a user may be asked first.
int64_t TensorShape::num_elements() const { return checked::SaturatedProduct(dims_); }

std::string TensorShape::ToString() const {
  std::string out = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(dims_[i]);
  }
  return out + "]";
}

bool PartialShape::fully_defined() const {
  return known_rank_ && std::none_of(dims_.begin(), dims_.end(), [](int64_t d) { return d < 0; });
}

int64_t PartialShape::num_elements() const {
  if (!fully_defined()) return kUnknown;
  return checked::SaturatedProduct(dims_);
}

bool PartialShape::CompatibleWith(const PartialShape& other) const {
  if (!known_rank_ || !other.known_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
  }
  return true;
}

Result<PartialShape> PartialShape::Merge(const PartialShape& other) const {
  if (!CompatibleWith(other)) {
    return InvalidArgument("shapes {} and {} are incompatible", ToString(), other.ToString());
  }
  if (!known_rank_) return other;
  if (!other.known_rank_) return *this;
  std::vector<int64_t> dims = dims_;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) dims[i] = other.dims_[i];
  }
  return PartialShape(std::move(dims));
}

std::string PartialShape::ToString() const {
  if (!known_rank_) return "<unknown>";
  std::string out = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ", ";
    out += dims_[i] < 0 ? "?" : std::to_string(dims_[i]);
  }
  return out + "]";
}

Result<PartialShape> BroadcastShapes(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank()) return PartialShape::Unknown();
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(rank);
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    int64_t da = ia >= 0 ? a.dim(ia) : 1;
    int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == 1) {
      out[i] = db;
    } else if (db == 1) {
      out[i] = da;
    } else if (da < 0 || db < 0) {
      // One side unknown, the other a known size that is not 1: the result
      // is that size when it broadcasts at all.
      out[i] = std::max(da, db);
    } else if (da == db) {
      out[i] = da;
    } else {
      return InvalidArgument("shapes {} and {} cannot be broadcast together (dimension {}: {} vs {})",
                             a.ToString(), b.ToString(), i, da, db);
    }
  }
  return PartialShape(std::move(out));
}

Result<TensorShape> BroadcastShapes(const TensorShape& a, const TensorShape& b) {
  TFG_ASSIGN_OR_RETURN(PartialShape p, BroadcastShapes(PartialShape(a), PartialShape(b)));
  return p.ToTensorShape();
}

}  // namespace tfg
