#include "tests/fuzz/op_fuzz_input.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/core/checked_size.h"
#include "ops/core/dtype_traits.h"

namespace tfg::fuzz {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k31 = int64_t{1} << 31;

// Boundaries of int32, int64 and of the products kernels form from them
// (3037000500 squared just overflows int64), and of ranks and byte sizes.
constexpr int64_t kExtremeInts[] = {0,        1,          -1,         -2,      2,        3,         k31 - 1,
                                    k31,      -k31,       -k31 - 1,   k31 * 2, k31 * 2 + 1,
                                    int64_t{1} << 53,     int64_t{1} << 62,   -(int64_t{1} << 62),
                                    kMax,     kMax - 1,   kMin,       kMin + 1, 3037000500, 63,
                                    64,       65,         255,        256,     65536,    1 << 20};
// Dims a tensor can have (>= 0): small ones, and extreme ones that only an
// empty tensor (another dim 0) can carry.
constexpr int64_t kExtremeDims[] = {0,   1,   2,          k31 - 1,          k31,
                                    k31 * 2,  3037000500, int64_t{1} << 62, kMax, int64_t{1} << 33, 65536};

const double kExtremeFloats[] = {0.0,
                                 -0.0,
                                 1.0,
                                 -1.0,
                                 0.5,
                                 2.0,
                                 1e-45,
                                 1e-310,
                                 std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(),
                                 std::numeric_limits<double>::max(),
                                 -std::numeric_limits<double>::max(),
                                 3.4028234663852886e38,
                                 2147483648.0,
                                 9223372036854775808.0,
                                 -9223372036854775808.0,
                                 18446744073709551616.0,
                                 1e30,
                                 -1e-7};

const char* const kStrings[] = {"",        "a",      "SAME",    "VALID",  "same",   "NHWC",    "NCHW",
                                "gzip",    "zlib",   "ZLIB",    "none",   "ij,jk->ik", "...ij,...jk->...ik",
                                "i,i->",   "a->aa",  "->",      "ii->i",  "...",    "%s%n%x",  "1e400",
                                "-9223372036854775809", "nan", "inf",   "0x10",   " 12 ",   "bilinear",
                                "nearest", "sum",    "mean",    "max",    "left",   "right",  ",",
                                "\xff\xfe", "\xc3",   "é"};

int64_t Pick(const int64_t* table, size_t n, uint8_t b) { return table[b % n]; }

// A double as T: out-of-range values become the infinities the conversion
// would give in IEEE arithmetic (a plain cast is undefined there).
template <typename T>
T ToFloat(double v) {
  const double limit = static_cast<double>(std::numeric_limits<T>::max());
  if (std::isinf(v) || (std::isfinite(v) && std::fabs(v) > limit)) {
    return v > 0 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  }
  return static_cast<T>(v);
}

}  // namespace

uint16_t FuzzInput::U16() {
  const uint16_t lo = Byte();
  return static_cast<uint16_t>(lo | (Byte() << 8));
}

uint64_t FuzzInput::Raw64() {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(Byte()) << (8 * i);
  return v;
}

int64_t FuzzInput::Int() {
  switch (Byte() % 8) {
    case 0: return 1 + Byte() % 4;
    case 1: return static_cast<int64_t>(Byte() % 8) - 2;
    case 2:
    case 3: return Pick(kExtremeInts, std::size(kExtremeInts), Byte());
    case 4: return static_cast<int64_t>(Raw64());
    case 5: return Byte() % 16;
    case 6: return -static_cast<int64_t>(Byte() % 8);
    default: return Pick(kExtremeDims, std::size(kExtremeDims), Byte());
  }
}

double FuzzInput::Float() {
  switch (Byte() % 4) {
    case 0: return 1.0 + Byte() % 4;
    case 1: return kExtremeFloats[Byte() % std::size(kExtremeFloats)];
    case 2: {
      const uint64_t bits = Raw64();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return d;
    }
    default: return (static_cast<int>(Byte()) - 128) / 16.0;
  }
}

std::string FuzzInput::String() {
  switch (Byte() % 8) {
    case 0: return "SAME";
    case 1: {  // raw bytes, embedded NULs included
      std::string s(Byte() % 24, '\0');
      for (char& c : s) c = static_cast<char>(Byte());
      return s;
    }
    case 2: return std::string(Byte() % 2 ? 70000 : 300, 'a');
    default: return kStrings[Byte() % std::size(kStrings)];
  }
}

DType FuzzInput::AnyDType() { return kAllDTypes[Byte() % std::size(kAllDTypes)]; }

DType FuzzInput::DTypeFrom(const DTypeSet& allowed) {
  if (allowed.empty()) return AnyDType();
  return allowed[Byte() % allowed.size()];
}

int FuzzInput::Rank() {
  static constexpr int kBig[] = {6, 8, 63, 64, 65, 100, 1000};
  const uint8_t b = Byte() % 10;
  if (b < 2) return 2;
  if (b < 8) return b - 2;  // 0..5
  return kBig[Byte() % std::size(kBig)];
}

size_t FuzzInput::ListLength() {
  static constexpr size_t kBig[] = {64, 65, 1000, 100000};
  const uint8_t b = Byte() % 16;
  if (b < 14) return b % 7;
  return kBig[Byte() % std::size(kBig)];
}

int64_t FuzzInput::AttrDim() {
  switch (Byte() % 6) {
    case 0:
    case 1: return 1 + Byte() % 4;
    case 2: return -1;
    case 3: return -2 + Byte() % 4;  // -2, -1, 0, 1
    default: return Int();
  }
}

PartialShape FuzzInput::GraphShape() {
  if (Byte() % 8 == 7) return PartialShape::Unknown();
  std::vector<int64_t> dims(std::min(Rank(), checked::kMaxRank));
  for (int64_t& d : dims) d = Byte() % 3 == 0 ? -1 : Pick(kExtremeDims, std::size(kExtremeDims), Byte());
  PartialShape shape(dims);
  if (checked::CheckPartialShape("op_fuzz", shape).ok()) return shape;
  return PartialShape::UnknownOfRank(static_cast<int>(dims.size()));
}

AttrValue FuzzInput::Attr(AttrType type, const DTypeSet& allowed) {
  if (Byte() % 32 == 31) type = static_cast<AttrType>(Byte() % (static_cast<int>(AttrType::kTensor) + 1));
  switch (type) {
    case AttrType::kInt: return Int();
    case AttrType::kFloat: return Float();
    case AttrType::kBool: return Bit();
    case AttrType::kString: return String();
    case AttrType::kType: return Byte() % 8 == 7 ? AnyDType() : DTypeFrom(allowed);
    case AttrType::kShape: {
      if (Byte() % 8 == 7) return PartialShape::Unknown();
      std::vector<int64_t> dims(Rank());
      for (int64_t& d : dims) d = AttrDim();
      return PartialShape(std::move(dims));
    }
    case AttrType::kIntList: {
      std::vector<int64_t> list(ListLength());
      for (int64_t& v : list) v = Int();
      return list;
    }
    case AttrType::kFloatList: {
      std::vector<double> list(ListLength());
      for (double& v : list) v = Float();
      return list;
    }
    case AttrType::kTypeList: {
      std::vector<DType> list(ListLength() % 9);
      for (DType& d : list) d = AnyDType();
      return list;
    }
    case AttrType::kShapeList: {
      std::vector<PartialShape> list(ListLength() % 9);
      for (PartialShape& s : list) s = GraphShape();
      return list;
    }
    case AttrType::kStringList: {
      std::vector<std::string> list(ListLength() % 70);
      for (std::string& s : list) s = String();
      return list;
    }
    case AttrType::kTensor: return SmallTensor(AnyDType());
  }
  return std::monostate{};
}

int64_t FuzzInput::TensorDim() {
  const uint8_t b = Byte() % 8;
  if (b < 4) return 1 + Byte() % 3;
  if (b == 4) return 0;
  if (b == 7) return static_cast<int64_t>(Raw64() & static_cast<uint64_t>(kMax));
  return Pick(kExtremeDims, std::size(kExtremeDims), Byte());
}

// Draws dims, then repairs them into a shape a tensor can have
// (checked::CheckTensorShape) with at most kMaxInputElements elements:
// too many elements and an extreme dim -> one dim becomes 0 (an empty
// tensor keeps its extreme dims); an overflowing product -> the largest
// dim is halved until it fits; still too many -> dims become 1.
TensorShape FuzzInput::SmallShape(DType dtype) {
  std::vector<int64_t> dims(std::min(Rank(), checked::kMaxRank));
  for (int64_t& d : dims) d = TensorDim();
  if (dims.empty()) return TensorShape();
  const uint8_t zero_at = Byte();
  auto count = [&dims] { return checked::SaturatedProduct(dims); };
  if (count() > kMaxInputElements && *std::max_element(dims.begin(), dims.end()) > kMaxInputElements) {
    dims[zero_at % dims.size()] = 0;
  }
  while (!checked::CheckTensorShape("op_fuzz", TensorShape(dims), dtype).ok()) {
    int64_t& largest = *std::max_element(dims.begin(), dims.end());
    largest /= 2;
  }
  for (size_t i = dims.size(); i-- > 0 && count() > kMaxInputElements;) dims[i] = 1;
  return TensorShape(std::move(dims));
}

void FuzzInput::FillValues(Tensor& t) {
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DType::kF16:
      for (int64_t i = 0; i < n; ++i) t.data<half>()[i] = half(ToFloat<float>(Float()));
      return;
    case DType::kF32:
      for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = ToFloat<float>(Float());
      return;
    case DType::kF64:
      for (int64_t i = 0; i < n; ++i) t.data<double>()[i] = Float();
      return;
    case DType::kI32:
      for (int64_t i = 0; i < n; ++i) t.data<int32_t>()[i] = static_cast<int32_t>(Int());
      return;
    case DType::kI64:
      for (int64_t i = 0; i < n; ++i) t.data<int64_t>()[i] = Int();
      return;
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) t.data<bool>()[i] = Bit();
      return;
    case DType::kString:
      for (int64_t i = 0; i < n; ++i) t.data<std::string>()[i] = String();
      return;
    default: return;
  }
}

Tensor FuzzInput::SmallTensor(DType dtype) {
  Tensor t(HostAllocator(), dtype, SmallShape(dtype));
  FillValues(t);
  return t;
}

}  // namespace tfg::fuzz
