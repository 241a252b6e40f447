#include "interp/distributed/cluster.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <sstream>

#include "interp/distributed/liveness.h"
#include "net/curve.h"
#include "net/exposure.h"
#include "net/graph_codec.h"
#include "ops/core/cancellation.h"
#include "interp/runtime/device_set.h"
#include "interp/runtime/session.h"

namespace tfg {
namespace {

using net::Message;
using net::MessageKind;

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

bool ValidJobName(const std::string& job) {
  if (job.empty()) return false;
  for (char c : job) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return job != "localhost";
}

}  // namespace

Status AddClusterJob(ClusterSpec& spec, const std::string& job, const std::vector<std::string>& addresses) {
  if (!ValidJobName(job)) {
    return InvalidArgument("'{}' is not a job name: letters, digits, _ and - (and not 'localhost', the master's own)",
                           job);
  }
  if (addresses.empty()) return InvalidArgument("job '{}' has no tasks", job);
  for (const ClusterTask& t : spec) {
    if (t.name.rfind("/job:" + job + "/", 0) == 0) return InvalidArgument("job '{}' is named twice", job);
  }
  for (size_t i = 0; i < addresses.size(); ++i) {
    auto address = net::NormalizeAddress(addresses[i]);
    if (!address.ok()) return Status(address.status()).Prepend("job '" + job + "': ");
    if (address->find('*') != std::string::npos) return InvalidArgument("job '{}': task {} needs a port", job, i);
    spec.push_back({fmt::format("/job:{}/replica:0/task:{}", job, i), *address});
  }
  return Status::OK();
}

Result<ClusterSpec> ParseClusterFlag(const std::string& text) {
  ClusterSpec spec;
  for (const std::string& job : Split(text, ',')) {
    const size_t eq = job.find('=');
    if (eq == std::string::npos) {
      return InvalidArgument("--cluster expects JOB=ADDR;ADDR,JOB=ADDR (e.g. ps=tcp://127.0.0.1:7001), found '{}'", job);
    }
    TFG_RETURN_IF_ERROR(AddClusterJob(spec, job.substr(0, eq), Split(job.substr(eq + 1), ';')));
  }
  if (spec.empty()) return InvalidArgument("--cluster names no task");
  return spec;
}

ClusterClient::ClusterClient(ClusterSpec spec, ClusterOptions options)
    : spec_(std::move(spec)), options_(std::move(options)), last_heard_(spec_.size(), 0), dead_(spec_.size()) {
  std::random_device rd;
  session_id_ = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(SteadyNanos());
  if (session_id_ == 0) session_id_ = 1;
  for (size_t i = 0; i < spec_.size(); ++i) task_by_name_[spec_[i].name] = static_cast<int>(i);
  runs_ = std::make_unique<net::RunRendezvousTable>(
      options_.local_task, [this](const std::string& task, const net::TensorTransfer& t) { return Push(task, t); });
}

Result<std::shared_ptr<ClusterClient>> ClusterClient::Connect(ClusterSpec spec, ClusterOptions options) {
  std::shared_ptr<ClusterClient> c(new ClusterClient(std::move(spec), std::move(options)));
  ClusterClient* raw = c.get();
  auto on_message = [raw](net::Received& r) { raw->OnMessage(r); };
  TFG_ASSIGN_OR_RETURN(c->transport_, net::Transport::Start(c->options_.listen, on_message));
  const std::string warning =
      net::ExposureWarning(c->transport_->address(), net::GetNetSettings().curve, net::Listener::kMaster);
  if (!warning.empty()) net::LogNet(warning);
  c->runs_->set_compress(net::GetNetSettings().compress_transfers);
  c->transport_->SetStalledConnectionSeconds(StalledConnectionSeconds(c->options_.heartbeat_seconds));
  c->transport_->OnRefusal(
      [raw](const std::string& to, const std::string& problem) { raw->FailRefusedTask(to, problem); });
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < c->spec_.size(); ++i) {
    ids.push_back(c->SendRequest(static_cast<int>(i), c->HelloFor(static_cast<int>(i))));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    auto reply = c->Wait(ids[i], c->options_.connect_timeout_seconds);
    const ClusterTask& t = c->spec_[i];
    if (!reply.ok() && reply.status().code() == Code::kDeadlineExceeded) {
      const std::string problem = c->transport_->PeerProblem(t.address);
      if (!problem.empty()) return Error(Code::kUnavailable, "task {} at {} {}", t.name, t.address, problem);
      return Error(Code::kUnavailable, "task {} unreachable at {} after {:g} s", t.name, t.address,
                   c->options_.connect_timeout_seconds);
    }
    if (!reply.ok()) return reply.status();
    Status s = net::FromWire(reply->status);
    if (!s.ok()) return s.Prepend("task " + t.name + " refused the session: ");
  }
  c->heartbeat_ = std::thread([raw] { raw->HeartbeatLoop(); });
  return c;
}

Message ClusterClient::HelloFor(int task) const {
  Message hello;
  hello.kind = MessageKind::kHello;
  hello.hello.registry_hash = net::OpRegistryHash();
  hello.hello.heartbeat_seconds = options_.heartbeat_seconds;
  hello.hello.compress_transfers = net::GetNetSettings().compress_transfers;
  hello.hello.cluster.emplace_back(options_.local_task, transport_->address());
  for (const ClusterTask& t : spec_) hello.hello.cluster.emplace_back(t.name, t.address);
  hello.hello.task = spec_[task].name;
  return hello;
}

ClusterClient::~ClusterClient() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
  for (size_t i = 0; i < spec_.size(); ++i) {
    Message m;
    m.kind = MessageKind::kCloseSession;
    Post(static_cast<int>(i), std::move(m));
  }
  transport_.reset();  // sends the goodbyes before it stops
}

void ClusterClient::Post(int task, Message m) {
  m.session_id = session_id_;
  if (m.kind != MessageKind::kTensor) m.reply_to = transport_->address();
  if (Status s = transport_->Send(spec_[task].address, m); !s.ok()) net::LogNet("cannot encode a message: " + s.message());
}

uint64_t ClusterClient::SendRequest(int task, Message m, bool even_if_dead) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_request_++;
    Pending& p = pending_[id];
    p.task = task;
    if (!dead_[task].empty() && !even_if_dead) {
      p.done = true;
      p.failure = Error(Code::kUnavailable, "{}", dead_[task]);
    }
  }
  m.request_id = id;
  Post(task, std::move(m));
  return id;
}

Result<Message> ClusterClient::Wait(uint64_t id, double timeout_seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] { return pending_[id].done; };
  if (timeout_seconds > 0) {
    if (!cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds), ready)) {
      pending_.erase(id);
      return Error(Code::kDeadlineExceeded, "no reply after {:g} s", timeout_seconds);
    }
  } else {
    cv_.wait(lock, ready);
  }
  Pending p = std::move(pending_[id]);
  pending_.erase(id);
  if (!p.failure.ok()) return p.failure;
  if (p.reply.kind == MessageKind::kErrorReply) return net::FromWire(p.reply.status);
  return p.reply;
}

Result<Message> ClusterClient::Call(int task, Message m, double timeout_seconds) {
  return Wait(SendRequest(task, std::move(m)), timeout_seconds);
}

void ClusterClient::OnMessage(net::Received& received) {
  const std::string_view head = received.head;
  Message m;
  if (Status s = net::DecodeMessage(head, std::move(received.attachments), m); !s.ok()) {
    net::LogNet("refused a message of " + std::to_string(head.size()) + " bytes: " + s.message());
    return FailRequest(head, s);
  }
  if (m.session_id != session_id_) return net::LogNet("a message for another session: ignored");
  if (m.kind == MessageKind::kTensor) {
    if (Status s = runs_->Deliver(std::move(m.tensor)); !s.ok()) net::LogNet("refused a tensor: " + s.message());
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  // A task is known by what it answers, not by its address (which it may
  // spell differently): a heartbeat's id is its task's index plus one.
  if (m.kind == MessageKind::kHeartbeatAck) {
    if (m.request_id >= 1 && m.request_id <= spec_.size()) last_heard_[m.request_id - 1] = SteadyNanos();
    return;
  }
  auto it = pending_.find(m.request_id);
  if (it != pending_.end()) last_heard_[it->second.task] = SteadyNanos();
  if (it == pending_.end() || it->second.done) return;  // a late reply to a request given up on
  it->second.done = true;
  it->second.reply = std::move(m);
  cv_.notify_all();
}

// A reply we cannot read still ends the request it answers, with the
// reason, instead of leaving it waiting.
void ClusterClient::FailRequest(std::string_view head, const Status& why) {
  auto header = net::DecodeHeader(head);
  if (!header.ok() || header->session_id != session_id_) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(header->request_id);
  if (it == pending_.end() || it->second.done) return;
  it->second.done = true;
  it->second.failure = Status(Code::kDataLoss, fmt::format("task {} sent a reply that cannot be read: {}",
                                                           spec_[it->second.task].name, why.message()));
  cv_.notify_all();
}

void ClusterClient::FailRefusedTask(const std::string& address, const std::string& problem) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, p] : pending_) {
    if (p.done || p.task < 0 || spec_[p.task].address != address) continue;
    const ClusterTask& t = spec_[p.task];
    p.done = true;
    p.failure = Error(Code::kUnavailable, "task {} at {} {}", t.name, t.address, problem);
  }
  cv_.notify_all();
}

Status ClusterClient::Push(const std::string& task, const net::TensorTransfer& t) {
  auto it = task_by_name_.find(task);
  if (it == task_by_name_.end()) return InvalidArgument("no task {} in the cluster", task);
  Message m;
  m.kind = MessageKind::kTensor;
  m.tensor = t;
  Post(it->second, std::move(m));
  return Status::OK();
}

Result<uint64_t> ClusterClient::Register(int task, const Graph& graph, const std::string& device,
                                         const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                                         const std::vector<Node*>& targets) {
  Message m;
  m.kind = MessageKind::kRegisterGraph;
  net::RegisterGraph& r = m.register_graph;
  r.graph_handle = next_handle_.fetch_add(1);
  r.device = device;
  r.graph = net::EncodeGraph(graph);
  for (const Output& o : feeds) r.feeds.push_back(o.name());
  for (const Output& o : fetches) r.fetches.push_back(o.name());
  for (const Node* n : targets) r.targets.push_back(n->name());
  const uint64_t handle = r.graph_handle;
  TFG_ASSIGN_OR_RETURN(Message reply, Call(task, std::move(m), 0));
  Status s = net::FromWire(reply.status);
  if (!s.ok()) return s.Prepend("registering a partition with task " + spec_[task].name + ": ");
  return handle;
}

// The error a task reports keeps its node's span; the message says where it ran.
Result<std::vector<Tensor>> ClusterClient::RunRemote(int task, uint64_t handle, int64_t run_id, uint64_t seed,
                                                     std::vector<Tensor> feeds, double timeout_seconds,
                                                     CancellationManager* cancel) {
  Message m;
  m.kind = MessageKind::kRunStep;
  m.run_step = net::RunStep{handle, run_id, seed, timeout_seconds, std::move(feeds)};
  const uint64_t id = SendRequest(task, std::move(m));
  CancellationManager::Token token = 0;
  if (cancel != nullptr) {
    token = cancel->Register([this, task, run_id] {
      Message abort;
      abort.kind = MessageKind::kAbortStep;
      abort.abort.run_id = run_id;
      Post(task, std::move(abort));
    });
    if (token == CancellationManager::kAlreadyCancelled) {
      Message abort;
      abort.kind = MessageKind::kAbortStep;
      abort.abort.run_id = run_id;
      Post(task, std::move(abort));
    }
  }
  auto reply = Wait(id, 0);
  if (cancel != nullptr && token != CancellationManager::kAlreadyCancelled) cancel->Deregister(token);
  if (!reply.ok()) return reply.status();
  Status s = net::FromWire(reply->step_done.status);
  if (!s.ok()) {
    if (s.code() == Code::kCancelled) return s;
    MarkDeadIfConnectionBroke(s);
    return Status(s.code(), s.message() + " (on task " + spec_[task].name + ")", s.span());
  }
  return std::move(reply->step_done.fetches);
}

std::vector<int> ClusterClient::DeadTasks() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<int> out;
  for (size_t i = 0; i < dead_.size(); ++i) {
    if (!dead_[i].empty()) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::string ClusterClient::DeadReason(int task) {
  std::lock_guard<std::mutex> lock(mu_);
  return dead_[task];
}

// A Hello every heartbeat interval (at least every 0.2 s): ZeroMQ
// reconnects to the address by itself, and Hellos queued while nobody
// listened arrive together, which the worker takes as one session.
Status ClusterClient::Reconnect(int task, double timeout_seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  const double every = std::max(0.2, options_.heartbeat_seconds);
  // What the old connection holds is moot, and after a partition it may be
  // stalled (to be closed later, with the run's next requests in it).
  transport_->Forget(spec_[task].address);
  while (std::chrono::steady_clock::now() < deadline) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    auto reply = Wait(SendRequest(task, HelloFor(task), /*even_if_dead=*/true), std::min(every, std::max(left, 0.01)));
    if (!reply.ok()) continue;  // no answer yet (or the old process's death)
    Status s = net::FromWire(reply->status);
    if (!s.ok()) return s.Prepend("task " + spec_[task].name + " refused the session: ");
    std::vector<int> live;
    {
      std::lock_guard<std::mutex> lock(mu_);
      dead_[task].clear();
      last_heard_[task] = SteadyNanos();
      for (size_t i = 0; i < spec_.size(); ++i) {
        if (static_cast<int>(i) != task && dead_[i].empty()) live.push_back(static_cast<int>(i));
      }
    }
    // The other tasks' connections to this one may be stalled by the
    // partition it was behind, holding what the rerun will send: a Hello
    // makes each of them replace the session's connections
    // (WorkerService's OnHello) before our next message to it, which
    // follows on the same connection. It wants no answer (request 0), and
    // so opens no session on a task that restarted unnoticed.
    for (int other : live) Post(other, HelloFor(other));
    return Status::OK();
  }
  return Error(Code::kUnavailable, "task {} did not come back at {} within {:g} s", spec_[task].name,
               spec_[task].address, timeout_seconds);
}

// A worker whose connection to another task broke mid-step lost
// tensors: the step cannot be finished, and the task it names is taken as
// dead, so that recovery makes sure it is there and runs the step again.
void ClusterClient::MarkDeadIfConnectionBroke(const Status& step_error) {
  auto it = task_by_name_.find(TaskWhoseConnectionBroke(step_error));
  if (it == task_by_name_.end()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (dead_[it->second].empty()) MarkDead(it->second, step_error.message());
}

void ClusterClient::MarkDead(int task, const std::string& why) {
  // Called with mu_ held.
  dead_[task] = why;
  for (auto& [id, p] : pending_) {
    if (p.task == task && !p.done) {
      p.done = true;
      p.failure = Error(Code::kUnavailable, "{}", why);
    }
  }
  cv_.notify_all();
}

// Every interval: a heartbeat to each live task. The loop also wakes when
// the first live task's silence reaches three intervals, so a task is
// taken as dead at that moment: since its last answer came before the
// network failed, at most three intervals after the failure.
void ClusterClient::HeartbeatLoop() {
  const int64_t interval = static_cast<int64_t>(1e9 * options_.heartbeat_seconds);
  const int64_t limit = 3 * interval;
  std::unique_lock<std::mutex> lock(mu_);
  for (int64_t& t : last_heard_) t = SteadyNanos();
  int64_t next_beat = 0;
  while (!stopping_) {
    int64_t now = SteadyNanos();
    for (size_t i = 0; i < spec_.size(); ++i) {
      if (dead_[i].empty() && now - last_heard_[i] >= limit) {
        std::string why = fmt::format("task {} at {} stopped answering heartbeats (silent for {:g} s)", spec_[i].name,
                                      spec_[i].address, 3 * options_.heartbeat_seconds);
        net::LogNet(why);
        MarkDead(static_cast<int>(i), why);
      }
    }
    if (now >= next_beat) {
      next_beat = now + interval;
      lock.unlock();
      SendHeartbeats();
      lock.lock();
      now = SteadyNanos();
    }
    // Answers only move a deadline later: waking at the earliest one is
    // never late, and at worst early (the loop then waits again).
    int64_t wake = next_beat;
    for (size_t i = 0; i < spec_.size(); ++i) {
      if (dead_[i].empty()) wake = std::min(wake, last_heard_[i] + limit);
    }
    const int64_t wait = std::max<int64_t>(wake - now, 1000000);  // 1 ms: no spinning on a clock tie
    cv_.wait_for(lock, std::chrono::nanoseconds(wait), [this] { return stopping_; });
  }
}

void ClusterClient::SendHeartbeats() {
  for (size_t i = 0; i < spec_.size(); ++i) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!dead_[i].empty()) continue;
    }
    Message m;
    m.kind = MessageKind::kHeartbeat;
    m.request_id = i + 1;
    Post(static_cast<int>(i), std::move(m));
  }
}

Status ConnectSessionToCluster(Session& session, ClusterSpec spec, double heartbeat_seconds, bool connect,
                               const std::string& listen) {
  if (!connect) return session.AttachCluster(spec, nullptr);
  ClusterOptions options;
  options.heartbeat_seconds = heartbeat_seconds;
  if (!listen.empty()) options.listen = listen;
  options.local_task = std::string(net::TaskOf(session.devices().device(0)->name()));
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<ClusterClient> client, ClusterClient::Connect(spec, options));
  return session.AttachCluster(spec, std::move(client));
}

}  // namespace tfg
