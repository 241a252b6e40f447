// The combining rules of the reductions (sum, mean, prod, max, min) and
// the order they combine a row in, shared by their kernels
// (reduction_ops.cc) and the fused elementwise kernel that ends in a
// reduction (ops/math/fused/), so both add in the same order and agree bit
// for bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/core/dtype_traits.h"
#include "ops/math/cwise_functors.h"

namespace tfg::reduce {

template <typename T> struct AccOf { using type = T; };
template <> struct AccOf<half> { using type = float; };

template <typename T>
struct SumR {
  using Acc = typename AccOf<T>::type;
  static Acc Init() { return Acc(0); }
  static Acc Combine(Acc a, Acc b) { return functor::WrapAdd(a, b); }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <typename T>
struct MeanR : SumR<T> {
  static T Finish(typename SumR<T>::Acc a, int64_t count) {
    using Acc = typename SumR<T>::Acc;
    // TensorFlow's integer mean of nothing is 0 (a float one is 0/0 = NaN).
    if constexpr (std::is_integral_v<Acc>) {
      if (count == 0) return T(0);
    }
    return static_cast<T>(a / static_cast<Acc>(count));
  }
};

template <typename T>
struct ProdR {
  using Acc = typename AccOf<T>::type;
  static Acc Init() { return Acc(1); }
  static Acc Combine(Acc a, Acc b) { return functor::WrapMul(a, b); }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

// NaN wins, as in NumPy.
template <typename T>
struct MaxR {
  using Acc = typename AccOf<T>::type;
  static Acc Init() {
    if constexpr (std::numeric_limits<Acc>::has_infinity) return -std::numeric_limits<Acc>::infinity();
    return std::numeric_limits<Acc>::lowest();
  }
  static Acc Combine(Acc a, Acc b) { return (b > a || b != b) ? b : a; }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <typename T>
struct MinR {
  using Acc = typename AccOf<T>::type;
  static Acc Init() {
    if constexpr (std::numeric_limits<Acc>::has_infinity) return std::numeric_limits<Acc>::infinity();
    return std::numeric_limits<Acc>::max();
  }
  static Acc Combine(Acc a, Acc b) { return (b < a || b != b) ? b : a; }
  static T Finish(Acc a, int64_t) { return static_cast<T>(a); }
};

// A row is combined in blocks of this many elements, so rounding error
// grows slowly.
inline constexpr int64_t kRowBlock = 4096;
// A reduction of everything splits the input into parts of this many
// elements, reduced in parallel and combined in order.
inline constexpr int64_t kPartBlock = int64_t{1} << 15;

// How many lanes a block is combined in: 128 bytes of accumulators, 32
// floats or 16 doubles. An accumulator's adds are a chain, each waiting
// for the last (4 cycles); with 8 lanes the chain, not memory, set the
// speed of a sum. These fill 8 SSE or 4 AVX2 registers, enough chains to
// keep up with memory, and change the order of additions only between
// lanes (more accurate for float sums, not less).
template <typename Acc>
inline constexpr int kLanes = static_cast<int>(128 / sizeof(Acc));

// A block's independent lanes (vectorizable, and more accurate for float
// sums), fed in pieces: element i of the block goes to lane i % kLanes,
// and the elements after the last whole kLanes to lane 0 after every
// lane's share. Pieces must be multiples of kLanes elements except the
// block's last (the fused kernel makes a block piece by piece in cache).
template <typename R, typename T>
class BlockLanes {
 public:
  using Acc = typename R::Acc;
  static constexpr int kCount = kLanes<Acc>;
  BlockLanes() { std::fill(lanes_, lanes_ + kCount, R::Init()); }

  void Add(const T* p, int64_t len) {
    Acc lanes[kCount];
    std::copy(lanes_, lanes_ + kCount, lanes);
    int64_t i = 0;
    for (; i + kCount <= len; i += kCount) {
      for (int j = 0; j < kCount; ++j) lanes[j] = R::Combine(lanes[j], static_cast<Acc>(p[i + j]));
    }
    for (; i < len; ++i) lanes[0] = R::Combine(lanes[0], static_cast<Acc>(p[i]));
    std::copy(lanes, lanes + kCount, lanes_);
  }

  // The lanes themselves, for a loop that adds a piece in this order on
  // its own (the fused kernel's pair loops, fused/block_ops.h PairSumRun).
  Acc* lanes() { return lanes_; }

  Acc Total() const {
    Acc s = lanes_[0];
    for (int j = 1; j < kCount; ++j) s = R::Combine(s, lanes_[j]);
    return s;
  }

 private:
  Acc lanes_[kCount];
};

// One block p[0..len) (len <= kRowBlock).
template <typename R, typename T>
typename R::Acc ReduceBlock(const T* p, int64_t len) {
  BlockLanes<R, T> lanes;
  lanes.Add(p, len);
  return lanes.Total();
}

// x[0..n), block by block from x.
template <typename R, typename T>
typename R::Acc ReduceRow(const T* x, int64_t n) {
  typename R::Acc total = R::Init();
  for (int64_t start = 0; start < n; start += kRowBlock) {
    total = R::Combine(total, ReduceBlock<R>(x + start, std::min(kRowBlock, n - start)));
  }
  return total;
}

}  // namespace tfg::reduce
