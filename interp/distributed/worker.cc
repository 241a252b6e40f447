#include "interp/distributed/worker.h"
#include "interp/distributed/worker_impl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "devices/cpu/cpu_device.h"
#include "interp/distributed/liveness.h"
#include "interp/distributed/registered_graph.h"
#include "interp/runtime/executor.h"
#include "interp/runtime/plan.h"
#include "interp/runtime/thread_pool.h"
#include "net/graph_codec.h"
#include "net/refusal_log.h"
#include "net/remote_rendezvous.h"
#include "net/transport.h"
#include "ops/core/cancellation.h"

namespace tfg {

using worker_internal::Clock;
using worker_internal::Now;
using net::Message;
using net::MessageKind;


void WorkerService::Impl::Reply(const std::string& to, Message m) {
  m.reply_to = transport->address();
  if (Status s = transport->Send(to, m); !s.ok()) net::LogNet("cannot encode a reply: " + s.message());
}

// A refusal keeps nothing: no session, and no socket of its own to `to`
// (net::Transport::SendToStranger).
void WorkerService::Impl::ReplyToStranger(const std::string& to, Message m) {
  m.reply_to = transport->address();
  if (!transport->SendToStranger(to, m)) {
    net::LogRefusal("an answer to a stranger over the rate",
                    fmt::format("did not answer {}: more refusals to answer than {} a second", to,
                                net::TransportLimits().stranger_replies_per_second));
  }
}

std::shared_ptr<WorkerSession> WorkerService::Impl::Find(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = sessions.find(id);
  return it == sessions.end() ? nullptr : it->second;
}

// Refused frames are logged; the sender gets an error reply only when it
// names a session we know, or says Hello (so a stranger cannot make us
// connect anywhere a Hello of our own version could not).
void WorkerService::Impl::OnMessage(net::Received& received) {
  const std::string_view head = received.head;
  Message m;
  const Status decoded = net::DecodeMessage(head, std::move(received.attachments), m);
  if (decoded.ok()) return Dispatch(std::move(m));
  net::LogRefusal(net::MalformedMessageKind(decoded.message()),
                  "refused a message of " + std::to_string(head.size()) + " bytes: " + decoded.message());
  auto header = net::DecodeHeader(head);
  if (!header.ok()) return;
  if (header->version != net::kProtocolVersion) return OnHelloOfOtherVersion(*header);
  auto s = Find(header->session_id);
  if (s == nullptr) return;
  Message reply;
  reply.kind = MessageKind::kErrorReply;
  reply.request_id = header->request_id;
  reply.session_id = header->session_id;
  reply.status = net::ToWire(decoded);
  Reply(s->master, std::move(reply));
}

void WorkerService::Impl::Dispatch(Message&& m) {
  if (m.kind == MessageKind::kHello) return OnHello(m);
  std::shared_ptr<WorkerSession> s = Find(m.session_id);
  if (s == nullptr) {
    if (m.kind != MessageKind::kTensor && m.kind != MessageKind::kCloseSession) {
      net::LogRefusal("a message for an unknown session",
                      std::string("a ") + net::MessageKindName(m.kind) + " for an unknown session: ignored");
    }
    return;
  }
  s->last_heard.store(Now());
  // A reply is made only where one is sent: a Message is large, and
  // transfers, which come by the thousand, are never answered.
  auto reply_of_kind = [&m](MessageKind kind) {
    Message reply;
    reply.kind = kind;
    reply.request_id = m.request_id;
    reply.session_id = m.session_id;
    return reply;
  };
  switch (m.kind) {
    case MessageKind::kRegisterGraph: {
      Message reply = reply_of_kind(MessageKind::kRegisterReply);
      reply.status = net::ToWire(OnRegister(*s, m.register_graph));
      return Reply(s->master, std::move(reply));
    }
    case MessageKind::kRunStep: return OnRunStep(std::move(s), std::move(m));
    case MessageKind::kTensor:
      if (Status st = s->runs.Deliver(std::move(m.tensor)); !st.ok()) {
        net::LogRefusal("a tensor", "refused a tensor: " + st.message());
      }
      return;
    case MessageKind::kAbortStep: {
      std::shared_ptr<CancellationManager> cm;
      {
        std::lock_guard<std::mutex> lock(s->mu);
        auto it = s->active.find(m.abort.run_id);
        if (it != s->active.end()) cm = it->second;
      }
      if (cm) cm->StartCancel();
      return;
    }
    case MessageKind::kHeartbeat: return Reply(s->master, reply_of_kind(MessageKind::kHeartbeatAck));
    case MessageKind::kCloseSession: return Drop(m.session_id, "the master closed it");
    default:
      net::LogNet(std::string("unexpected ") + net::MessageKindName(m.kind) + " message: ignored");
  }
}

// Answered in our version with a WrongVersion, which every stable version
// reads: the master can then say why instead of timing out.
void WorkerService::Impl::OnHelloOfOtherVersion(const Message& envelope) {
  if (envelope.kind != MessageKind::kHello) return;
  auto master = net::NormalizeAddress(envelope.reply_to);
  if (!master.ok()) {
    return net::LogRefusal("a Hello with a bad reply address",
                           "a Hello with a bad reply address: " + master.status().message());
  }
  Message reply;
  reply.kind = MessageKind::kWrongVersion;
  reply.request_id = envelope.request_id;
  reply.session_id = envelope.session_id;
  reply.status.message = fmt::format(
      "the worker at {} speaks tfg protocol version {}, the master {}: start every task from the same tfg build",
      transport->address(), net::kProtocolVersion, envelope.version);
  ReplyToStranger(*master, std::move(reply));
}

void WorkerService::Impl::OnHello(const Message& m) {
  Message reply;
  reply.kind = MessageKind::kHelloReply;
  reply.request_id = m.request_id;
  reply.session_id = m.session_id;
  reply.registry_hash = net::OpRegistryHash();
  auto master = net::NormalizeAddress(m.reply_to);
  if (!master.ok()) {
    return net::LogRefusal("a Hello with a bad reply address",
                           "a Hello with a bad reply address: " + master.status().message());
  }
  if (Status admitted = AdmitSession(m, *master); !admitted.ok()) {
    reply.status = net::ToWire(admitted);
    return ReplyToStranger(*master, std::move(reply));
  }
  const uint64_t id = m.session_id;
  auto s = std::make_shared<WorkerSession>(id, m.hello.task, *master,
                                           [this, id](const std::string& task, const net::TensorTransfer& t) {
                                             std::shared_ptr<WorkerSession> session = Find(id);
                                             if (!session) return Error(Code::kCancelled, "the session has ended");
                                             return Push(session.get(), task, t);
                                           });
  for (const auto& [task, address] : m.hello.cluster) s->addresses[task] = address;
  s->runs.set_compress(m.hello.compress_transfers);
  s->last_heard.store(Now());
  if (std::isfinite(m.hello.heartbeat_seconds)) s->heartbeat_seconds = std::clamp(m.hello.heartbeat_seconds, 0.01, 3600.0);
  transport->SetStalledConnectionSeconds(StalledConnectionSeconds(s->heartbeat_seconds));
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto existing = sessions.find(m.session_id);
    known = existing != sessions.end();
    // A Hello for a session we serve is the master recovering it: a task
    // of it came back after a partition or a restart, and our connections
    // to the master and to the session's tasks may be stalled (to be
    // closed later, with the replies and tensors to come) or lead to a
    // process that is gone. Fresh ones carry what comes next; the
    // master's next messages follow this Hello on its connection, so
    // nothing of the recovered run goes into the old ones.
    if (known) ForgetUnusedPeers(*existing->second);
    // A Hello that wants no answer (request 0) is only that refresh,
    // sent to the tasks the master believes live: a process restarted in
    // their place must not take it as a new session, or it would answer
    // heartbeats without the old one's state; its silence tells the master.
    if (!known && m.request_id == 0) {
      return net::LogNet("a Hello refreshing session " + std::to_string(m.session_id) +
                         ", which this worker does not serve: ignored");
    }
    if (!known) {
      if (sessions.size() >= static_cast<size_t>(std::max(options.max_sessions, 1))) {
        // AdmitSession found room, and another Hello took it since.
        reply.status = net::ToWire(Error(Code::kResourceExhausted, "the worker at {} serves {} masters already",
                                         transport->address(), sessions.size()));
        return ReplyToStranger(*master, std::move(reply));
      }
      sessions[m.session_id] = s;
    }
  }
  net::LogNet("session " + std::to_string(m.session_id) + " from " + *master + " as " + m.hello.task);
  Reply(*master, std::move(reply));
}

// A Hello is refused, and logged, when its master has other ops than ours,
// or this worker serves as many masters as it may (a Hello for a session
// it has is answered again).
Status WorkerService::Impl::AdmitSession(const Message& m, const std::string& master) {
  const uint64_t ours = net::OpRegistryHash();
  if (m.hello.registry_hash != ours) {
    net::LogRefusal("a Hello of other ops", fmt::format("refused a Hello from {}: op registry hash {:x}, ours {:x}",
                                                        master, m.hello.registry_hash, ours));
    return Error(Code::kFailedPrecondition,
                 "the worker at {} was built with other ops than the master (op registry hash {:x} vs {:x}): run "
                 "the same tfg build everywhere",
                 transport->address(), ours, m.hello.registry_hash);
  }
  std::lock_guard<std::mutex> lock(mu);
  const size_t limit = static_cast<size_t>(std::max(options.max_sessions, 1));
  if (sessions.size() < limit || sessions.count(m.session_id) != 0) return Status::OK();
  net::LogRefusal("a Hello over the session cap",
                  fmt::format("refused a Hello from {}: {} masters are served already (the limit)", master,
                              sessions.size()));
  return Error(Code::kResourceExhausted,
               "the worker at {} serves {} masters already, its limit: try again when one of them has ended",
               transport->address(), sessions.size());
}

Status WorkerService::Impl::Push(WorkerSession* s, const std::string& task, const net::TensorTransfer& t) {
  auto it = s->addresses.find(task);
  if (it == s->addresses.end()) return InvalidArgument("no task {} in the cluster", task);
  Message m;
  m.kind = MessageKind::kTensor;
  m.session_id = s->id;
  m.tensor = t;
  return transport->Send(it->second, m);
}

// The partition's graph is rebuilt (and so validated) and its plan built
// on this process's CPU device, once; steps then only name its handle.
Status WorkerService::Impl::OnRegister(WorkerSession& s, const net::RegisterGraph& r) {
  TFG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, net::DecodeGraph(r.graph));
  std::vector<Output> feeds, fetches;
  std::vector<Node*> targets;
  for (const std::string& f : r.feeds) {
    TFG_ASSIGN_OR_RETURN(Output o, net::FindOutput(*graph, f));
    feeds.push_back(o);
  }
  for (const std::string& f : r.fetches) {
    TFG_ASSIGN_OR_RETURN(Output o, net::FindOutput(*graph, f));
    fetches.push_back(o);
  }
  for (const std::string& t : r.targets) {
    Node* n = graph->FindNode(t);
    if (n == nullptr) return NotFound("no node '{}' in the registered graph", t);
    targets.push_back(n);
  }
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, BuildPlan(*graph, feeds, fetches, targets, &device));
  plan->graph = std::shared_ptr<const Graph>(std::move(graph));
  std::lock_guard<std::mutex> lock(s.mu);
  const size_t limit = static_cast<size_t>(std::max(options.max_partitions_per_session, 1));
  if (s.graphs.size() >= limit && s.graphs.count(r.graph_handle) == 0) {
    net::LogRefusal("a partition over the cap", fmt::format("refused a partition from {}: {} are registered already "
                                                            "(the limit)",
                                                            s.master, s.graphs.size()));
    return Error(Code::kResourceExhausted, "{} partitions of this master are registered on {} already, its limit",
                 s.graphs.size(), s.task);
  }
  s.graphs[r.graph_handle] = RegisteredGraph{std::move(plan), std::move(feeds)};
  return Status::OK();
}

// Each step gets a thread of its own (RunStep blocks until the step ends);
// a master asking for more at once than kMaxRunningSteps is refused.
constexpr int kMaxRunningSteps = 256;

// The step is made known to AbortStep here, on the thread that receives
// messages in order, not in the step's own thread: an AbortStep sent right
// after the RunStep (another task's part failed at once) must find it.
void WorkerService::Impl::OnRunStep(std::shared_ptr<WorkerSession> s, Message m) {
  {
    std::lock_guard<std::mutex> lock(steps_mu);
    if (running_steps >= kMaxRunningSteps) {
      return ReplyStepDone(*s, m, Error(Code::kResourceExhausted, "{} steps are running on {} already",
                                        running_steps, s->task));
    }
    ++running_steps;
  }
  auto cancel = std::make_shared<CancellationManager>();
  bool fresh;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    fresh = s->active.emplace(m.run_step.run_id, cancel).second;
    if (fresh) s->started[m.run_step.run_id] = Now();
  }
  if (!fresh) {
    ReplyStepDone(*s, m, InvalidArgument("run {} is running already", m.run_step.run_id));
    return StepEnded();
  }
  std::thread([this, s = std::move(s), m = std::move(m), cancel] {
    RunOneStep(s, m, cancel);
    StepEnded();
  }).detach();
}

void WorkerService::Impl::StepEnded() {
  std::lock_guard<std::mutex> lock(steps_mu);
  --running_steps;
  steps_cv.notify_all();
}

// The step itself: the registered plan with the run's feeds, a step
// rendezvous keyed by the master's run id, and `cancel` for AbortStep.
Result<std::vector<Tensor>> WorkerService::Impl::ExecuteStep(WorkerSession& s, const net::RunStep& r,
                                                            const std::shared_ptr<CancellationManager>& cancel) {
  RegisteredGraph g;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.graphs.find(r.graph_handle);
    if (it == s.graphs.end()) return NotFound("no graph {} registered on {}", r.graph_handle, s.task);
    g = it->second;
  }
  TFG_RETURN_IF_ERROR(CheckFeeds(g, r.feeds));
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<net::NetRendezvous> rendezvous, s.runs.Open(r.run_id));
  StepInfo info{next_step_id.fetch_add(1), r.seed};
  TFG_RETURN_IF_ERROR(RegisterStepRendezvous(&s.resources, info.step_id,
                                             std::make_shared<StepRendezvous>(rendezvous, r.run_id)));
  ExecutorEnv env{&pool, &s.resources, &s.live_steps, false, nullptr, nullptr, 0, &async_done};
  auto out = RunStep(g.plan, r.feeds, env, info, r.timeout_seconds, cancel.get());
  if (!out.ok()) rendezvous->StartAbort(Error(Code::kCancelled, "the run was cancelled"));
  return out;
}

void WorkerService::Impl::RunOneStep(const std::shared_ptr<WorkerSession>& s, const Message& m,
                                     const std::shared_ptr<CancellationManager>& cancel) {
  const net::RunStep& r = m.run_step;
  // Aborted before it began: nothing to run, and a _recv would wait for a
  // tensor its failed sender never sends.
  Result<std::vector<Tensor>> result = cancel->IsCancelled()
                                           ? Result<std::vector<Tensor>>(Error(Code::kCancelled, "the run was cancelled"))
                                           : ExecuteStep(*s, r, cancel);
  {
    std::lock_guard<std::mutex> lock(s->mu);
    auto it = s->active.find(r.run_id);
    if (it != s->active.end() && it->second == cancel) {
      s->active.erase(it);
      s->started.erase(r.run_id);
    }
  }
  s->runs.Close(r.run_id);
  ReplyStepDone(*s, m, std::move(result));
}

void WorkerService::Impl::ReplyStepDone(const WorkerSession& s, const Message& m, Result<std::vector<Tensor>> result) {
  // A dropped session's master has gone or stopped listening: a reply
  // would only open a socket to it again.
  if (Find(s.id).get() != &s) return;
  Message reply;
  reply.kind = MessageKind::kStepDone;
  reply.request_id = m.request_id;
  reply.session_id = m.session_id;
  reply.step_done.run_id = m.run_step.run_id;
  if (result.ok()) {
    reply.step_done.fetches = std::move(*result);
  } else {
    const Status& st = result.status();
    if (st.code() != Code::kCancelled) {
      net::LogNet("step of run " + std::to_string(m.run_step.run_id) + " failed on " + s.task + ":\n" +
                  FormatDiagnostic(st));
    }
    reply.step_done.status = net::ToWire(st);
  }
  Reply(s.master, std::move(reply));
}

void WorkerService::Impl::Drop(uint64_t id, const std::string& why) {
  std::shared_ptr<WorkerSession> s;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = sessions.find(id);
    if (it == sessions.end()) return;
    s = it->second;
    sessions.erase(it);
    ForgetUnusedPeers(*s);
  }
  std::vector<std::shared_ptr<CancellationManager>> active;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    for (auto& [run, cm] : s->active) active.push_back(cm);
  }
  for (auto& cm : active) cm->StartCancel();
  s->runs.AbortAll(Error(Code::kCancelled, "the session ended"));
  net::LogNet("session " + std::to_string(id) + " (" + s->task + ") dropped with its state: " + why);
  // Steps still running hold the session; its resources go with the last.
}

// The sockets to a session's master and tasks close, unless another
// session uses them: a worker that serves master after master keeps no
// socket to any of the ones gone, and a recovered session's steps get new
// connections. Under `mu`, so that a session being admitted cannot start
// to use one in between.
void WorkerService::Impl::ForgetUnusedPeers(const WorkerSession& dropped) {
  std::vector<std::string> gone = {dropped.master};
  for (const auto& [task, address] : dropped.addresses) gone.push_back(address);
  for (const std::string& address : gone) {
    bool used = false;
    for (const auto& [id, s] : sessions) {
      if (id == dropped.id) continue;
      used = used || s->master == address;
      for (const auto& [task, other] : s->addresses) used = used || other == address;
    }
    if (!used) transport->Forget(address);
  }
}

void WorkerService::Impl::ReapSilent() {
  const auto limit = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options.master_timeout_seconds)).count();
  std::vector<uint64_t> silent;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& [id, s] : sessions) {
      if (Now() - s->last_heard.load() > limit) silent.push_back(id);
    }
  }
  for (uint64_t id : silent) {
    Drop(id, fmt::format("no word from its master for {} s", options.master_timeout_seconds));
  }
}

Result<std::unique_ptr<WorkerService>> WorkerService::Start(const WorkerOptions& options) {
  std::unique_ptr<WorkerService> w(new WorkerService());
  w->impl_ = std::make_unique<Impl>(options);
  Impl* impl = w->impl_.get();
  auto on_message = [impl](net::Received& r) { impl->OnMessage(r); };
  TFG_ASSIGN_OR_RETURN(impl->transport, net::Transport::Start(options.listen, on_message));
  impl->transport->OnPeerLost([impl](const std::string& to) {
    std::lock_guard<std::mutex> lock(impl->lost_mu);
    impl->lost_peers.emplace_back(to, Now());
  });
  return w;
}

WorkerService::~WorkerService() {
  if (!impl_) return;
  std::vector<uint64_t> ids;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    for (const auto& [id, s] : impl_->sessions) ids.push_back(id);
  }
  for (uint64_t id : ids) impl_->Drop(id, "the worker is stopping");
  std::unique_lock<std::mutex> lock(impl_->steps_mu);
  impl_->steps_cv.wait(lock, [this] { return impl_->running_steps == 0; });
  lock.unlock();
  impl_->transport.reset();
}

const std::string& WorkerService::address() const { return impl_->transport->address(); }

void WorkerService::Serve(const std::atomic<bool>& stop) {
  while (!stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    impl_->ReapSilent();
    impl_->FailStepsBehindUnreachablePeers();
    impl_->FailStepsThatLostTensors();
  }
}

}  // namespace tfg
