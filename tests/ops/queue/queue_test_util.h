// Helpers for the queue class tests: scalar elements, and callbacks that
// record how a waiting call ended.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "ops/queue/queue_base.h"

namespace tfg::test {

inline QueueInterface::Tuple Element(float v) { return {Tensor::Scalar<float>(v)}; }

inline QueueConfig ScalarConfig(int64_t capacity) {
  QueueConfig c;
  c.name = "q";
  c.capacity = capacity;
  c.types = {DType::kF32};
  c.shapes = {PartialShape::Scalar()};
  return c;
}

// Where a callback leaves its result; `done` tells whether it ran.
struct StatusSlot {
  std::optional<Status> status;
  QueueInterface::DoneCallback cb() {
    return [this](Status s) { status = std::move(s); };
  }
  bool done() const { return status.has_value(); }
};

struct TupleSlot {
  std::optional<Result<QueueInterface::Tuple>> result;
  QueueInterface::TupleCallback cb() {
    return [this](Result<QueueInterface::Tuple> r) { result = std::move(r); };
  }
  bool done() const { return result.has_value(); }
  bool ok() const { return done() && result->ok(); }
  Code code() const { return result->ok() ? Code::kOk : result->status().code(); }
  // The scalar f32 value of component 0.
  float value() const { return (**result)[0].scalar<float>(); }
};

}  // namespace tfg::test
