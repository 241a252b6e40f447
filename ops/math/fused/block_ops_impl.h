// The block loops of the fusable ops, included by block_ops.cc (baseline)
// and block_ops_avx2.cc (inside `#pragma GCC target("avx2")`) with
// TFG_BLOCK_NS naming a namespace of their own, so the two copies never
// meet at link time. Each loop is the op kernel's inner loop
// (ops/math/cwise_loops.h BinaryRun, ComputeUnary; select.cc SelectRun;
// cast.cc ComputeCast) on the same functor: only the element count is a
// block instead of a ParallelFor range.
//
// No include guard on purpose: the includer defines TFG_BLOCK_NS and the
// table filler's name first. Headers it needs are included by the
// includer before the target pragma, so library code is not recompiled for
// another instruction set.

namespace tfg::fused::TFG_BLOCK_NS {

template <typename F, typename T, typename Out>
void RunBinary(const void* const* in, const int64_t* stride, void* out_v, int64_t n, double) {
  const T* a = static_cast<const T*>(in[0]);
  const T* b = static_cast<const T*>(in[1]);
  Out* out = static_cast<Out*>(out_v);
  const F f{};
  const int64_t sa = stride[0], sb = stride[1];
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(Load(a[i]), Load(b[i])));
  } else if (sa == 1) {
    const auto bv = Load(b[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(Load(a[i]), bv));
  } else if (sb == 1) {
    const auto av = Load(a[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(av, Load(b[i])));
  } else {
    const Out v = static_cast<Out>(f(Load(a[0]), Load(b[0])));
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

template <typename F, typename T, typename Out>
void RunUnary(const void* const* in, const int64_t* stride, void* out_v, int64_t n, double) {
  const T* x = static_cast<const T*>(in[0]);
  Out* out = static_cast<Out*>(out_v);
  const F f{};
  if (stride[0] == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(Load(x[i])));
  } else {
    const Out v = static_cast<Out>(f(Load(x[0])));
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

// cast.cc's loop: the functor is CastTo<compute type of To>.
template <typename From, typename To>
void RunCast(const void* const* in, const int64_t* stride, void* out_v, int64_t n, double) {
  const From* x = static_cast<const From*>(in[0]);
  To* out = static_cast<To*>(out_v);
  const functor::CastTo<ComputeType<To>> f{};
  if (stride[0] == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<To>(f(Load(x[i])));
  } else {
    const To v = static_cast<To>(f(Load(x[0])));
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

// select.cc's loop.
template <typename T>
void RunSelect(const void* const* in, const int64_t* stride, void* out_v, int64_t n, double) {
  const bool* c = static_cast<const bool*>(in[0]);
  const T* x = static_cast<const T*>(in[1]);
  const T* y = static_cast<const T*>(in[2]);
  T* out = static_cast<T*>(out_v);
  const int64_t sc = stride[0], sx = stride[1], sy = stride[2];
  if (sc == 1 && sx == 1 && sy == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? x[i] : y[i];
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i * sc] ? x[i * sx] : y[i * sy];
  }
}

// clip_by_value.cc's loop, on the storage type as there; the bounds are
// usually one value each.
template <typename T>
void RunClip(const void* const* in, const int64_t* stride, void* out_v, int64_t n, double) {
  const T* x = static_cast<const T*>(in[0]);
  const T* lo = static_cast<const T*>(in[1]);
  const T* hi = static_cast<const T*>(in[2]);
  T* out = static_cast<T*>(out_v);
  const functor::ClipByValue f{};
  const int64_t sx = stride[0], sl = stride[1], sh = stride[2];
  if (sx == 1 && sl == 0 && sh == 0) {
    const T l = lo[0], h = hi[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], l, h);
  } else if (sx == 1 && sl == 1 && sh == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], lo[i], hi[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(x[i * sx], lo[i * sl], hi[i * sh]);
  }
}

// bias_add.cc's loop: WrapAdd on the storage type (f16 adds as half does),
// the bias read at the output's positions (gathered by the caller).
template <typename T>
void RunBiasAdd(const void* const* in, const int64_t* stride, void* out_v, int64_t n, double) {
  const T* x = static_cast<const T*>(in[0]);
  const T* b = static_cast<const T*>(in[1]);
  T* out = static_cast<T*>(out_v);
  const int64_t sx = stride[0], sb = stride[1];
  if (sx == 1 && sb == 1) {  // the usual case (the bias gathered): a loop that vectorizes
    for (int64_t i = 0; i < n; ++i) out[i] = functor::WrapAdd(x[i], b[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = functor::WrapAdd(x[i * sx], b[i * sb]);
}

// activations.cc's loops: A::F(x, alpha) or dy * A::Slope(x, alpha) in the
// compute type C (float for f16), alpha cast to C first, as there.
template <typename T>
using ActivationType = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename A, typename T>
void RunActivation(const void* const* in, const int64_t* stride, void* out_v, int64_t n, double alpha) {
  using C = ActivationType<T>;
  const T* x = static_cast<const T*>(in[0]);
  T* out = static_cast<T*>(out_v);
  const C a = static_cast<C>(alpha);
  if constexpr (std::is_same_v<T, float> && requires { &A::FloatBlock; }) {
    if (stride[0] == 1) {
      A::FloatBlock(x, out, n);
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(A::F(static_cast<C>(x[i * stride[0]]), a));
}

template <typename A, typename T>
void RunActivationGrad(const void* const* in, const int64_t* stride, void* out_v, int64_t n, double alpha) {
  using C = ActivationType<T>;
  const T* dy = static_cast<const T*>(in[0]);
  const T* x = static_cast<const T*>(in[1]);
  T* out = static_cast<T*>(out_v);
  const C a = static_cast<C>(alpha);
  const int64_t sd = stride[0], sx = stride[1];
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<T>(static_cast<C>(dy[i * sd]) * A::Slope(static_cast<C>(x[i * sx]), a));
  }
}

// gelu.cc's two functors, picked by its `approximate` attr (param 1).
template <typename T>
void RunGelu(const void* const* in, const int64_t* stride, void* out, int64_t n, double approximate) {
  if (approximate != 0) {
    RunUnary<functor::GeluTanh, T, T>(in, stride, out, n, 0);
  } else {
    RunUnary<functor::GeluExact, T, T>(in, stride, out, n, 0);
  }
}

// CheckSecondOperand's tests (cwise_loops.h), on one block.
template <typename T>
bool NonZero(const void* in, int64_t stride, int64_t n) {
  const T* p = static_cast<const T*>(in);
  if (stride == 0) return p[0] != T(0);
  bool ok = true;
  for (int64_t i = 0; i < n; ++i) ok &= p[i] != T(0);
  return ok;
}

template <typename T>
bool NonNegative(const void* in, int64_t stride, int64_t n) {
  const T* p = static_cast<const T*>(in);
  if (stride == 0) return !(p[0] < T(0));
  bool ok = true;
  for (int64_t i = 0; i < n; ++i) ok &= !(p[i] < T(0));
  return ok;
}

template <typename F, typename T>
constexpr BlockCheck CheckOf() {
  if constexpr (std::is_integral_v<T> && requires { F::kCheck; }) {
    if constexpr (F::kCheck == functor::Check::kNonZeroDivisor) return &NonZero<T>;
    if constexpr (F::kCheck == functor::Check::kNonNegativeExponent) return &NonNegative<T>;
  }
  return nullptr;
}

template <typename F, typename T, typename Out>
void AddBinaryLoop(BlockTable& t, const char* op, int64_t cost) {
  BlockOp b;
  b.run = &RunBinary<F, T, Out>;
  b.check = CheckOf<F, T>();
  b.arity = 2;
  b.cost = cost;
  t[BlockKey(op, kDTypeOf<T>, kDTypeOf<Out>)] = b;
}

template <typename F, typename T, typename Out = T>
void AddUnaryLoop(BlockTable& t, const char* op, int64_t cost) {
  BlockOp b;
  b.run = &RunUnary<F, T, Out>;
  b.arity = 1;
  b.cost = cost;
  t[BlockKey(op, kDTypeOf<T>, kDTypeOf<Out>)] = b;
}

template <typename F>
void AddArith(BlockTable& t, const char* op, int64_t cost) {
  AddBinaryLoop<F, half, half>(t, op, cost);
  AddBinaryLoop<F, float, float>(t, op, cost);
  AddBinaryLoop<F, double, double>(t, op, cost);
  AddBinaryLoop<F, int32_t, int32_t>(t, op, cost);
  AddBinaryLoop<F, int64_t, int64_t>(t, op, cost);
}

template <typename F>
void AddFloatBinary(BlockTable& t, const char* op, int64_t cost) {
  AddBinaryLoop<F, half, half>(t, op, cost);
  AddBinaryLoop<F, float, float>(t, op, cost);
  AddBinaryLoop<F, double, double>(t, op, cost);
}

template <typename F>
void AddOrder(BlockTable& t, const char* op) {
  AddBinaryLoop<F, half, bool>(t, op, 1);
  AddBinaryLoop<F, float, bool>(t, op, 1);
  AddBinaryLoop<F, double, bool>(t, op, 1);
  AddBinaryLoop<F, int32_t, bool>(t, op, 1);
  AddBinaryLoop<F, int64_t, bool>(t, op, 1);
}

template <typename F>
void AddFloatUnary(BlockTable& t, const char* op, int64_t cost) {
  AddUnaryLoop<F, half>(t, op, cost);
  AddUnaryLoop<F, float>(t, op, cost);
  AddUnaryLoop<F, double>(t, op, cost);
}

template <typename F>
void AddNumberUnary(BlockTable& t, const char* op, int64_t cost) {
  AddFloatUnary<F>(t, op, cost);
  AddUnaryLoop<F, int32_t>(t, op, cost);
  AddUnaryLoop<F, int64_t>(t, op, cost);
}

template <typename A>
void AddActivation(BlockTable& t, const char* op, const char* grad_op, bool has_alpha) {
  auto add = [&](const char* name, BlockRun run, int arity, DType d) {
    BlockOp b;
    b.run = run;
    b.arity = arity;
    b.cost = 20;  // as activations.cc tells ParallelFor
    b.shapes = arity == 2 ? ShapeRule::kSame : ShapeRule::kBroadcast;
    b.param_attr = has_alpha ? "alpha" : nullptr;
    t[BlockKey(name, d, d)] = b;
  };
  add(op, &RunActivation<A, half>, 1, DType::kF16);
  add(op, &RunActivation<A, float>, 1, DType::kF32);
  add(op, &RunActivation<A, double>, 1, DType::kF64);
  add(grad_op, &RunActivationGrad<A, half>, 2, DType::kF16);
  add(grad_op, &RunActivationGrad<A, float>, 2, DType::kF32);
  add(grad_op, &RunActivationGrad<A, double>, 2, DType::kF64);
}

template <typename T>
void AddGelu(BlockTable& t) {
  BlockOp b;
  b.run = &RunGelu<T>;
  b.arity = 1;
  b.cost = 40;
  b.param_attr = "approximate";
  b.param_is_bool = true;
  t[BlockKey("gelu", kDTypeOf<T>, kDTypeOf<T>)] = b;
}

template <typename T>
void AddBiasAdd(BlockTable& t) {
  BlockOp b;
  b.run = &RunBiasAdd<T>;
  b.arity = 2;
  b.shapes = ShapeRule::kBiasAdd;
  t[BlockKey("bias_add", kDTypeOf<T>, kDTypeOf<T>)] = b;
}

template <typename T>
void AddClip(BlockTable& t) {
  BlockOp b;
  b.run = &RunClip<T>;
  b.arity = 3;
  b.cost = 4;  // as clip_by_value.cc tells ParallelFor
  b.shapes = ShapeRule::kToFirst;
  t[BlockKey("clip_by_value", kDTypeOf<T>, kDTypeOf<T>)] = b;
}

template <typename T>
void AddSelect(BlockTable& t) {
  BlockOp b;
  b.run = &RunSelect<T>;
  b.arity = 3;
  b.dispatch_input = 1;
  b.cost = 2;
  t[BlockKey("where", kDTypeOf<T>, kDTypeOf<T>)] = b;
}

template <typename From, typename To>
void AddCast(BlockTable& t) {
  // A cast to its own dtype shares its input's buffer unfused: nothing to fuse.
  if constexpr (!std::is_same_v<From, To>) {
    BlockOp b;
    b.run = &RunCast<From, To>;
    b.arity = 1;
    t[BlockKey("cast", kDTypeOf<From>, kDTypeOf<To>)] = b;
  }
}

template <typename From>
void AddCastsFrom(BlockTable& t) {
  AddCast<From, half>(t);
  AddCast<From, float>(t);
  AddCast<From, double>(t);
  AddCast<From, int32_t>(t);
  AddCast<From, int64_t>(t);
  AddCast<From, bool>(t);
}

// The ops and costs as their kernels register them (cwise_binary.cc,
// comparison.cc, cwise_unary.cc, cwise_grad.cc, cwise_unary_special.cc,
// gamma_functions.cc, atan2.cc, select.cc, cast.cc; ops/nn: selu.cc,
// gelu.cc, activations.cc, bias_add.cc, clip_by_value.cc).
void TFG_BLOCK_FILL(BlockTable& t) {
  using namespace functor;
  AddArith<Add>(t, "add", 1);
  AddArith<Sub>(t, "sub", 1);
  AddArith<Mul>(t, "mul", 1);
  AddArith<Div>(t, "div", 8);
  AddArith<FloorDiv>(t, "floordiv", 20);
  AddArith<Mod>(t, "mod", 20);
  AddArith<Pow>(t, "pow", 40);
  AddArith<Maximum>(t, "maximum", 1);
  AddArith<Minimum>(t, "minimum", 1);

  AddOrder<Equal>(t, "equal");
  AddBinaryLoop<Equal, bool, bool>(t, "equal", 1);
  AddOrder<NotEqual>(t, "not_equal");
  AddBinaryLoop<NotEqual, bool, bool>(t, "not_equal", 1);
  AddOrder<Less>(t, "less");
  AddOrder<LessEqual>(t, "less_equal");
  AddOrder<Greater>(t, "greater");
  AddOrder<GreaterEqual>(t, "greater_equal");
  AddBinaryLoop<LogicalAnd, bool, bool>(t, "logical_and", 1);
  AddBinaryLoop<LogicalOr, bool, bool>(t, "logical_or", 1);
  AddUnaryLoop<LogicalNot, bool, bool>(t, "logical_not", 1);

  AddNumberUnary<Neg>(t, "neg", 1);
  AddNumberUnary<Abs>(t, "abs", 1);
  AddNumberUnary<Sign>(t, "sign", 1);
  AddNumberUnary<Square>(t, "square", 1);
  AddNumberUnary<Relu>(t, "relu", 1);
  AddFloatUnary<Exp>(t, "exp", 20);
  AddFloatUnary<Log>(t, "log", 20);
  AddFloatUnary<Sqrt>(t, "sqrt", 10);
  AddFloatUnary<Rsqrt>(t, "rsqrt", 12);
  AddFloatUnary<Tanh>(t, "tanh", 30);
  AddFloatUnary<Sigmoid>(t, "sigmoid", 30);
  AddFloatUnary<Sin>(t, "sin", 20);
  AddFloatUnary<Cos>(t, "cos", 20);
  AddFloatUnary<Log1p>(t, "log1p", 20);
  AddFloatUnary<Expm1>(t, "expm1", 20);
  AddFloatUnary<Reciprocal>(t, "reciprocal", 2);
  AddFloatUnary<Floor>(t, "floor", 2);
  AddFloatUnary<Ceil>(t, "ceil", 2);
  AddFloatUnary<Round>(t, "round", 3);

  AddFloatBinary<ReluGrad>(t, "relu_grad", 1);
  AddFloatBinary<SigmoidGrad>(t, "sigmoid_grad", 2);
  AddFloatBinary<TanhGrad>(t, "tanh_grad", 2);
  AddFloatBinary<SqrtGrad>(t, "sqrt_grad", 8);
  AddFloatBinary<RsqrtGrad>(t, "rsqrt_grad", 3);

  AddFloatBinary<Atan2>(t, "atan2", 40);
  AddFloatUnary<Erf>(t, "erf", 30);
  AddFloatUnary<Erfc>(t, "erfc", 30);
  AddFloatUnary<Asin>(t, "asin", 20);
  AddFloatUnary<Acos>(t, "acos", 20);
  AddFloatUnary<Atan>(t, "atan", 20);
  AddFloatUnary<Sinh>(t, "sinh", 20);
  AddFloatUnary<Cosh>(t, "cosh", 20);
  AddFloatUnary<Tan>(t, "tan", 20);
  AddUnaryLoop<IsFinite, half, bool>(t, "is_finite", 1);
  AddUnaryLoop<IsFinite, float, bool>(t, "is_finite", 1);
  AddUnaryLoop<IsFinite, double, bool>(t, "is_finite", 1);
  AddUnaryLoop<IsInf, half, bool>(t, "is_inf", 1);
  AddUnaryLoop<IsInf, float, bool>(t, "is_inf", 1);
  AddUnaryLoop<IsInf, double, bool>(t, "is_inf", 1);
  AddFloatUnary<Lgamma>(t, "lgamma", 40);
  AddFloatUnary<Digamma>(t, "digamma", 60);
  AddFloatUnary<Selu>(t, "selu", 20);
  AddGelu<half>(t);
  AddGelu<float>(t);
  AddGelu<double>(t);
  AddActivation<nn::LeakyRelu>(t, "leaky_relu", "leaky_relu_grad", true);
  AddActivation<nn::Elu>(t, "elu", "elu_grad", false);
  AddActivation<nn::Softplus>(t, "softplus", "softplus_grad", false);
  AddActivation<nn::Relu6>(t, "relu6", "relu6_grad", false);
  AddBiasAdd<half>(t);
  AddBiasAdd<float>(t);
  AddBiasAdd<double>(t);
  AddBiasAdd<int32_t>(t);
  AddBiasAdd<int64_t>(t);

  AddClip<half>(t);
  AddClip<float>(t);
  AddClip<double>(t);
  AddClip<int32_t>(t);
  AddClip<int64_t>(t);

  AddSelect<half>(t);
  AddSelect<float>(t);
  AddSelect<double>(t);
  AddSelect<int32_t>(t);
  AddSelect<int64_t>(t);
  AddSelect<bool>(t);

  AddCastsFrom<half>(t);
  AddCastsFrom<float>(t);
  AddCastsFrom<double>(t);
  AddCastsFrom<int32_t>(t);
  AddCastsFrom<int64_t>(t);
  AddCastsFrom<bool>(t);
}

}  // namespace tfg::fused::TFG_BLOCK_NS
