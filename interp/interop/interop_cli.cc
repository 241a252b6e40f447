#include "interp/interop/interop_cli.h"

#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "interp/interop/exporter.h"
#include "interp/interop/graph_def_io.h"
#include "interp/interop/graph_script.h"
#include "interp/interop/importer.h"
#include "interp/language/interpreter.h"

namespace tfg::interop {
namespace {

constexpr const char* kUsage =
    "usage: tfg import MODEL.pb|MODEL.pbtxt -o MODEL.tfg [--inline-limit N]\n"
    "       tfg export FILE.tfg -o GRAPH.pb|GRAPH.pbtxt [--fetch NODE]...\n";

struct Args {
  std::string input, output;
  std::vector<std::string> fetches;
  int64_t inline_limit = 64;
};

bool Parse(int argc, char** argv, Args& a) {
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "-o" && has_value) {
      a.output = argv[++i];
    } else if (arg == "--fetch" && has_value) {
      a.fetches.push_back(argv[++i]);
    } else if (arg == "--inline-limit" && has_value) {
      char* end = nullptr;
      a.inline_limit = std::strtoll(argv[++i], &end, 10);
      if (*end != '\0' || a.inline_limit < 0) return false;
    } else if (!arg.empty() && arg[0] != '-' && a.input.empty()) {
      a.input = arg;
    } else {
      return false;
    }
  }
  return !a.input.empty() && !a.output.empty();
}

int Report(const Status& s) {
  std::cerr << "tfg: error: " << s.message() << "\n";
  return 1;
}

int Import(const Args& a) {
  Result<tf::GraphDef> def = ReadGraphDefFile(a.input);
  if (!def.ok()) return Report(def.status());
  Graph graph;
  ImportOptions opts;
  opts.scope = "";
  Result<ImportedGraph> g = ImportGraphDef(*def, opts, [&](NodeSpec spec) { return graph.AddNode(std::move(spec)); });
  if (!g.ok()) return Report(g.status());
  ScriptOptions so;
  so.inline_limit = a.inline_limit;
  so.header = fmt::format("# Imported from {} by `tfg import`: one statement per TensorFlow node.\n",
                          std::filesystem::path(a.input).filename().string());
  Status s = WriteGraphScript(graph, a.output, so);
  if (!s.ok()) return Report(s);
  std::cout << fmt::format("{}: {} nodes\n", a.output, graph.num_nodes());
  return 0;
}

int Export(const Args& a) {
  InterpreterOptions io;
  io.check_only = true;  // build the graph; run nothing
  Interpreter interp(io);
  Status s = interp.RunFile(a.input);
  if (!s.ok()) return Report(s);
  ExportOptions opts;
  for (const std::string& name : a.fetches) {
    const Node* n = interp.graph().FindNode(name);
    if (!n) return Report(Status(Code::kNotFound, fmt::format("--fetch {}: no node of that name", name)));
    opts.roots.push_back(n);
  }
  // A script's variable(v) builds the variable and its initializer, the
  // assign named "<variable>/init" (interp/language/builtins/builtins_graph.cc).
  for (const auto& n : interp.graph().nodes()) {
    if (n->op_name() != "variable") continue;
    const Node* init = interp.graph().FindNode(n->name() + "/init");
    if (init && init->op_name() == "assign") opts.initializers.push_back(init);
  }
  Result<tf::GraphDef> def = ExportGraphDef(interp.graph(), opts);
  if (!def.ok()) return Report(def.status());
  s = WriteGraphDefFile(a.output, *def);
  if (!s.ok()) return Report(s);
  std::cout << fmt::format("{}: {} nodes\n", a.output, def->node_size());
  return 0;
}

}  // namespace

bool IsInteropCommand(int argc, char** argv) {
  return argc >= 2 && (std::strcmp(argv[1], "import") == 0 || std::strcmp(argv[1], "export") == 0);
}

int RunInteropCommand(int argc, char** argv) {
  Args a;
  if (!Parse(argc, argv, a)) {
    std::cerr << kUsage;
    return 2;
  }
  return std::strcmp(argv[1], "import") == 0 ? Import(a) : Export(a);
}

}  // namespace tfg::interop
