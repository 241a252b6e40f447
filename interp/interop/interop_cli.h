// `tfg import MODEL.pb -o MODEL.tfg` and `tfg export FILE.tfg -o GRAPH.pb`.
#pragma once

namespace tfg::interop {

// Whether argv names one of these commands (argv[1] is "import" or "export").
bool IsInteropCommand(int argc, char** argv);
// Runs it; returns the process exit code (0 ok, 1 error, 2 usage).
int RunInteropCommand(int argc, char** argv);

}  // namespace tfg::interop
