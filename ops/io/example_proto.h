// tf.train.Example records (tensorflow/core/example/example.proto), read
// from their protobuf bytes: an Example holds Features, a map from names to
// a Feature, which is one list of bytes, floats or int64s.
//
//   Example  { Features features = 1; }
//   Features { map<string, Feature> feature = 1; }
//   Feature  { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }  FloatList { repeated float value = 1 [packed]; }
//   Int64List { repeated int64 value = 1 [packed]; }
//
// Parsed as protobuf does it: packed and unpacked lists both accepted,
// unknown fields skipped, a later map entry of the same name wins.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/core/status.h"

namespace tfg::example {

struct Feature {
  enum class Kind { kNone, kBytes, kFloat, kInt64 };
  Kind kind = Kind::kNone;  // kNone: a Feature with no list set
  std::vector<std::string> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;

  size_t size() const { return bytes.size() + floats.size() + ints.size(); }
};

// The feature `key` of the serialized Example, or nullopt when the
// Example has none of that name. DataLoss for malformed bytes.
Result<std::optional<Feature>> FindFeature(std::string_view example, std::string_view key);

// "int64", "float", "bytes" or "no" list, for messages.
std::string_view KindName(Feature::Kind kind);

// The bytes of an Example holding `features` (name, feature), in order:
// for tests and fuzzing seeds.
std::string EncodeExample(const std::vector<std::pair<std::string, Feature>>& features);

}  // namespace tfg::example
