#include "interp/app/repl_history.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>
#include <sstream>
#include <utility>

#include "ops/core/safe_file.h"

namespace tfg {
namespace {

bool IsBlank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

}  // namespace

HistoryFile::HistoryFile(std::string path, std::ostream& warnings) : path_(std::move(path)), warnings_(warnings) {}

const std::deque<std::string>& HistoryFile::Load() {
  if (path_.empty()) return lines_;
  Result<std::string> text = ReadRegularFile(path_, kMaxHistoryBytes, "history file");
  if (!text.ok()) {
    // No file yet is the first session; anything else is not ours to touch.
    if (text.status().code() != Code::kNotFound) GiveUp(text.status().message());
    return lines_;
  }
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    if (IsBlank(line)) continue;
    lines_.push_back(line);
    if (lines_.size() > kHistoryKeep) lines_.pop_front();
    ++in_file_;
  }
  if (in_file_ > kHistoryKeep) Rewrite();
  last_ = lines_.empty() ? "" : lines_.back();
  return lines_;
}

bool HistoryFile::Add(const std::string& line) {
  if (IsBlank(line) || line == last_) return false;
  last_ = line;
  if (path_.empty()) return true;
  lines_.push_back(line);
  if (lines_.size() > kHistoryKeep) lines_.pop_front();
  if (++in_file_ > kHistoryKeep) {
    Rewrite();
  } else {
    Append(line);
  }
  return true;
}

// O_NONBLOCK: opening a FIFO that no one reads fails at once (ENXIO)
// instead of waiting for a reader; what opened is checked to be a regular
// file before a byte is written.
void HistoryFile::Append(const std::string& line) {
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0) return GiveUp(fmt::format("cannot open history file '{}': {}", path_, std::strerror(errno)));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return GiveUp(fmt::format("cannot write history file '{}': it is {}, not a regular file", path_,
                              FileKindOf(st.st_mode)));
  }
  const std::string entry = line + "\n";
  // One write: O_APPEND keeps two sessions' entries whole.
  const bool written = ::write(fd, entry.data(), entry.size()) == static_cast<ssize_t>(entry.size());
  ::close(fd);
  if (!written) GiveUp(fmt::format("cannot write history file '{}'", path_));
}

void HistoryFile::Rewrite() {
  std::string text;
  for (const std::string& line : lines_) text += line + "\n";
  Status s = WriteFileReplacing(path_, text);
  if (!s.ok()) return GiveUp(s.message());
  in_file_ = lines_.size();
}

void HistoryFile::GiveUp(const std::string& why) {
  warnings_ << "tfg: warning: " << why << "; history is not saved this session\n";
  warnings_.flush();
  path_.clear();
}

}  // namespace tfg
