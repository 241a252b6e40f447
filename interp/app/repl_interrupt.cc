#include "interp/app/repl_interrupt.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace tfg {
namespace {

// Lock-free atomics and write(): safe in a signal handler.
std::atomic<bool> g_interrupted{false};
int g_wake[2] = {-1, -1};  // the self-pipe: [0] polled, [1] written by the handler

void OnPromptInterrupt(int) {
  const int saved_errno = errno;
  g_interrupted.store(true);
  if (g_wake[1] >= 0) {
    const char byte = 1;
    ssize_t ignored = write(g_wake[1], &byte, 1);  // full pipe: a wake-up is pending anyway
    (void)ignored;
  }
  errno = saved_errno;
}

void DrainWakePipe() {
  char buf[64];
  while (g_wake[0] >= 0 && read(g_wake[0], buf, sizeof buf) > 0) {
  }
}

// One byte of fd, waiting for it or for Ctrl-C: the byte, or -1 at the end
// of input, on an error or on Ctrl-C.
int NextByte(int fd) {
  for (;;) {
    if (g_interrupted.load()) return -1;
    pollfd fds[2] = {{fd, POLLIN, 0}, {g_wake[0], POLLIN, 0}};
    const int ready = poll(fds, g_wake[0] >= 0 ? 2 : 1, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return -1;
    if (fds[1].revents != 0) DrainWakePipe();
    if (fds[0].revents == 0) continue;
    unsigned char byte = 0;
    const ssize_t n = read(fd, &byte, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    return n == 1 ? byte : -1;
  }
}

// How many bytes a UTF-8 sequence starting with `lead` has; 1 for ASCII
// and for bytes that start none (passed on as they are).
int SequenceLength(int lead) {
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  if (lead >= 0xE0) return lead <= 0xEF ? 3 : 1;
  if (lead >= 0xC2) return 2;
  return 1;
}

}  // namespace

PromptInterrupts::PromptInterrupts() {
  if (g_wake[0] < 0 && pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) g_wake[0] = g_wake[1] = -1;
  struct sigaction action {};
  action.sa_handler = OnPromptInterrupt;
  sigemptyset(&action.sa_mask);
  installed_ = sigaction(SIGINT, &action, &previous_) == 0;
}

PromptInterrupts::~PromptInterrupts() {
  if (installed_) sigaction(SIGINT, &previous_, nullptr);
}

void PromptInterrupts::BeginLine() {
  g_interrupted.store(false);
  DrainWakePipe();
}

bool PromptInterrupts::Interrupted() const { return g_interrupted.load(); }

int PromptGetc(std::FILE* in) {
  const int fd = in != nullptr ? fileno(in) : STDIN_FILENO;
  const int lead = NextByte(fd);
  if (lead < 0) return -1;
  const int length = SequenceLength(lead);
  if (length == 1) return lead;
  int code = lead & (0x7F >> length);
  for (int i = 1; i < length; ++i) {
    const int next = NextByte(fd);
    if (next < 0) return -1;
    if ((next & 0xC0) != 0x80) return 0xFFFD;  // broken sequence: the replacement character
    code = (code << 6) | (next & 0x3F);
  }
  return code;
}

}  // namespace tfg
