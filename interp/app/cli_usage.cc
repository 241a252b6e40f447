// `tfg --help`: the synopsis and the options, in one file so that the help
// text is edited in one place (docs/cli.md says the same for users).
#include "interp/app/cli_usage.h"

#include <string>

#include "interp/app/cli.h"

namespace tfg::cli {

const char kSynopsis[] =
    R"(usage: tfg [options] FILE [args...]   run a script (args are visible as `argv`)
       tfg [options]                  start the interactive REPL
       tfg [options] check FILE       parse, build and shape-check without running
       tfg [options] graph FILE --dot print the graph in Graphviz dot syntax,
                                      name scopes as clusters
                                      (--depth N: scopes deeper than N as one box;
                                       --optimized: as optimized before running;
                                       --placed: nodes coloured by device)
       tfg doc ops                    print the reference of every op (docs/ops.md)
       tfg --worker --listen ADDR      serve as a distributed worker
       tfg keygen DIR                 make CURVE keys for --curve-keys DIR
       tfg import MODEL.pb -o M.tfg   a TensorFlow GraphDef as a .tfg script
       tfg export FILE.tfg -o G.pb    a script's graph as a TensorFlow GraphDef
       tfg --help | --version
)";

std::string Usage() {
  return std::string(kSynopsis) + R"(
FILE may be '-' to read the script from stdin; put '--' before script
arguments that look like options (or before a FILE that starts with '-').

options:
  --threads N   size of the inter- and intra-op thread pools (default: one per core)
  --seed S      seed for random ops, for repeatable runs (default: nondeterministic)
  --quiet, -q   no progress lines
  --check-numerics
                stop a run at the first op whose float output holds NaN or Inf
  --stats       at exit, print kernel time per op type and memory use to stderr
  --hang-timeout S
                fail a run stuck for S seconds with every pending op waiting on a
                queue, naming them (default 10; 0: wait forever)
  --memory-limit BYTES
                the most memory tensors may take at once, e.g. 512M or 4G (K, M, G, T:
                powers of 1024); beyond it an op fails with ResourceExhausted at its
                line instead of the system killing tfg (default: the machine's memory,
                or ulimit -v when lower)
  --trace FILE  write a timeline of kernels and steps (Chrome trace JSON, for Perfetto)
  --logdir DIR  create DIR for TensorBoard event files; scripts read it with logdir()
  --local-devices cpu=N
                N logical CPU devices (/device:cpu:0 ... cpu:N-1) to place ops on
  --device TYPE nodes without a device type of their own prefer TYPE (cpu or gpu)
  --cluster JOB=ADDR;ADDR,JOB=ADDR
                the tasks of a distributed run, as cluster() declares them
                (e.g. ps=tcp://127.0.0.1:7001,worker=tcp://127.0.0.1:7002;tcp://127.0.0.1:7003)
  --heartbeat S seconds between liveness checks of the cluster's tasks (default 1);
                a task silent for three is dead and fails the run
  --master-listen ADDR
                the master's own address for the cluster's tasks (default: a free
                loopback port); tasks on other machines need one they can reach
  --recovery-timeout S
                with checkpoint_every, how long to wait for a dead task to come
                back before the run fails (default 60)
  --worker --listen ADDR
                serve as a distributed worker on ADDR (tcp://127.0.0.1:PORT; a bare
                :PORT binds loopback) until SIGINT or SIGTERM
  --master-timeout S
                (worker) drop a master's state after S seconds without a word from it
                (default 10)
  --data-dir DIR
                (worker) save, restore, readers and summary writers may only touch
                files under DIR; relative paths start there (default: the working
                directory)
  --curve-keys DIR
                encrypt and authenticate all traffic with CURVE, using the keys in
                DIR (made by `tfg keygen DIR`); only clients in DIR/authorized connect
  --compress-transfers
                (master) send f32 tensors between processes as their upper 16 bits
  --log-placement
                print to stderr the device each node runs on, when its run is planned
  --help, -h    show this help
  --version, -V show the version

environment:
  TF_CONFIG     TensorFlow's cluster JSON, as a Kubernetes TFJob sets it: a chief
                task runs FILE with its --cluster and --master-listen, any other
                task is a --worker listening at its own entry; flags win over it

exit codes: 0 ok, 1 script error, 2 usage error, 130 interrupted (Ctrl-C)
)";
}

}  // namespace tfg::cli
