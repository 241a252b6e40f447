// The REPL's history file (~/.tfg_history, or $TFG_HISTORY): one entry per
// line, plain text, so it stays readable and greppable (libedit's own
// format escapes every space). It is read and written as every tfg file is
// (ops/core/safe_file.h): a FIFO, a device such as /dev/zero, a directory
// or a file larger than kMaxHistoryBytes is refused with one warning, and
// the session goes on without saving history, rather than hanging or
// filling memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <string>

namespace tfg {

// Entries kept between sessions: the file is rewritten with the last ones
// whenever it holds more, so it stays small.
inline constexpr size_t kHistoryKeep = 1000;
// Far above kHistoryKeep lines of any length typed at a prompt.
inline constexpr uint64_t kMaxHistoryBytes = 16u << 20;

class HistoryFile {
 public:
  // `path` "" keeps no history; warnings (a file that cannot be used) go
  // to `warnings`.
  HistoryFile(std::string path, std::ostream& warnings);

  // The entries saved so far, oldest first, at most kHistoryKeep of them.
  const std::deque<std::string>& Load();
  // Records an entered line; false when it is not recorded (blank, or the
  // same as the last). It is appended to the file at once, so a crash
  // loses nothing.
  bool Add(const std::string& line);

 private:
  void Append(const std::string& line);
  void Rewrite();
  void GiveUp(const std::string& why);

  std::string path_;
  std::ostream& warnings_;
  std::string last_;
  std::deque<std::string> lines_;  // the last kHistoryKeep entries
  size_t in_file_ = 0;             // entries the file holds
};

}  // namespace tfg
