// Tensor transfer throughput between two processes (scripts/bench): f32
// tensors of 1 KB, 1 MB and 64 MB pushed as TensorTransfer messages through
// net::Transport (encode, send, receive, decode with every check, a tensor
// allocated and filled), next to bare ZeroMQ moving the same number of bytes
// between a DEALER and a ROUTER in two processes. Both keep a window of
// messages in flight and count one acknowledgement per message.
//
// transfer_bench [--quick]
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "net/protocol.h"
#include "net/transport.h"

namespace tfg {
namespace {

constexpr int kWindow = 4;
using Clock = std::chrono::steady_clock;

// Runs `serve` in a child process; returns its pid and the address it
// printed on the pipe.
template <typename F>
std::pair<pid_t, std::string> Spawn(F serve) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    serve(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  char buf[256] = {};
  ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
  close(fds[0]);
  return {pid, std::string(buf, n > 0 ? static_cast<size_t>(n) : 0)};
}

void Announce(int fd, const std::string& address) {
  ssize_t ignored = write(fd, address.data(), address.size());
  (void)ignored;
  close(fd);
}

// ------------------------------------------------------------- tfg path

// Decodes each transfer (as a worker does) and acknowledges it; exits
// after `count` messages.
void ServeTfg(int fd, int count) {
  std::mutex mu;
  std::condition_variable cv;
  int seen = 0;
  net::Transport* self = nullptr;
  auto t = net::Transport::Start("tcp://127.0.0.1:0", [&](net::Frame frame) {
    auto m = net::DecodeMessage(frame);
    if (!m.ok()) std::fprintf(stderr, "transfer_bench: %s\n", m.status().message().c_str());
    net::Message ack;
    ack.kind = net::MessageKind::kHeartbeatAck;
    ack.reply_to = self->address();
    if (m.ok()) self->Send(m->reply_to, *net::EncodeMessage(ack));
    std::lock_guard<std::mutex> lock(mu);
    ++seen;
    cv.notify_all();
  });
  if (!t.ok()) std::exit(1);
  self = t->get();
  Announce(fd, self->address());
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return seen >= count; });
  lock.unlock();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the last ack leaves
}

double TfgSeconds(size_t bytes, int count) {
  auto [pid, address] = Spawn([&](int fd) { ServeTfg(fd, count); });
  std::mutex mu;
  std::condition_variable cv;
  int acked = 0;
  auto t = net::Transport::Start("tcp://127.0.0.1:0", [&](net::Frame) {
    std::lock_guard<std::mutex> lock(mu);
    ++acked;
    cv.notify_all();
  });
  if (!t.ok()) std::exit(1);
  Tensor value(HostAllocator(), DType::kF32, TensorShape({static_cast<int64_t>(bytes / 4)}));
  std::memset(value.data<float>(), 0, bytes);
  net::Message m;
  m.kind = net::MessageKind::kTensor;
  m.reply_to = (*t)->address();
  m.tensor.tensor_name = "w:0";
  m.tensor.value = value;
  // A first message opens the connection outside the timed part.
  (*t)->Send(address, *net::EncodeMessage(m));
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return acked >= 1; });
  }
  const auto start = Clock::now();
  for (int i = 1; i < count; ++i) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return i - acked < kWindow; });
    }
    (*t)->Send(address, *net::EncodeMessage(m));
  }
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return acked >= count; });
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  lock.unlock();
  waitpid(pid, nullptr, 0);
  return seconds;
}

// ------------------------------------------------------------ bare path

void ServeBare(int fd, int count) {
  void* ctx = zmq_ctx_new();
  void* router = zmq_socket(ctx, ZMQ_ROUTER);
  zmq_bind(router, "tcp://127.0.0.1:*");
  char endpoint[256] = {};
  size_t size = sizeof(endpoint);
  zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, endpoint, &size);
  Announce(fd, endpoint);
  for (int i = 0; i < count; ++i) {
    zmq_msg_t id, payload;
    zmq_msg_init(&id);
    zmq_msg_init(&payload);
    zmq_msg_recv(&id, router, 0);
    zmq_msg_recv(&payload, router, 0);
    zmq_msg_send(&id, router, ZMQ_SNDMORE);
    zmq_send(router, "a", 1, 0);
    zmq_msg_close(&payload);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  zmq_close(router);
  zmq_ctx_term(ctx);
}

double BareSeconds(size_t bytes, int count) {
  auto [pid, address] = Spawn([&](int fd) { ServeBare(fd, count); });
  void* ctx = zmq_ctx_new();
  void* dealer = zmq_socket(ctx, ZMQ_DEALER);
  zmq_connect(dealer, address.c_str());
  std::string payload(bytes, '\0');
  char ack[8];
  zmq_send(dealer, payload.data(), payload.size(), 0);
  zmq_recv(dealer, ack, sizeof(ack), 0);
  const auto start = Clock::now();
  int acked = 1;
  for (int i = 1; i < count; ++i) {
    while (i - acked >= kWindow) {
      zmq_recv(dealer, ack, sizeof(ack), 0);
      ++acked;
    }
    zmq_send(dealer, payload.data(), payload.size(), 0);
  }
  while (acked < count) {
    zmq_recv(dealer, ack, sizeof(ack), 0);
    ++acked;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  int linger = 0;
  zmq_setsockopt(dealer, ZMQ_LINGER, &linger, sizeof(linger));
  zmq_close(dealer);
  zmq_ctx_term(ctx);
  waitpid(pid, nullptr, 0);
  return seconds;
}

}  // namespace
}  // namespace tfg

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  struct Size {
    const char* name;
    size_t bytes;
    int count;
  };
  const Size sizes[] = {{"1 KB", 1024, quick ? 2000 : 20000},
                        {"1 MB", 1 << 20, quick ? 40 : 300},
                        {"64 MB", 64 << 20, quick ? 4 : 12}};
  for (const Size& s : sizes) {
    // Best of 3 each, alternating, since the machine is shared.
    double tfg_s = 1e9, bare_s = 1e9;
    for (int rep = 0; rep < 3; ++rep) {
      tfg_s = std::min(tfg_s, tfg::TfgSeconds(s.bytes, s.count));
      bare_s = std::min(bare_s, tfg::BareSeconds(s.bytes, s.count));
    }
    const double moved = static_cast<double>(s.bytes) * (s.count - 1);
    std::printf("%-6s tfg transfer %7.3f GB/s   bare zeromq %7.3f GB/s   tfg/bare = %3.0f%%\n", s.name,
                moved / tfg_s / 1e9, moved / bare_s / 1e9, 100.0 * bare_s / tfg_s);
    std::fflush(stdout);
  }
  return 0;
}
