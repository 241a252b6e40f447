#include "interp/runtime/interrupt.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <thread>

namespace tfg::interrupt {
namespace {

constexpr int kExitInterrupted = 130;

int g_pipe[2] = {-1, -1};               // written by the handler, read by the watcher
std::atomic<bool> g_ever{false};
std::atomic<bool> g_pending{false};     // Ctrl-C in the live scope

struct State {
  std::mutex mu;
  std::shared_ptr<CancellationManager> manager;  // of the live scope
  bool requested = false;                        // in the live (or last) scope
  double grace_seconds = 3.0;
  uint64_t generation = 0;                       // bumped when a scope ends
  struct sigaction previous {};
};

State& GetState() {
  static auto* state = new State();  // never destroyed: the watcher outlives main
  return *state;
}

extern "C" void OnSigint(int) {
  const char byte = 1;
  ssize_t ignored = write(g_pipe[1], &byte, 1);
  (void)ignored;
}

[[noreturn]] void ExitNow() {
  static const char kMsg[] = "\ntfg: interrupted\n";
  ssize_t ignored = write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
  (void)ignored;
  _exit(kExitInterrupted);
}

// Waits for another byte until `deadline`; true when one came.
bool WaitForByte(int timeout_ms) {
  pollfd p{g_pipe[0], POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return false;
  char byte;
  return read(g_pipe[0], &byte, 1) == 1;
}

// After the first Ctrl-C of a scope: wait for the scope to end; a second
// Ctrl-C or the end of the grace period ends the process.
void AwaitEnd(uint64_t generation, double grace_seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (WaitForByte(50)) ExitNow();
    std::lock_guard<std::mutex> lock(GetState().mu);
    if (GetState().generation != generation) return;
  }
  ExitNow();
}

void Watch() {
  for (;;) {
    char byte;
    if (read(g_pipe[0], &byte, 1) != 1) continue;
    g_ever = true;
    State& s = GetState();
    std::shared_ptr<CancellationManager> manager;
    uint64_t generation;
    double grace;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      manager = s.manager;
      s.requested = manager != nullptr;
      g_pending = manager != nullptr;
      generation = s.generation;
      grace = s.grace_seconds;
    }
    if (!manager) ExitNow();  // no script to stop gracefully
    manager->StartCancel();
    AwaitEnd(generation, grace);
  }
}

void StartWatcherOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (pipe(g_pipe) != 0) return;
    fcntl(g_pipe[0], F_SETFD, FD_CLOEXEC);
    fcntl(g_pipe[1], F_SETFD, FD_CLOEXEC);
    fcntl(g_pipe[1], F_SETFL, O_NONBLOCK);  // a flood of Ctrl-C must not block the handler
    std::thread(Watch).detach();
  });
}

}  // namespace

ScriptScope::ScriptScope(double grace_seconds) {
  StartWatcherOnce();
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.manager) return;
  outermost_ = true;
  s.manager = std::make_shared<CancellationManager>();
  s.requested = false;
  g_pending = false;
  s.grace_seconds = grace_seconds;
  if (g_pipe[1] < 0) return;
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, &s.previous);
}

ScriptScope::~ScriptScope() {
  if (!outermost_) return;
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (g_pipe[1] >= 0) sigaction(SIGINT, &s.previous, nullptr);
  s.manager.reset();
  g_pending = false;
  ++s.generation;
}

std::shared_ptr<CancellationManager> Current() {
  std::lock_guard<std::mutex> lock(GetState().mu);
  return GetState().manager;
}

bool Requested() {
  std::lock_guard<std::mutex> lock(GetState().mu);
  return GetState().requested;
}

bool Pending() { return g_pending.load(std::memory_order_relaxed); }

bool EverRequested() { return g_ever.load(); }

void Simulate() {
  StartWatcherOnce();
  OnSigint(SIGINT);
}

}  // namespace tfg::interrupt
