// Tensor transfer throughput between two processes (scripts/bench): f32
// tensors of 1 KB, 1 MB and 64 MB pushed as TensorTransfer messages through
// net::Transport (encode, send, receive, decode with every check, a tensor
// that holds the elements), next to bare ZeroMQ moving the same number of
// bytes between a DEALER and a ROUTER in two processes.
//
// Both paths use the same flow control, as a TCP window would: at most
// Window(bytes) messages are sent and not yet acknowledged, and the
// receiver acknowledges every AckEvery(bytes)-th message (and the last)
// with the count it has received. Each side waits only when it must: a
// sender that waited on every acknowledgement would measure a round trip,
// not throughput.
//
// Each line also gives the CPU time per message of each path, both
// processes together: it drifts less than throughput on a shared machine.
// A last line times the codec alone on the 1 KB message, in one thread.
//
// transfer_bench [--quick]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <atomic>
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
#include "tests/bench/best_seconds.h"

namespace tfg {
namespace {

using Clock = std::chrono::steady_clock;

// CPU seconds used so far by this process and its finished children:
// both sides of a path, once its child has been waited for.
double CpuSeconds() {
  rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime) + seconds(children.ru_stime);
}

// 4 MiB and at least 4 messages in flight; an acknowledgement per MiB
// received (a quarter of the window: enough to keep the pipe full, few
// enough that the acknowledgements' own cost, a message the other way in
// both paths, stays out of the figure), and at least one per message.
int Window(size_t bytes) { return static_cast<int>(std::max<size_t>(4, (size_t{4} << 20) / bytes)); }
int AckEvery(size_t bytes) { return static_cast<int>(std::max<size_t>(1, (size_t{1} << 20) / bytes)); }
bool Acks(int received, int count, size_t bytes) { return received % AckEvery(bytes) == 0 || received == count; }

// A child process and a pipe each way, for the addresses the two sides
// listen on.
struct Child {
  pid_t pid = -1;
  int to_child = -1, from_child = -1;
};
// The child's ends: from the parent, to the parent.
struct Pipes {
  int in, out;
};

// Runs serve(Pipes) in a child process.
template <typename F>
Child Spawn(F serve) {
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) std::exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    serve(Pipes{down[0], up[1]});
    _exit(0);
  }
  close(down[0]);
  close(up[1]);
  return Child{pid, down[1], up[0]};
}

// One address through a pipe, which is then closed.
void Tell(int fd, const std::string& address) {
  ssize_t ignored = write(fd, address.data(), address.size());
  (void)ignored;
  close(fd);
}
std::string Hear(int fd) {
  char buf[256] = {};
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  return std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
}

// ------------------------------------------------------------- tfg path

// Decodes each transfer as a worker does (the tensor is dropped after);
// an acknowledgement is a HeartbeatAck whose request id is the count,
// sent to the address the sender gave on the pipe (a transfer carries no
// reply address, as in tfg).
void ServeTfg(Pipes pipes, size_t bytes, int count) {
  const std::string sender = Hear(pipes.in);
  std::mutex mu;
  std::condition_variable cv;
  int seen = 0;  // touched by the I/O thread only, until it reaches count
  bool done = false;
  net::Transport* self = nullptr;
  auto t = net::Transport::Start("tcp://127.0.0.1:0", [&](net::Received& r) {
    net::Message m;
    const Status s = net::DecodeMessage(r.head, std::move(r.attachments), m);
    if (!s.ok()) return (void)std::fprintf(stderr, "transfer_bench: %s\n", s.message().c_str());
    if (!Acks(++seen, count, bytes)) return;
    net::Message ack;
    ack.kind = net::MessageKind::kHeartbeatAck;
    ack.request_id = static_cast<uint64_t>(seen);
    (void)self->Send(sender, ack);
    if (seen < count) return;
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  });
  if (!t.ok()) std::exit(1);
  self = t->get();
  Tell(pipes.out, self->address());
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  lock.unlock();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the last ack leaves
}

// The sender's side: the count acknowledged, and the count the sending
// thread waits for (woken only then, not on every acknowledgement).
struct Credit {
  std::mutex mu;
  std::condition_variable cv;
  // Written under mu; read without it first, so that a sender with credit
  // left checks it as cheaply as the bare path reads its count.
  std::atomic<int> acked{0};
  int wanted = 0;  // guarded by mu

  // Notifies after unlocking, so the woken sender does not block at once
  // on the mutex this thread still holds.
  void Acknowledge(int count) {
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mu);
      acked.store(std::max(acked.load(), count));
      wake = wanted != 0 && acked.load() >= wanted;
    }
    if (wake) cv.notify_all();
  }
  void WaitFor(int count) {
    if (acked.load(std::memory_order_acquire) >= count) return;
    std::unique_lock<std::mutex> lock(mu);
    wanted = count;
    cv.wait(lock, [&] { return acked.load() >= count; });
    wanted = 0;
  }
};

double TfgSeconds(size_t bytes, int count) {
  const Child child = Spawn([&](Pipes pipes) { ServeTfg(pipes, bytes, count); });
  Credit credit;
  auto t = net::Transport::Start("tcp://127.0.0.1:0", [&](net::Received& r) {
    auto m = net::DecodeHeader(r.head);
    if (m.ok()) credit.Acknowledge(static_cast<int>(m->request_id));
  });
  if (!t.ok()) std::exit(1);
  Tell(child.to_child, (*t)->address());
  const std::string address = Hear(child.from_child);
  Tensor value(HostAllocator(), DType::kF32, TensorShape({static_cast<int64_t>(bytes / 4)}));
  std::memset(value.data<float>(), 0, bytes);
  net::Message m;
  m.kind = net::MessageKind::kTensor;
  m.tensor.tensor_name = "w:0";
  m.tensor.value = value;
  const int window = Window(bytes);
  const auto start = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (i >= window) credit.WaitFor(i - window + 1);
    (void)(*t)->Send(address, m);
  }
  credit.WaitFor(count);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  waitpid(child.pid, nullptr, 0);
  return seconds;
}

// ------------------------------------------------------------ bare path

// The high-water marks tfg's sockets have (net/transport.cc): with
// ZeroMQ's default of 1000, a ROUTER drops acknowledgements.
void SetHighWaterMarks(void* socket) {
  int hwm = 100000;
  zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof(hwm));
  zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, sizeof(hwm));
}

void ServeBare(Pipes pipes, size_t bytes, int count) {
  close(pipes.in);
  void* ctx = zmq_ctx_new();
  void* router = zmq_socket(ctx, ZMQ_ROUTER);
  SetHighWaterMarks(router);
  zmq_bind(router, "tcp://127.0.0.1:*");
  char endpoint[256] = {};
  size_t size = sizeof(endpoint);
  zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, endpoint, &size);
  Tell(pipes.out, endpoint);
  for (int seen = 1; seen <= count; ++seen) {
    zmq_msg_t id, payload;
    zmq_msg_init(&id);
    zmq_msg_init(&payload);
    zmq_msg_recv(&id, router, 0);
    zmq_msg_recv(&payload, router, 0);
    zmq_msg_close(&payload);
    if (Acks(seen, count, bytes)) {
      zmq_msg_send(&id, router, ZMQ_SNDMORE);
      zmq_send(router, &seen, sizeof(seen), 0);
    } else {
      zmq_msg_close(&id);
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  zmq_close(router);
  zmq_ctx_term(ctx);
}

double BareSeconds(size_t bytes, int count) {
  const Child child = Spawn([&](Pipes pipes) { ServeBare(pipes, bytes, count); });
  close(child.to_child);
  const std::string address = Hear(child.from_child);
  void* ctx = zmq_ctx_new();
  void* dealer = zmq_socket(ctx, ZMQ_DEALER);
  SetHighWaterMarks(dealer);
  zmq_connect(dealer, address.c_str());
  std::string payload(bytes, '\0');
  int acked = 0;
  auto wait_for = [&](int n) {
    while (acked < n) zmq_recv(dealer, &acked, sizeof(acked), 0);
  };
  const int window = Window(bytes);
  const auto start = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (i >= window) wait_for(i - window + 1);
    zmq_send(dealer, payload.data(), payload.size(), 0);
  }
  wait_for(count);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  int linger = 0;
  zmq_setsockopt(dealer, ZMQ_LINGER, &linger, sizeof(linger));
  zmq_close(dealer);
  zmq_ctx_term(ctx);
  waitpid(child.pid, nullptr, 0);
  return seconds;
}

// ---------------------------------------------------------------- codec

// Nanoseconds per call of fn(), best of 3 batches of `n` calls.
template <typename F>
double BestNanos(int n, F fn) {
  return BestSeconds(3, [&] {
           for (int i = 0; i < n; ++i) fn();
         }) * 1e9 / n;
}

// What the codec costs for the 1 KB transfer above, in one thread, next to
// copying the message's bytes once (the least a receiver does with them).
void CodecLine(bool quick) {
  Tensor value(HostAllocator(), DType::kF32, TensorShape({256}));
  std::memset(value.data<float>(), 0, value.bytes());
  net::Message m;
  m.kind = net::MessageKind::kTensor;
  m.tensor.tensor_name = "w:0";
  m.tensor.value = value;
  const std::string head = net::EncodeMessage(m)->head;
  const int n = quick ? 10000 : 1000000;
  std::string buffer;
  std::vector<Tensor> attachments;
  const double encode = BestNanos(n, [&] {
    attachments.clear();
    if (!net::EncodeMessage(m, buffer, attachments).ok()) std::exit(1);
  });
  const double decode = BestNanos(n, [&] {
    net::Message got;
    if (!net::DecodeMessage(head, {}, got).ok()) std::exit(1);
  });
  std::string copy(head.size(), '\0');
  const double copied = BestNanos(n, [&] {
    std::memcpy(copy.data(), head.data(), head.size());
    asm volatile("" : : "r"(copy.data()) : "memory");  // the copy is not optimized away
  });
  std::printf("codec  1 KB transfer of %zu bytes: encode %.0f ns, decode %.0f ns   (one copy of its bytes: %.0f ns)\n",
              head.size(), encode, decode, copied);
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
  const Size sizes[] = {{"1 KB", 1024, quick ? 5000 : 300000},
                        {"1 MB", 1 << 20, quick ? 40 : 300},
                        {"64 MB", 64 << 20, quick ? 4 : 12}};
  for (const Size& s : sizes) {
    // Best of 3 each, alternating, since the machine is shared. CPU time
    // (both processes, all 3 runs) drifts less than throughput does.
    constexpr int kRuns = 3;
    double tfg_s = 1e9, bare_s = 1e9, tfg_cpu = 0, bare_cpu = 0;
    for (int rep = 0; rep < kRuns; ++rep) {
      const double c0 = tfg::CpuSeconds();
      tfg_s = std::min(tfg_s, tfg::TfgSeconds(s.bytes, s.count));
      const double c1 = tfg::CpuSeconds();
      bare_s = std::min(bare_s, tfg::BareSeconds(s.bytes, s.count));
      tfg_cpu += c1 - c0;
      bare_cpu += tfg::CpuSeconds() - c1;
    }
    const double moved = static_cast<double>(s.bytes) * s.count;
    const double per_message = 1e6 / (static_cast<double>(s.count) * kRuns);
    std::printf("%-6s tfg transfer %7.3f GB/s   bare zeromq %7.3f GB/s   tfg/bare = %3.0f%%   "
                "CPU per message: tfg %.2f us, bare %.2f us\n",
                s.name, moved / tfg_s / 1e9, moved / bare_s / 1e9, 100.0 * bare_s / tfg_s, tfg_cpu * per_message,
                bare_cpu * per_message);
    std::fflush(stdout);
  }
  tfg::CodecLine(quick);
  return 0;
}
