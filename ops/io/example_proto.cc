#include "ops/io/example_proto.h"

#include <bit>
#include <cstring>
#include <optional>

#include "ops/io/proto_wire.h"

namespace tfg::example {
namespace {

static_assert(std::endian::native == std::endian::little, "the Example parser assumes a little-endian host");

using proto_wire::Field;
using proto_wire::WireType;

Status Malformed(std::string_view what) { return Status(Code::kDataLoss, fmt::format("malformed Example: {}", what)); }

Status ParseFloats(const Field& f, std::vector<float>& out) {
  if (f.type == WireType::kFixed32) {
    float v;
    const auto bits = static_cast<uint32_t>(f.value);
    std::memcpy(&v, &bits, 4);
    out.push_back(v);
    return Status::OK();
  }
  if (f.type != WireType::kBytes || f.bytes.size() % 4 != 0) return Malformed("a float list is not a whole number of floats");
  if (f.bytes.empty()) return Status::OK();  // memcpy into an empty vector's null data() is undefined
  const size_t n = f.bytes.size() / 4;
  const size_t at = out.size();
  out.resize(at + n);
  std::memcpy(out.data() + at, f.bytes.data(), f.bytes.size());
  return Status::OK();
}

Status ParseInts(const Field& f, std::vector<int64_t>& out) {
  if (f.type == WireType::kVarint) {
    out.push_back(static_cast<int64_t>(f.value));
    return Status::OK();
  }
  if (f.type != WireType::kBytes) return Malformed("an int64 list has the wrong wire type");
  if (!proto_wire::ForEachVarint(f.bytes, [&](uint64_t v) { out.push_back(static_cast<int64_t>(v)); })) {
    return Malformed("a packed int64 list ends inside a number");
  }
  return Status::OK();
}

// One of BytesList, FloatList, Int64List: its repeated field 1.
Status ParseList(std::string_view bytes, Feature& f) {
  proto_wire::Reader r(bytes, "Example feature list");
  while (!r.done()) {
    TFG_ASSIGN_OR_RETURN(Field item, r.Next());
    if (item.number != 1) continue;
    if (f.kind == Feature::Kind::kBytes) {
      if (item.type != WireType::kBytes) return Malformed("a bytes list holds a non-bytes value");
      f.bytes.emplace_back(item.bytes);
    } else if (f.kind == Feature::Kind::kFloat) {
      TFG_RETURN_IF_ERROR(ParseFloats(item, f.floats));
    } else {
      TFG_RETURN_IF_ERROR(ParseInts(item, f.ints));
    }
  }
  return Status::OK();
}

Result<Feature> ParseFeature(std::string_view bytes) {
  Feature f;
  proto_wire::Reader r(bytes, "Example Feature");
  while (!r.done()) {
    TFG_ASSIGN_OR_RETURN(Field field, r.Next());
    if (field.number < 1 || field.number > 3) continue;
    if (field.type != WireType::kBytes) return Malformed("a feature's list is not a message");
    f = Feature();  // oneof: the last list set wins
    f.kind = field.number == 1 ? Feature::Kind::kBytes : field.number == 2 ? Feature::Kind::kFloat : Feature::Kind::kInt64;
    TFG_RETURN_IF_ERROR(ParseList(field.bytes, f));
  }
  return f;
}

// A map entry of Features: (key, the Feature's bytes).
Status ParseEntry(std::string_view bytes, std::string_view& key, std::string_view& value) {
  proto_wire::Reader r(bytes, "Example map entry");
  key = {};
  value = {};
  while (!r.done()) {
    TFG_ASSIGN_OR_RETURN(Field f, r.Next());
    if (f.type != WireType::kBytes) continue;
    if (f.number == 1) key = f.bytes;
    if (f.number == 2) value = f.bytes;
  }
  return Status::OK();
}

void PutFeature(std::string& out, const Feature& f) {
  std::string list;
  if (f.kind == Feature::Kind::kBytes) {
    for (const std::string& b : f.bytes) proto_wire::PutBytesField(list, 1, b);
  } else if (f.kind == Feature::Kind::kFloat) {
    std::string packed(f.floats.size() * 4, '\0');
    if (!f.floats.empty()) std::memcpy(packed.data(), f.floats.data(), packed.size());
    proto_wire::PutBytesField(list, 1, packed);
  } else if (f.kind == Feature::Kind::kInt64) {
    std::string packed;
    for (int64_t v : f.ints) proto_wire::PutVarint(packed, static_cast<uint64_t>(v));
    proto_wire::PutBytesField(list, 1, packed);
  }
  if (f.kind != Feature::Kind::kNone) proto_wire::PutBytesField(out, static_cast<uint32_t>(f.kind), list);
}

}  // namespace

Result<std::optional<Feature>> FindFeature(std::string_view example, std::string_view key) {
  std::optional<std::string_view> found;
  proto_wire::Reader r(example, "Example");
  while (!r.done()) {
    TFG_ASSIGN_OR_RETURN(Field features, r.Next());
    if (features.number != 1) continue;
    if (features.type != WireType::kBytes) return Malformed("'features' is not a message");
    proto_wire::Reader entries(features.bytes, "Example Features");
    while (!entries.done()) {
      TFG_ASSIGN_OR_RETURN(Field entry, entries.Next());
      if (entry.number != 1) continue;
      if (entry.type != WireType::kBytes) return Malformed("a feature map entry is not a message");
      std::string_view name, value;
      TFG_RETURN_IF_ERROR(ParseEntry(entry.bytes, name, value));
      if (name == key) found = value;
    }
  }
  if (!found) return std::optional<Feature>();
  TFG_ASSIGN_OR_RETURN(Feature f, ParseFeature(*found));
  return std::optional<Feature>(std::move(f));
}

std::string_view KindName(Feature::Kind kind) {
  switch (kind) {
    case Feature::Kind::kBytes: return "bytes";
    case Feature::Kind::kFloat: return "float";
    case Feature::Kind::kInt64: return "int64";
    default: return "no";
  }
}

std::string EncodeExample(const std::vector<std::pair<std::string, Feature>>& features) {
  std::string map;
  for (const auto& [name, f] : features) {
    std::string value, entry;
    PutFeature(value, f);
    proto_wire::PutBytesField(entry, 1, name);
    proto_wire::PutBytesField(entry, 2, value);
    proto_wire::PutBytesField(map, 1, entry);
  }
  std::string out;
  proto_wire::PutBytesField(out, 1, map);
  return out;
}

}  // namespace tfg::example
