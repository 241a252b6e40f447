// The `--worker` command around WorkerService: the file root, the signals
// that stop it, and the lines tests and users wait for.
#include <csignal>
#include <iostream>

#include "interp/distributed/worker.h"
#include "net/curve.h"
#include "net/exposure.h"
#include "net/transport.h"
#include "ops/core/file_root.h"

namespace tfg {

namespace {
std::atomic<bool> g_stop{false};
extern "C" void OnWorkerSignal(int) { g_stop.store(true); }
}  // namespace

int RunWorker(const WorkerOptions& options) {
  if (Status s = SetFileRoot(options.data_dir.empty() ? "." : options.data_dir); !s.ok()) {
    std::cerr << "tfg: " << s.message() << "\n";
    return 2;
  }
  auto worker = WorkerService::Start(options);
  if (!worker.ok()) {
    std::cerr << "tfg: " << worker.status().message() << "\n";
    return 1;
  }
  struct sigaction sa {};
  sa.sa_handler = OnWorkerSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::cout << "tfg worker listening on " << (*worker)->address() << std::endl;
  net::LogNet("files: only under " + FileRoot() + (net::GetNetSettings().curve ? "; CURVE security on" : ""));
  if (std::string warning = net::ExposureWarning((*worker)->address(), net::GetNetSettings().curve); !warning.empty()) {
    net::LogNet(warning);
  }
  (*worker)->Serve(g_stop);
  worker->reset();
  std::cout << "tfg worker stopped" << std::endl;
  if (options.stats) std::cerr << net::NetworkTrafficReport() << std::flush;
  return 0;
}

}  // namespace tfg
