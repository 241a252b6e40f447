// libFuzzer entry for the GraphDef reader and importer (interp/interop/):
// any bytes, binary or text format, must import into a graph or come back
// as an error value, never crash, hang or allocate from a size the bytes do
// not back. A graph that imports must also export (or refuse to, by value).
// Seeds: the GraphDefs TensorFlow wrote for the tests (tests/interop/data).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "interp/interop/exporter.h"
#include "interp/interop/graph_def_io.h"
#include "interp/interop/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tfg::Result<tfg::tf::GraphDef> def = tfg::interop::ParseGraphDef(bytes, "fuzz");
  if (!def.ok()) return 0;
  tfg::Graph graph;
  tfg::interop::ImportOptions opts;
  auto imported = tfg::interop::ImportGraphDef(
      *def, opts, [&](tfg::NodeSpec spec) { return graph.AddNode(std::move(spec)); });
  if (!imported.ok()) return 0;
  (void)tfg::interop::ExportGraphDef(graph);
  return 0;
}
