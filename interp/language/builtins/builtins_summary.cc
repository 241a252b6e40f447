// TensorBoard output: summary_writer(dir), write_summary(w, summary, step),
// write_graph(w) and logdir(). A writer is a dict {logdir, file} naming its
// event file; the open file (ops/summary/event_writer.h) lives in the
// session's resources, so it is per interpreter and closed with it.

#include "interp/language/builtins/builtins.h"
#include "ops/core/resource_mgr.h"
#include "ops/summary/event_writer.h"

namespace tfg {
namespace {

// A container of its own: reset() of the variables leaves writers open.
constexpr const char* kWriterContainer = "tfg.summary_writers";

class WriterResource : public Resource {
 public:
  explicit WriterResource(std::unique_ptr<summary::EventWriter> w) : writer(std::move(w)) {}
  std::string DebugString() const override { return "summary writer " + writer->path(); }
  std::unique_ptr<summary::EventWriter> writer;
};

Status SummaryArgError(const BoundArgs& args, size_t i, const std::string& msg) {
  return Status(Code::kInvalidArgument, args.def->name + "(): " + msg, args.spans[i]);
}

Value WriterValue(const std::string& dir, const std::string& file) {
  Value w = Value::NewDict();
  (void)w.as_dict().Set(Value::Str("logdir"), Value::Str(dir));
  (void)w.as_dict().Set(Value::Str("file"), Value::Str(file));
  return w;
}

// The event writer behind argument i; null in check-only mode (nothing is
// written then).
Result<summary::EventWriter*> WriterArg(BuiltinContext& ev, const BoundArgs& args, size_t i) {
  const Value& v = args[i];
  const Value* file = v.is(ValueKind::kDict) ? v.as_dict().Find(Value::Str("file")) : nullptr;
  if (!file || !file->is(ValueKind::kString)) {
    return SummaryArgError(args, i, "expected a summary writer (made by summary_writer(dir)), got " + Describe(v));
  }
  if (ev.options().check_only) return static_cast<summary::EventWriter*>(nullptr);
  auto res = ev.session().resources()->Lookup<WriterResource>(kWriterContainer, file->as_string());
  if (!res) return SummaryArgError(args, i, fmt::format("no open summary writer writes '{}'", file->as_string()));
  return res->writer.get();
}

// A summary as run() returns it (a string scalar tensor) or a string.
Result<std::string> SummaryArg(const BoundArgs& args, size_t i) {
  const Value& v = args[i];
  if (v.is(ValueKind::kString)) return v.as_string();
  if (v.is(ValueKind::kTensor)) {
    const Tensor& t = v.as_tensor();
    if (t.dtype() == DType::kString && t.num_elements() == 1) return t.data<std::string>()[0];
  }
  if (v.is_graph()) {
    return SummaryArgError(args, i,
                           "the summary is a graph tensor; run() it first: write_summary(w, run(summary), step)");
  }
  return SummaryArgError(args, i,
                         "expected a summary (a string tensor from run() of a summary op), got " + Describe(v));
}

Status WithSummaryCall(Status s, const BoundArgs& args) {
  if (s.ok()) return s;
  return Status(s).Prepend(args.def->name + "(): ").WithSpan(args.span);
}

Result<Value> SummaryWriterBuiltin(BuiltinContext& ev, BoundArgs& args) {
  if (!args[0].is(ValueKind::kString) || args[0].as_string().empty()) {
    return SummaryArgError(args, 0, "expected a directory name, got " + Describe(args[0]));
  }
  const std::string& dir = args[0].as_string();
  if (ev.options().check_only) return WriterValue(dir, "");
  auto writer = summary::EventWriter::Create(dir);
  if (!writer.ok()) return WithSummaryCall(writer.status(), args);
  std::string path = (*writer)->path();
  auto res = ev.session().resources()->LookupOrCreate<WriterResource>(
      kWriterContainer, path, [&] { return std::make_shared<WriterResource>(std::move(*writer)); });
  if (!res.ok()) return WithSummaryCall(res.status(), args);
  return WriterValue(dir, path);
}

Result<Value> WriteSummaryBuiltin(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(summary::EventWriter * writer, WriterArg(ev, args, 0));
  TFG_ASSIGN_OR_RETURN(std::string bytes, SummaryArg(args, 1));
  TFG_ASSIGN_OR_RETURN(int64_t step, IntArg(args, 2));
  if (!writer) return Value();
  TFG_RETURN_IF_ERROR(WithSummaryCall(writer->WriteSummary(bytes, step), args));
  return Value();
}

Result<Value> WriteGraphBuiltin(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(summary::EventWriter * writer, WriterArg(ev, args, 0));
  if (!writer) return Value();
  TFG_RETURN_IF_ERROR(WithSummaryCall(writer->WriteGraph(ev.graph()), args));
  return Value();
}

Result<Value> LogdirBuiltin(BuiltinContext& ev, BoundArgs&) {
  const std::string& dir = ev.options().logdir;
  if (dir.empty()) return Value();
  return Value::Str(dir);
}

BuiltinRegistrar summary_builtins({
    BuiltinDef{"summary_writer", {{"dir", std::nullopt}},
               "Creates `dir` (and its parents) and a new TensorBoard event file "
               "events.out.tfevents.<secs>.<host> in it; returns the writer, a dict {logdir, file}. An "
               "unwritable directory is an error at once.",
               SummaryWriterBuiltin},
    BuiltinDef{"write_summary", {{"writer", std::nullopt}, {"summary", std::nullopt}, {"step", std::nullopt}},
               "Appends `summary` (run() of scalar_summary, histogram_summary, image_summary or "
               "merge_summaries) at training step `step` to the writer's event file.",
               WriteSummaryBuiltin},
    BuiltinDef{"write_graph", {{"writer", std::nullopt}},
               "Writes the graph built so far to the writer's event file, for TensorBoard's Graphs tab "
               "(scopes, op types, devices, dtypes and output shapes).",
               WriteGraphBuiltin},
    BuiltinDef{"logdir", {}, "The directory given with --logdir, or none.", LogdirBuiltin},
});

}  // namespace

}  // namespace tfg
