#include "interp/app/tf_config.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cctype>
#include <cmath>

#include "interp/app/json_value.h"
#include "interp/distributed/cluster.h"

namespace tfg::cli {
namespace {

Status ConfigError(const std::string& what) { return InvalidArgument("TF_CONFIG: {}", what); }

bool IsChief(const std::string& type) { return type == "chief" || type == "master"; }

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status ReadCluster(const JsonValue& cluster, TfConfig& config) {
  if (cluster.kind != JsonValue::Kind::kObject) {
    return ConfigError("cluster is " + JsonKindName(cluster.kind) + ", expected an object of job: [\"host:port\", ...]");
  }
  for (const auto& [job, tasks] : cluster.members) {
    if (tasks.kind != JsonValue::Kind::kArray) {
      return ConfigError("cluster." + job + " is " + JsonKindName(tasks.kind) + ", expected a list of \"host:port\"");
    }
    std::vector<std::string> addresses;
    for (const JsonValue& t : tasks.items) {
      if (t.kind != JsonValue::Kind::kString) {
        return ConfigError("cluster." + job + " holds " + JsonKindName(t.kind) + ", expected \"host:port\" strings");
      }
      addresses.push_back(t.string);
    }
    config.cluster.emplace_back(Lower(job), std::move(addresses));
  }
  return Status::OK();
}

const std::vector<std::string>* JobTasks(const TfConfig& config, const std::string& job) {
  for (const auto& [name, tasks] : config.cluster) {
    if (name == job) return &tasks;
  }
  return nullptr;
}

// "host:port" (TensorFlow's form) or "tcp://host:port"; split in two.
Result<std::pair<std::string, std::string>> SplitHostPort(const std::string& entry) {
  std::string rest = entry;
  if (const size_t scheme = rest.find("://"); scheme != std::string::npos) {
    if (rest.compare(0, scheme, "tcp") != 0) return ConfigError("'" + entry + "' is not host:port (tfg speaks tcp://)");
    rest = rest.substr(scheme + 3);
  }
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) {
    return ConfigError("'" + entry + "' is not host:port");
  }
  return std::make_pair(rest.substr(0, colon), rest.substr(colon + 1));
}

bool IsIpv4(const std::string& host) {
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1;
}

// A worker binds its entry's address when it is a number; a name (a pod's
// DNS name) binds every interface, as TensorFlow's servers do, since a
// socket can only be bound to an address of this machine.
Result<std::string> WorkerListenAddress(const std::string& entry) {
  TFG_ASSIGN_OR_RETURN(auto hp, SplitHostPort(entry));
  return "tcp://" + (IsIpv4(hp.first) ? hp.first : std::string("0.0.0.0")) + ":" + hp.second;
}

// The master's address is also where the tasks reply, so it must be one
// they reach: a name is resolved to this machine's address for it.
Result<std::string> MasterListenAddress(const std::string& entry) {
  TFG_ASSIGN_OR_RETURN(auto hp, SplitHostPort(entry));
  if (IsIpv4(hp.first)) return "tcp://" + hp.first + ":" + hp.second;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(hp.first.c_str(), nullptr, &hints, &found); rc != 0 || found == nullptr) {
    return ConfigError("cannot resolve this task's host '" + hp.first + "': " + gai_strerror(rc));
  }
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof(text));
  freeaddrinfo(found);
  return "tcp://" + std::string(text) + ":" + hp.second;
}

// Every job but the chief's (and an evaluator's, which is not in the
// training cluster) as --cluster spells it.
Result<std::string> ClusterFlag(const TfConfig& config) {
  std::string flag;
  for (const auto& [job, tasks] : config.cluster) {
    if (IsChief(job) || job == "evaluator") continue;
    std::string addresses;
    for (const std::string& t : tasks) {
      TFG_ASSIGN_OR_RETURN(auto hp, SplitHostPort(t));
      addresses += (addresses.empty() ? "" : ";") + std::string("tcp://") + hp.first + ":" + hp.second;
    }
    flag += (flag.empty() ? "" : ",") + job + "=" + addresses;
  }
  if (flag.empty()) return ConfigError("the cluster has no task besides the chief");
  if (auto spec = ParseClusterFlag(flag); !spec.ok()) return ConfigError(spec.status().message());
  return flag;
}

Status ApplyToWorker(const TfConfig& config, const std::string& entry, CliOptions& opts) {
  if (IsChief(config.type)) {
    return ConfigError("this task is " + config.type + ":" + std::to_string(config.index) +
                       ", which runs the script: drop --worker");
  }
  if (opts.listen.empty()) {
    TFG_ASSIGN_OR_RETURN(opts.listen, WorkerListenAddress(entry));
  }
  return Status::OK();
}

Status ApplyToMaster(const TfConfig& config, const std::string& entry, CliOptions& opts) {
  if (!IsChief(config.type)) {
    if (opts.command != Command::kRun) return Status::OK();  // the REPL, check, graph: no cluster
    return ConfigError("this task is " + config.type + ":" + std::to_string(config.index) +
                       ": start it with `tfg --worker` (the script runs on the chief)");
  }
  InterpreterOptions& interp = opts.interpreter;
  if (interp.cluster.empty()) {
    TFG_ASSIGN_OR_RETURN(interp.cluster, ClusterFlag(config));
  }
  const bool runs = opts.command == Command::kRun || opts.command == Command::kRepl;
  if (runs && interp.master_listen.empty()) {
    TFG_ASSIGN_OR_RETURN(interp.master_listen, MasterListenAddress(entry));
  }
  return Status::OK();
}

}  // namespace

Result<TfConfig> ParseTfConfig(const std::string& text) {
  auto json = ParseJson(text);
  if (!json.ok()) return ConfigError(json.status().message());
  if (json->kind != JsonValue::Kind::kObject) return ConfigError("expected an object, found " + JsonKindName(json->kind));
  TfConfig config;
  const JsonValue* cluster = json->Find("cluster");
  if (cluster == nullptr) return ConfigError("no \"cluster\"");
  TFG_RETURN_IF_ERROR(ReadCluster(*cluster, config));
  const JsonValue* task = json->Find("task");
  if (task == nullptr || task->kind != JsonValue::Kind::kObject) return ConfigError("no \"task\" object");
  const JsonValue* type = task->Find("type");
  if (type == nullptr || type->kind != JsonValue::Kind::kString) return ConfigError("task.type is not a string");
  config.type = Lower(type->string);
  const JsonValue* index = task->Find("index");
  const double i = index == nullptr ? 0 : index->number;
  if (index != nullptr && (index->kind != JsonValue::Kind::kNumber || i < 0 || i > 1e6 || std::floor(i) != i)) {
    return ConfigError("task.index is not a whole number from 0");
  }
  config.index = static_cast<int>(i);
  const std::vector<std::string>* tasks = JobTasks(config, config.type);
  if (tasks == nullptr) return ConfigError("task.type is '" + config.type + "', which the cluster has no job of");
  if (config.index >= static_cast<int>(tasks->size())) {
    return ConfigError(fmt::format("task.index is {}, but job '{}' has {} task{}", config.index, config.type,
                                   tasks->size(), tasks->size() == 1 ? "" : "s"));
  }
  if (config.type == "evaluator") {
    // TensorFlow's evaluator runs outside the training cluster, reading
    // the chief's checkpoints as they appear; tfg has no such loop yet.
    return ConfigError(fmt::format("this task is evaluator:{}, and an evaluator task is not supported yet: leave "
                                   "the Evaluator replicas out (the chief's cluster skips them)",
                                   config.index));
  }
  return config;
}

Status ApplyTfConfig(const char* tf_config, CliOptions& opts) {
  if (tf_config == nullptr) return Status::OK();
  const std::string text(tf_config);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return Status::OK();
  const bool uses_cluster = opts.worker || opts.command == Command::kRun || opts.command == Command::kRepl ||
                            opts.command == Command::kCheck || opts.command == Command::kGraph;
  if (!uses_cluster) return Status::OK();
  TFG_ASSIGN_OR_RETURN(TfConfig config, ParseTfConfig(text));
  const std::string& entry = (*JobTasks(config, config.type))[config.index];
  return opts.worker ? ApplyToWorker(config, entry, opts) : ApplyToMaster(config, entry, opts);
}

}  // namespace tfg::cli
