// TensorFlow V2 checkpoints on disk: `PREFIX.index` and
// `PREFIX.data-NNNNN-of-NNNNN`, as tf.compat.v1.train.Saver and
// tf.train.Checkpoint write them (the format: ops/io/tf_bundle_format.h).
// Reads are whole and verified before anything uses them; writes go
// through temporary files and renames, the data shard first and the index
// last, so that a reader never sees an index without its data.
#pragma once

#include <string>
#include <vector>

#include "ops/io/checkpoint_format.h"

namespace tfg::tf_bundle {

// Whether `path` names a bundle: `path.index` is there, or `path` itself
// is the `.index` file of one. Returns the prefix, or "" when it is not.
std::string BundlePrefixOf(const std::string& path);

// Every tensor of the bundle at `prefix`, in name order, with every
// checksum verified. Errors name the prefix and what is wrong.
Result<std::vector<checkpoint::Entry>> ReadBundle(const std::string& prefix);

// Writes `entries` as a one-shard bundle at `prefix` (creating parent
// directories); TensorFlow's tf.train.load_checkpoint reads it.
Status WriteBundle(const std::string& prefix, const std::vector<checkpoint::Entry>& entries);

}  // namespace tfg::tf_bundle
