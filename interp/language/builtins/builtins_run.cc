// run(): fetch structures, feeds, check-only mode and the leak warning.
#include <map>
#include <ostream>

#include "interp/language/builtins/builtins.h"
#include "interp/runtime/interrupt.h"
#include "interp/runtime/queue_runner.h"
#include "interp/language/recovery.h"
#include "interp/language/value_convert.h"

namespace tfg {
namespace {

// The graph outputs and target ops a fetch structure names, each once.
struct FetchPlan {
  std::vector<Output> outputs;
  std::map<std::pair<int, int>, size_t> index;  // (node id, output) -> position in outputs
  std::vector<Node*> targets;
};

Status Collect(const Value& v, FetchPlan& plan, const SourceSpan& span, int depth = 0) {
  if (depth > 64) return Status(Code::kInvalidArgument, "run(): fetches nested too deeply", span);
  switch (v.kind()) {
    case ValueKind::kNone:
    // An op on host values ran at once (zeros([3]), [1, 2] * 2): its value
    // is already here, and run() hands it back as it is.
    case ValueKind::kTensor:
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
    case ValueKind::kString: return Status::OK();
    case ValueKind::kGraphTensor:
    case ValueKind::kVariable: {
      Output o = v.graph_output();
      auto key = std::make_pair(o.node->id(), o.index);
      if (!plan.index.count(key)) {
        plan.index[key] = plan.outputs.size();
        plan.outputs.push_back(o);
      }
      return Status::OK();
    }
    case ValueKind::kOp: plan.targets.push_back(v.as_op()); return Status::OK();
    case ValueKind::kList:
      for (const Value& item : v.as_list().items) TFG_RETURN_IF_ERROR(Collect(item, plan, span, depth + 1));
      return Status::OK();
    case ValueKind::kDict:
      for (const auto& [k, item] : v.as_dict().entries()) TFG_RETURN_IF_ERROR(Collect(item, plan, span, depth + 1));
      return Status::OK();
    default:
      return Status(Code::kInvalidArgument,
                    fmt::format("run(): cannot fetch {}; fetches are graph tensors, ops, variables, host values, or "
                                "lists and dicts of them",
                                Describe(v)),
                    span);
  }
}

// The fetch structure again, with host tensors in place of graph tensors.
Value Rebuild(const Value& v, const FetchPlan& plan, const std::vector<Tensor>& results) {
  switch (v.kind()) {
    case ValueKind::kGraphTensor:
    case ValueKind::kVariable: {
      Output o = v.graph_output();
      return Value::HostTensor(results[plan.index.at({o.node->id(), o.index})]);
    }
    case ValueKind::kList: {
      std::vector<Value> items;
      for (const Value& item : v.as_list().items) items.push_back(Rebuild(item, plan, results));
      return Value::NewList(std::move(items));
    }
    case ValueKind::kDict: {
      Value out = Value::NewDict();
      for (const auto& [k, item] : v.as_dict().entries()) (void)out.as_dict().Set(k, Rebuild(item, plan, results));
      return out;
    }
    case ValueKind::kOp: return Value();
    default: return v;  // a host value, fetched as it is
  }
}

Result<std::vector<std::pair<Output, Tensor>>> Feeds(const Value& feed, const SourceSpan& span) {
  std::vector<std::pair<Output, Tensor>> feeds;
  if (feed.is_none()) return feeds;
  if (!feed.is(ValueKind::kDict)) {
    return Status(Code::kInvalidArgument, fmt::format("run(): feed must be a dict {{tensor: value}}, got {}", Describe(feed)),
                  span);
  }
  for (const auto& [key, value] : feed.as_dict().entries()) {
    if (!key.is_graph()) {
      return Status(Code::kInvalidArgument,
                    fmt::format("run(): feed keys must be graph tensors (placeholders), got {}", Describe(key)),
                    span);
    }
    Output o = key.graph_output();
    if (ContainsGraph(value)) {
      return Status(Code::kInvalidArgument,
                    fmt::format("run(): the value fed to '{}' is {}; feed host values", OutputName(o), Describe(value)),
                    span);
    }
    auto t = ToTensor(value, o.dtype());
    if (!t.ok()) {
      return Status(t.status()).Prepend(fmt::format("run(): bad feed for '{}': ", OutputName(o))).WithSpan(span);
    }
    feeds.emplace_back(o, std::move(*t));
  }
  return feeds;
}

// Zeros of each fetch's static shape (unknown dims as 1): check mode runs no
// kernels.
Result<std::vector<Tensor>> CheckModeResults(const std::vector<Output>& outputs) {
  std::vector<Tensor> results;
  for (const Output& o : outputs) {
    std::vector<int64_t> dims;
    if (o.shape().known_rank()) {
      for (int64_t d : o.shape().dims()) dims.push_back(d < 0 ? 1 : d);
    }
    TFG_ASSIGN_OR_RETURN(Tensor zeros, ZerosTensor(o.dtype(), TensorShape(dims)));
    results.push_back(std::move(zeros));
  }
  return results;
}

// Classic TF1 mistake: building nodes inside the training loop. Warn once
// when the graph keeps growing between runs of the same run() line.
void CheckGraphGrowth(BuiltinContext& ev, const SourceSpan& run_span) {
  constexpr int kStreak = 3;
  auto& h = ev.run_history();
  int64_t version = ev.graph().version();
  if (h.runs > 0 && version > h.last_version) {
    // Straight-line code also grows the graph between runs, and can add
    // nodes with the same span each time (a gradient's carry its forward
    // op's); a loop grows it from the same place before the same run().
    // The file by identity, not path: each REPL entry is a file of its own,
    // all named <stdin> and starting at line 1.
    const SourceSpan& where = ev.graph().node(ev.graph().num_nodes() - 1)->span();
    auto place = [](const SourceSpan& s) {
      return fmt::format("{}:{}:{}", static_cast<const void*>(s.file.get()), s.line, s.col);
    };
    const std::string site = place(where) + " " + place(run_span);
    h.growth_streak = site == h.last_growth_site ? h.growth_streak + 1 : 1;
    h.last_growth_site = site;
    if (h.growth_streak >= kStreak && !h.warned) {
      h.warned = true;
      const int64_t grew = version - h.last_version;
      ev.Warn(fmt::format("the graph grew by {} node{} since the last run(); this line adds nodes on every loop "
                          "iteration — build the graph once, outside the loop",
                          grew, grew == 1 ? "" : "s"),
              where);
    }
  } else if (h.runs > 0) {
    h.growth_streak = 0;
  }
  h.last_version = version;
  ++h.runs;
}

}  // namespace

// Recoveries of one run() before its error stands.
constexpr int kMaxRecoveries = 3;

Result<Value> RunFetches(BuiltinContext& ev, const Value& fetches, const Value& feed, double timeout,
                         const SourceSpan& span) {
  FetchPlan plan;
  TFG_RETURN_IF_ERROR(Collect(fetches, plan, span));
  TFG_ASSIGN_OR_RETURN(auto feeds, Feeds(feed, span));
  CheckGraphGrowth(ev, span);
  std::vector<Tensor> results;
  if (ev.options().check_only) {
    for (const auto& [output, value] : feeds) {
      if (Status s = ValidateFeed(output, value); !s.ok()) return s.WithSpan(span);
    }
    auto zeros = CheckModeResults(plan.outputs);
    if (!zeros.ok()) return Status(zeros.status()).WithSpan(span);
    results = std::move(*zeros);
  } else {
    // Like TF's Coordinator: a queue runner's failure stops the script at
    // the next run().
    Status runner = QueueRunners::TakeErrorOf(ev.session());
    if (!runner.ok()) return runner.AddNote(span, "reported at this run()");
    RunOptions options;
    options.timeout_seconds = timeout;
    std::shared_ptr<CancellationManager> interrupt = interrupt::Current();
    options.cancellation = interrupt.get();
    if (interrupt && interrupt->IsCancelled()) return Status(Code::kCancelled, "interrupted (Ctrl-C)", span);
    auto r = ev.session().Run(feeds, plan.outputs, plan.targets, options);
    // A task that died and came back (checkpoint_every): run again, on
    // the restored variables. A task dying again is recovered again.
    for (int attempt = 0; !r.ok() && attempt < kMaxRecoveries; ++attempt) {
      auto recovered = RecoverFromDeadTasks(ev, r.status());
      if (!recovered.ok()) r = recovered.status();
      if (!recovered.ok() || !*recovered) break;
      r = ev.session().Run(feeds, plan.outputs, plan.targets, options);
    }
    if (!r.ok() && r.status().code() == Code::kOutOfRange) {
      // A runner that fails closes its queue: this run() waiting on it sees
      // the end of the data, but the runner's error is the news.
      Status failed = QueueRunners::TakeErrorOf(ev.session());
      if (!failed.ok()) return failed.AddNote(span, "reported at this run()");
    }
    if (!r.ok()) {
      Status s = r.status();
      // The failing node's line comes first; say which run() it was.
      if (s.span().valid() && span.valid() && (s.span().line != span.line || s.span().file != span.file)) {
        s.AddNote(span, "while running this run()");
      }
      return s.WithSpan(span);
    }
    results = std::move(*r);
  }
  if (results.size() != plan.outputs.size()) {
    return Status(Code::kInternal, "run(): the session returned the wrong number of results", span);
  }
  return Rebuild(fetches, plan, results);
}

namespace {

Result<Value> RunBuiltin(BuiltinContext& ev, BoundArgs& args) {
  double timeout = 0;
  if (!args[2].is_none()) {
    TFG_ASSIGN_OR_RETURN(timeout, NumberArg(args, 2));
    // Written so that NaN fails too: it would disable the limit silently.
    if (!(timeout >= 0)) {
      return Status(Code::kInvalidArgument, fmt::format("run(): timeout must be >= 0 seconds, found {}", timeout),
                    args.spans[2]);
    }
  }
  // feed_dict= is TensorFlow's name for feed=: either may be given, not both.
  if (args.given[1] && args.given[3]) {
    return Status(Code::kInvalidArgument, "run(): give feed= or feed_dict= (the same thing), not both",
                  args.spans[3]);
  }
  return RunFetches(ev, args[0], args.given[3] ? args[3] : args[1], timeout, args.span);
}

const BuiltinRegistrar kRunBuiltins({
    {"run", {{"fetches", std::nullopt}, {"feed", Value()}, {"timeout", Value()}, {"feed_dict", Value(), true}},
     "Runs the graph for the fetches (a graph tensor, op, variable, or a list/dict of them; host values come back "
     "as they are) with feed = "
     "{placeholder: host value}; returns the same structure with host tensors (none for ops). Only what the "
     "fetches need runs. timeout in seconds. feed_dict= is another name for feed=, as TensorFlow spells it.",
     RunBuiltin},
});

}  // namespace
}  // namespace tfg
