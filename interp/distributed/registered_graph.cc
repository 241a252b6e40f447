#include "interp/distributed/registered_graph.h"

namespace tfg {

Status CheckFeeds(const RegisteredGraph& g, const std::vector<Tensor>& values) {
  if (values.size() != g.feeds.size()) {
    return InvalidArgument("{} feeds for a graph that takes {}", values.size(), g.feeds.size());
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const Output& o = g.feeds[i];
    if (!values[i].IsInitialized() || values[i].dtype() != o.dtype() ||
        !o.shape().IsCompatibleWith(values[i].shape())) {
      return InvalidArgument("feed for '{}': expected {} {}, got {}", o.name(), DTypeName(o.dtype()),
                             o.shape().ToString(), values[i].IsInitialized() ? values[i].DebugString() : "nothing");
    }
  }
  return Status::OK();
}

}  // namespace tfg
