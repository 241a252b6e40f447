#include "interp/app/op_docs.h"

#include <fmt/format.h>

namespace tfg {

std::string OpReferenceMarkdown(const OpRegistry& registry) {
  std::vector<const OpDef*> ops = registry.ListOps();
  std::string out =
      "# Op reference\n\n"
      "<!-- Generated from the op registry by scripts/gen-docs (`tfg doc ops`). Do not edit:\n"
      "     a test fails when this file differs from what the registry says. -->\n\n";
  out += fmt::format(
      "{} ops. A script calls every op by its name. Positional arguments bind to the parameters\n"
      "in the order the signature shows (inputs and attributes interleaved); attributes with a\n"
      "default may be left out or given by keyword. Type attributes inferred from the inputs\n"
      "(such as `T`) are keyword-only. An op called only on host values runs at once, except\n"
      "stateful ops, which always build graph nodes.\n\n",
      ops.size());
  std::vector<std::string> index;
  for (const OpDef* op : ops) index.push_back(fmt::format("[{0}](#{0})", op->name));
  if (!index.empty()) {
    for (size_t i = 0; i < index.size(); ++i) out += (i ? " · " : "") + index[i];
    out += "\n\n";
  }
  for (const OpDef* op : ops) out += OpDocSection(*op, registry);
  return out;
}

}  // namespace tfg
