// The text of `tfg --help`, shared by Usage() (cli.h) and RunCli, which
// prints the synopsis alone after a usage error.
#pragma once

namespace tfg::cli {

// The usage lines of every command, without the options.
extern const char kSynopsis[];

}  // namespace tfg::cli
