#pragma once

#include <string>

namespace tfg {

// The directory of the running executable (/proc/self/exe), canonical;
// empty when the system does not say.
std::string ExecutableDir();

// Where `import nn` looks when neither --stdlib nor TFG_STDLIB_DIR says:
// <prefix>/share/tfg/stdlib next to an installed <prefix>/bin/tfg, and the
// source tree's stdlib/ only for a binary that lies in the build folder it
// was built in (so an installed tfg never reads a source checkout, even one
// still on the machine).
std::string DefaultStdlibDir();

}  // namespace tfg
