#include "net/curve.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "ops/core/safe_file.h"

namespace tfg::net {
namespace {

constexpr size_t kZ85KeyChars = 40;

Status FileError(const std::string& path, const std::string& what) {
  return Error(Code::kFailedPrecondition, "CURVE key file '{}': {}", path, what);
}

bool IsZ85Key(const std::string& text) {
  if (text.size() != kZ85KeyChars) return false;
  uint8_t bytes[32];
  return zmq_z85_decode(bytes, text.c_str()) != nullptr;
}

// A key file is a key line and a few comments; anything longer is not one
// (and a huge file must not be read into memory to find that out).
constexpr uint64_t kMaxKeyFileBytes = 64 * 1024;

// The text of a key file, opened as every reader of tfg opens files (a FIFO
// or device is refused at once: ops/core/safe_file.h). The mode is checked
// on the open file, so a file swapped in after the check is not read.
Result<std::string> ReadKeyText(const std::string& path, bool secret) {
  TFG_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path, "CURVE key file"));
  struct stat st {};
  Status s;
  if (::fstat(file.fd, &st) != 0) {
    s = FileError(path, std::strerror(errno));
  } else if (secret && (st.st_mode & 077) != 0) {
    s = FileError(path, fmt::format("a secret key readable by others (mode {:o}): chmod 600 it", st.st_mode & 0777));
  } else if (file.size > kMaxKeyFileBytes) {
    s = FileError(path, fmt::format("{} bytes, not a key file (a key file is a line of 40 characters)", file.size));
  }
  std::string text;
  char buf[4096];
  while (s.ok()) {
    const ssize_t n = ::read(file.fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) s = FileError(path, std::strerror(errno));
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    // It may grow while it is read.
    if (text.size() > kMaxKeyFileBytes) s = FileError(path, "grew past 64 KiB while read: not a key file");
  }
  ::close(file.fd);
  if (!s.ok()) return s;
  return text;
}

// The one key line of a key file.
Result<std::string> ReadKeyFile(const std::string& path, bool secret) {
  TFG_ASSIGN_OR_RETURN(const std::string text, ReadKeyText(path, secret));
  std::istringstream in(text);
  std::string line, key;
  while (std::getline(in, line)) {
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    const size_t e = line.find_last_not_of(" \t\r");
    if (!key.empty()) return FileError(path, "more than one key in the file");
    key = line.substr(b, e - b + 1);
  }
  if (!IsZ85Key(key)) return FileError(path, "not a CURVE key (expected 40 Z85 characters, as `tfg keygen` writes)");
  return key;
}

Result<std::string> PublicOf(const std::string& secret, const std::string& path) {
  char pub[kZ85KeyChars + 1] = {};
  if (zmq_curve_public(pub, secret.c_str()) != 0) return FileError(path, "cannot derive its public key");
  return std::string(pub);
}

Status WriteKeyFile(const std::string& path, const std::string& key, mode_t mode, const std::string& comment) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return Error(Code::kFailedPrecondition, "cannot write '{}': {}", path, std::strerror(errno));
  const std::string text = "# " + comment + "\n" + key + "\n";
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int err = errno;
  ::close(fd);
  if (!ok) return Error(Code::kFailedPrecondition, "cannot write '{}': {}", path, std::strerror(err));
  return Status::OK();
}

// A keypair as NAME.key + NAME.pub unless NAME.key exists.
Status MakeKeypair(const std::string& dir, const std::string& name, const std::string& what, std::string& log) {
  const std::string secret_path = dir + "/" + name + ".key";
  std::error_code ec;
  if (std::filesystem::exists(secret_path, ec)) return Status::OK();
  char pub[kZ85KeyChars + 1] = {}, sec[kZ85KeyChars + 1] = {};
  if (zmq_curve_keypair(pub, sec) != 0) return Error(Code::kInternal, "cannot make a CURVE keypair");
  TFG_RETURN_IF_ERROR(WriteKeyFile(secret_path, sec, 0600, what + " secret key: keep it private"));
  std::filesystem::remove(dir + "/" + name + ".pub", ec);
  TFG_RETURN_IF_ERROR(WriteKeyFile(dir + "/" + name + ".pub", pub, 0644, what + " public key"));
  log += "wrote " + secret_path + " and " + dir + "/" + name + ".pub\n";
  return Status::OK();
}

NetSettings& Settings() {
  static NetSettings settings;
  return settings;
}

}  // namespace

Status CheckCurveSupport() {
  if (!zmq_has("curve")) {
    return Error(Code::kUnimplemented, "this libzmq was built without CURVE security: --curve-keys is not available");
  }
  return Status::OK();
}

Result<CurveKeys> LoadCurveKeys(const std::string& dir) {
  TFG_RETURN_IF_ERROR(CheckCurveSupport());
  CurveKeys k;
  TFG_ASSIGN_OR_RETURN(k.server_secret, ReadKeyFile(dir + "/server.key", true));
  TFG_ASSIGN_OR_RETURN(k.server_public, PublicOf(k.server_secret, dir + "/server.key"));
  TFG_ASSIGN_OR_RETURN(k.client_secret, ReadKeyFile(dir + "/client.key", true));
  TFG_ASSIGN_OR_RETURN(k.client_public, PublicOf(k.client_secret, dir + "/client.key"));
  const std::string authorized = dir + "/authorized";
  std::error_code ec;
  std::filesystem::directory_iterator it(authorized, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".pub") continue;
    TFG_ASSIGN_OR_RETURN(std::string key, ReadKeyFile(it->path().string(), false));
    k.authorized.insert(key);
  }
  if (ec) return FileError(authorized, ec.message());
  if (k.authorized.empty()) return FileError(authorized, "holds no *.pub key: no client could connect");
  return k;
}

Result<std::string> GenerateCurveKeys(const std::string& dir) {
  TFG_RETURN_IF_ERROR(CheckCurveSupport());
  std::error_code ec;
  std::filesystem::create_directories(dir + "/authorized", ec);
  if (ec) return Error(Code::kFailedPrecondition, "cannot create '{}/authorized': {}", dir, ec.message());
  ::chmod(dir.c_str(), 0700);
  std::string log;
  TFG_RETURN_IF_ERROR(MakeKeypair(dir, "server", "the cluster's server", log));
  TFG_RETURN_IF_ERROR(MakeKeypair(dir, "client", "this process's client", log));
  const std::string self = dir + "/authorized/client.pub";
  if (!std::filesystem::exists(self, ec)) {
    TFG_ASSIGN_OR_RETURN(std::string secret, ReadKeyFile(dir + "/client.key", true));
    TFG_ASSIGN_OR_RETURN(std::string pub, PublicOf(secret, dir + "/client.key"));
    TFG_RETURN_IF_ERROR(WriteKeyFile(self, pub, 0644, "a client public key this process accepts"));
    log += "wrote " + self + "\n";
  }
  if (log.empty()) log = "the keys in " + dir + " exist already: nothing written\n";
  return log;
}

std::string Z85ToBinary(const std::string& z85) {
  uint8_t bytes[32] = {};
  if (z85.size() != kZ85KeyChars || zmq_z85_decode(bytes, z85.c_str()) == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(bytes), sizeof(bytes));
}

void SetNetSettings(NetSettings settings) { Settings() = std::move(settings); }
const NetSettings& GetNetSettings() { return Settings(); }

}  // namespace tfg::net
