// The wire format (protocol version 4), written and read by the memory
// archives of net/wire_archive.h and laid out by hand here, so that every
// length is checked against the bytes that arrived before anything is
// allocated. Layout of a message:
//   u8 byte order (1: little-endian), u32 magic, u16 version, u8 kind,
//   var request_id, u64 session_id, str reply_to, then the body of the kind
//   (see the Save/Load pairs below), and nothing after it. Everything up to
//   the body, and the body of a WrongVersion (kind 255: str reason), stays
//   as it is in every later version (kFirstStableVersion).
// var = an integer as a LEB128 varint, zigzagged when signed: every count,
// length, id, index and dimension is one, and most take a byte. u8/u16/
// u32/u64 = fixed width, little-endian (the preamble, hashes, random ids),
// f64 likewise. str = var length + bytes; vec = var count + elements;
// tensor = u8 dtype, var rank, var dims, u8 attached, then (attached 0)
// the elements as they lie in memory, strings as str each, or (attached 1)
// nothing: the elements are the message's next frame (kAttachBytes and up,
// numeric dtypes only). Running out of bytes and our own refusals throw
// WireError, which becomes one InvalidArgument at DecodeMessage: no
// exception leaves the codec.
#include "net/wire_archive.h"

#include <cstring>

namespace tfg::net::wire {

// ------------------------------------------------------------ primitives

void Save(Out& ar, const std::string& s) {
  ar(static_cast<uint64_t>(s.size()));
  ar(cereal::binary_data(s.data(), s.size()));
}
std::string LoadString(In& in, const char* what) {
  const size_t n = in.Count(1, what);
  return std::string(in.ar.Take(n), n);
}

int32_t LoadInt32(In& in, int32_t lo, int32_t hi, const char* what) {
  const auto v = in.Read<int32_t>();
  if (v < lo || v > hi) Refuse("{} {} out of range [{}, {}]", what, v, lo, hi);
  return v;
}

bool LoadBool(In& in, const char* what) {
  const auto v = in.Read<uint8_t>();
  if (v > 1) Refuse("{}: {} is not a boolean", what, v);
  return v == 1;
}
void SaveBool(Out& ar, bool b) { ar(static_cast<uint8_t>(b ? 1 : 0)); }

DType LoadDType(In& in) {
  const auto v = in.Read<uint8_t>();
  if (v == 0 || v > static_cast<uint8_t>(DType::kString)) Refuse("unknown dtype {}", v);
  return static_cast<DType>(v);
}

void Save(Out& ar, const PartialShape& s) {
  ar(static_cast<int32_t>(s.rank()));
  for (int i = 0; i < s.rank(); ++i) ar(static_cast<int64_t>(s.dim(i)));
}
PartialShape LoadPartialShape(In& in) {
  const int32_t rank = LoadInt32(in, -1, kMaxRank, "shape rank");
  if (rank < 0) return PartialShape::Unknown();
  std::vector<int64_t> dims(rank);
  for (int64_t& d : dims) {
    d = in.Read<int64_t>();
    if (d < PartialShape::kUnknown) Refuse("negative dimension {}", d);
  }
  return PartialShape(std::move(dims));
}

// ---------------------------------------------------------------- tensors

namespace {

// Numeric elements go as they lie in memory: the wire is little-endian,
// as every host tfg builds for (wire_archive.h).
void SaveElements(Out& ar, const Tensor& t) {
  if (t.dtype() != DType::kString) return ar(cereal::binary_data(t.raw_data(), t.bytes()));
  for (int64_t i = 0; i < t.num_elements(); ++i) Save(ar, t.data<std::string>()[i]);
}

// A tensor's shape: var rank, then var dims (its twin is LoadTensorShape).
void SaveTensorShape(Out& ar, const TensorShape& shape) {
  ar(static_cast<uint32_t>(shape.rank()));
  for (int64_t d : shape.dims()) ar(d);
}

}  // namespace

void SaveTensor(Out& ar, const Tensor& t) {
  if (!t.IsInitialized()) throw WireError("an empty tensor cannot be sent");
  ar(static_cast<uint8_t>(t.dtype()));
  SaveTensorShape(ar, t.shape());
  const bool attach = t.dtype() != DType::kString && t.bytes() >= kAttachBytes;
  SaveBool(ar, attach);
  if (attach) {
    ar.attachments->push_back(t);
  } else {
    SaveElements(ar, t);
  }
}

TensorShape LoadTensorShape(In& in) {
  const auto rank = in.Read<uint32_t>();
  if (rank > kMaxRank) Refuse("tensor rank {} above {}", rank, kMaxRank);
  std::vector<int64_t> dims(rank);
  for (int64_t& d : dims) {
    d = in.Read<int64_t>();
    if (d < 0) Refuse("negative tensor dimension {}", d);
  }
  // The shape's product is checked as every tensor source checks it, with
  // one more cap: no peer sends more than 2**40 elements in one tensor.
  Result<int64_t> n = checked::NumElements("a received tensor", dims);
  if (!n.ok()) Refuse("{}", n.status().message());
  if (*n > (int64_t{1} << 40)) Refuse("tensor of {} elements, more than 2**40", *n);
  return TensorShape(std::move(dims));
}

namespace {

void CheckBools(const Tensor& t) {
  const auto* b = t.data<uint8_t>();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (b[i] > 1) Refuse("bool tensor element {} is {}", i, b[i]);
  }
}

Tensor AllocateReceived(DType dtype, TensorShape shape) {
  auto t = Tensor::Allocate(HostAllocator(), dtype, std::move(shape));
  if (!t.ok()) Refuse("cannot allocate a received tensor: {}", t.status().message());
  return std::move(*t);
}

// The elements in a frame of their own: used where they lie when aligned
// for the dtype (the frame then lives as long as the tensor), else copied.
Tensor LoadAttached(In& in, DType dtype, TensorShape shape) {
  if (dtype == DType::kString) Refuse("a string tensor cannot come in a frame of its own");
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype);
  Attachment& a = in.TakeAttachment(bytes);
  if (reinterpret_cast<uintptr_t>(a.data) % DTypeSize(dtype) == 0) {
    return Tensor(dtype, std::move(shape), std::make_shared<Buffer>(a.data, bytes, a.owner));
  }
  Tensor t = AllocateReceived(dtype, std::move(shape));
  std::memcpy(t.raw_data(), a.data, bytes);
  return t;
}

Tensor LoadInline(In& in, DType dtype, TensorShape shape) {
  const auto n = static_cast<size_t>(shape.num_elements());
  const size_t min_bytes = dtype == DType::kString ? 1 : DTypeSize(dtype);
  if (n > in.left() / min_bytes) Refuse("tensor of {} elements, more than the message holds", n);
  Tensor t = AllocateReceived(dtype, std::move(shape));
  if (dtype == DType::kString) {
    for (size_t i = 0; i < n; ++i) t.data<std::string>()[i] = LoadString(in, "string element");
  } else {
    in.ar.loadBinary(t.raw_data(), t.bytes());
  }
  return t;
}

}  // namespace

Tensor LoadTensor(In& in) {
  const DType dtype = LoadDType(in);
  TensorShape shape = LoadTensorShape(in);
  Tensor t = LoadBool(in, "attachment flag") ? LoadAttached(in, dtype, std::move(shape))
                                              : LoadInline(in, dtype, std::move(shape));
  if (dtype == DType::kBool) CheckBools(t);
  return t;
}

// Layout: var rank, var dims, then u16 per element (no dtype byte: only
// f32 is ever truncated).
void SaveTruncatedF32(Out& ar, const Tensor& t) {
  SaveTensorShape(ar, t.shape());
  const int64_t n = t.num_elements();
  std::vector<uint16_t> high(static_cast<size_t>(n));
  const float* src = t.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &src[i], 4);
    high[i] = static_cast<uint16_t>(bits >> 16);
  }
  ar(cereal::binary_data(high.data(), high.size() * 2));
}

Tensor LoadTruncatedF32(In& in) {
  TensorShape shape = LoadTensorShape(in);
  const auto n = static_cast<size_t>(shape.num_elements());
  if (n > in.left() / 2) Refuse("tensor of {} elements, more than the message holds", n);
  std::vector<uint16_t> high(n);
  in.ar(cereal::binary_data(high.data(), n * 2));
  Tensor t = AllocateReceived(DType::kF32, std::move(shape));
  float* dst = t.data<float>();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = static_cast<uint32_t>(high[i]) << 16;
    std::memcpy(&dst[i], &bits, 4);
  }
  return t;
}

void SaveTensors(Out& ar, const std::vector<Tensor>& ts) {
  ar(static_cast<uint64_t>(ts.size()));
  for (const Tensor& t : ts) SaveTensor(ar, t);
}
std::vector<Tensor> LoadTensors(In& in) {
  std::vector<Tensor> out(in.Count(4, "tensor list"));
  for (Tensor& t : out) t = LoadTensor(in);
  return out;
}

void SaveStrings(Out& ar, const std::vector<std::string>& v) {
  ar(static_cast<uint64_t>(v.size()));
  for (const std::string& s : v) Save(ar, s);
}
std::vector<std::string> LoadStrings(In& in, const char* what) {
  std::vector<std::string> v(in.Count(1, what));
  for (std::string& s : v) s = LoadString(in, what);
  return v;
}

// ------------------------------------------------------------------ attrs
// An attr is its variant index (u8) and the value of that alternative.

namespace {

template <typename T, typename F>
void SaveList(Out& ar, const std::vector<T>& v, F save_one) {
  ar(static_cast<uint64_t>(v.size()));
  for (const T& x : v) save_one(x);
}

struct AttrSaver {
  Out& ar;
  void operator()(std::monostate) const {}
  void operator()(int64_t v) const { ar(v); }
  void operator()(double v) const { ar(v); }
  void operator()(bool v) const { SaveBool(ar, v); }
  void operator()(const std::string& v) const { Save(ar, v); }
  void operator()(DType v) const { ar(static_cast<uint8_t>(v)); }
  void operator()(const PartialShape& v) const { Save(ar, v); }
  void operator()(const std::vector<int64_t>& v) const { SaveList(ar, v, [&](int64_t x) { ar(x); }); }
  void operator()(const std::vector<double>& v) const { SaveList(ar, v, [&](double x) { ar(x); }); }
  void operator()(const std::vector<DType>& v) const {
    SaveList(ar, v, [&](DType x) { ar(static_cast<uint8_t>(x)); });
  }
  void operator()(const std::vector<PartialShape>& v) const {
    SaveList(ar, v, [&](const PartialShape& x) { Save(ar, x); });
  }
  void operator()(const std::vector<std::string>& v) const { SaveStrings(ar, v); }
  void operator()(const Tensor& v) const { SaveTensor(ar, v); }
};

template <typename T, typename F>
std::vector<T> LoadList(In& in, size_t min_bytes, F load_one) {
  std::vector<T> v(in.Count(min_bytes, "attr list"));
  for (T& x : v) x = load_one();
  return v;
}

AttrValue LoadAttrValue(In& in) {
  const auto index = in.Read<uint8_t>();
  switch (index) {
    case 0: return std::monostate{};
    case 1: return in.Read<int64_t>();
    case 2: return in.Read<double>();
    case 3: return LoadBool(in, "bool attr");
    case 4: return LoadString(in, "string attr");
    case 5: return LoadDType(in);
    case 6: return LoadPartialShape(in);
    case 7: return LoadList<int64_t>(in, 1, [&] { return in.Read<int64_t>(); });
    case 8: return LoadList<double>(in, 8, [&] { return in.Read<double>(); });
    case 9: return LoadList<DType>(in, 1, [&] { return LoadDType(in); });
    case 10: return LoadList<PartialShape>(in, 1, [&] { return LoadPartialShape(in); });
    case 11: return LoadStrings(in, "string list attr");
    case 12: return LoadTensor(in);
    default: Refuse("unknown attr kind {}", index);
  }
}

}  // namespace

void SaveAttrs(Out& ar, const AttrMap& attrs) {
  ar(static_cast<uint64_t>(attrs.size()));
  for (const auto& [name, value] : attrs) {
    Save(ar, name);
    ar(static_cast<uint8_t>(value.index()));
    std::visit(AttrSaver{ar}, value);
  }
}

AttrMap LoadAttrs(In& in) {
  AttrMap attrs;
  const size_t n = in.Count(2, "attrs");
  for (size_t i = 0; i < n; ++i) {
    std::string name = LoadString(in, "attr name");
    AttrValue value = LoadAttrValue(in);
    if (!attrs.emplace(name, std::move(value)).second) Refuse("attr '{}' given twice", name);
  }
  return attrs;
}
}  // namespace tfg::net::wire
