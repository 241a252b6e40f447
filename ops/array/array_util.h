// Helpers shared by the array ops: dtype-generic element movement (array ops
// move elements without looking at them, so they dispatch on element size
// rather than instantiating per dtype), axis normalisation and attr reading.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/core/kernel.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg::array {

// Copies n elements of `dtype`: memcpy for plain types, std::string
// assignment for strings. dst and src must not overlap.
void CopyElements(DType dtype, void* dst, const void* src, int64_t n);
// Sets n elements of `dtype` at dst to the single element at `value`.
void FillElements(DType dtype, void* dst, const void* value, int64_t n);

// Address of element i of `t` (byte arithmetic: works for every dtype).
inline char* ElementPtr(const Tensor& t, int64_t i) {
  return static_cast<char*>(t.raw_data()) + i * static_cast<int64_t>(DTypeSize(t.dtype()));
}

// Row-major strides, in elements, of a tensor with `dims`.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

// Fills `out` (already allocated, same dtype as `in`) by walking its dims in
// row-major order: out[j] = in[offset + sum_d idx_d(j) * in_strides[d]].
// Strides may be zero (broadcast/tile) or negative (reversed slices).
// Transpose, slice, strided_slice and tile are all this one loop.
void StridedCopy(const OpKernelContext& ctx, const Tensor& in, int64_t offset,
                 const std::vector<int64_t>& out_dims, const std::vector<int64_t>& in_strides, Tensor& out);

// Concatenation as row interleaving: the output is `outer` rows, row o
// being row o of ins[0], then row o of ins[1], ... (each input's row is its
// num_elements / outer elements). Concat and stack are this.
void ConcatRows(const OpKernelContext& ctx, const std::vector<const Tensor*>& ins, int64_t outer, Tensor& out);
// The inverse, for split: row o of `in` is cut into outs' rows in turn.
void SplitRows(const OpKernelContext& ctx, const Tensor& in, int64_t outer, const std::vector<Tensor*>& outs);

// Product of dims[begin, end).
int64_t DimProduct(const std::vector<int64_t>& dims, int begin, int end);

// The inverse of StridedCopy: walks `in` row-major as shape `in_dims` and
// writes out[offset + sum_d idx_d * out_strides[d]] = in[j]. The strided
// positions must be distinct (they are for any strided slice).
void StridedScatter(const OpKernelContext& ctx, const Tensor& in, const std::vector<int64_t>& in_dims,
                    int64_t offset, const std::vector<int64_t>& out_strides, Tensor& out);

// Maps axis in [-rank, rank) to [0, rank); the error names the op.
Result<int> NormalizeAxis(std::string_view op, int64_t axis, int rank);

// A host scalar of `dtype` holding `v` converted (bool: v != 0). Strings get
// "" for 0 and an error otherwise, naming the op.
Result<Tensor> ScalarOfType(std::string_view op, DType dtype, double v);

// "[1, -1, 3]" for error messages.
std::string IntListToString(const std::vector<int64_t>& v);

// An int-list attr as a concrete shape; negative entries are an error.
Result<TensorShape> ShapeFromDims(std::string_view op, const std::vector<int64_t>& dims);

// Reads a required attr of type T; a missing one is an internal error (the
// graph fills defaults before kernels and shape functions run).
template <typename T>
Result<T> RequiredAttr(const AttrMap& attrs, std::string_view op, const std::string& name) {
  const T* v = FindAttr<T>(attrs, name);
  if (v == nullptr) return Internal("{}: attribute '{}' is missing", op, name);
  return *v;
}

// The static shapes of all inputs of the node being shape-checked, and the
// tensors of a kernel's run with their shapes: for the ops that take a list
// of tensors (concat, stack).
std::vector<PartialShape> InputShapes(ShapeContext& c);
std::vector<PartialShape> InputShapes(OpKernelContext& ctx, std::vector<const Tensor*>* tensors);

}  // namespace tfg::array
