#include "ops/queue/queue_kinds.h"

namespace tfg {

size_t RandomShuffleQueue::PickIndex(size_t size) {
  const random::PhiloxCounter w = stream_.Block(next_block_++);
  return static_cast<size_t>(random::Join(w[0], w[1]) % size);
}

std::string RandomShuffleQueue::Settings() const {
  return ", min_after_dequeue=" + std::to_string(min_after_dequeue_);
}

}  // namespace tfg
