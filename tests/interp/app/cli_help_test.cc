// `tfg --help` lists every command the argument parser (and the interop
// dispatcher) accepts, and every option of `graph`.
#include <gtest/gtest.h>

#include "interp/app/cli.h"

namespace tfg::cli {
namespace {

TEST(CliHelpTest, ListsEveryCommand) {
  const std::string usage = Usage();
  for (const char* command : {"tfg [options] FILE", "tfg [options] check FILE", "tfg [options] graph FILE",
                              "tfg doc ops", "tfg keygen DIR", "tfg --worker --listen ADDR",
                              "tfg import MODEL.pb", "tfg export FILE.tfg", "tfg --help | --version"}) {
    EXPECT_NE(usage.find(command), std::string::npos) << command << "\n" << usage;
  }
  for (const char* graph_option : {"--dot", "--depth N", "--optimized", "--placed"}) {
    EXPECT_NE(usage.find(graph_option), std::string::npos) << graph_option;
  }
}

TEST(CliHelpTest, GraphDepthIsParsed) {
  auto opts = ParseArgs({"graph", "model.tfg", "--depth", "2"});
  ASSERT_TRUE(opts.ok()) << opts.status().ToString();
  EXPECT_EQ(opts->depth, 2);
  EXPECT_FALSE(ParseArgs({"graph", "model.tfg", "--depth", "-1"}).ok());
  EXPECT_FALSE(ParseArgs({"graph", "model.tfg", "--depth", "2", "--placed"}).ok());
  EXPECT_FALSE(ParseArgs({"--depth", "2", "model.tfg"}).ok());  // a graph option only
}

}  // namespace
}  // namespace tfg::cli
