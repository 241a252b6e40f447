// tfg: the command-line entry point. Everything lives in interp/cli.cc.
#include "interp/cli.h"

int main(int argc, char** argv) { return tfg::cli::RunCli(argc, argv); }
