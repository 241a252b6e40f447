// CURVE security for the transport (`--curve-keys DIR`, `tfg keygen DIR`).
//
// Every tfg process is both a server (its ROUTER socket) and a client (a
// DEALER per peer), and workers push tensors to each other, so one
// cluster-wide server keypair serves every ROUTER, while each process
// authenticates as a client with its own keypair. A key directory holds:
//   server.key  the cluster's server secret key (mode 0600), server.pub
//   client.key  this process's client secret key (mode 0600), client.pub
//   authorized/*.pub  the client public keys this process accepts
// Keys are Z85 text (40 characters), one per file; '#' lines are comments.
// A process accepts a connection only from a client whose public key is in
// its authorized/ (checked by a ZAP handler on the transport's I/O thread);
// a client without the server key cannot even complete the handshake.
#pragma once

#include <string>
#include <unordered_set>

#include "ops/core/status.h"

namespace tfg::net {

struct CurveKeys {
  std::string server_public, server_secret;  // Z85
  std::string client_public, client_secret;  // Z85
  std::unordered_set<std::string> authorized;  // client public keys, Z85
};

// Error when this libzmq was built without CURVE.
Status CheckCurveSupport();

// Reads DIR as laid out above. Errors name the file that is missing,
// unreadable, readable by others (secret keys) or not a key.
Result<CurveKeys> LoadCurveKeys(const std::string& dir);

// `tfg keygen DIR`: makes DIR (mode 0700) and whatever of the layout is
// missing: the server keypair, the client keypair, and authorized/client.pub.
// Existing keys are never overwritten. Returns one line per file written.
Result<std::string> GenerateCurveKeys(const std::string& dir);

// The 32-byte binary form of a Z85 key (ZAP hands keys over in binary).
std::string Z85ToBinary(const std::string& z85);

// The process-wide network settings the command line gives (`--curve-keys`,
// `--compress-transfers`): they hold for every socket and session of the
// process, so they are set once, before any Transport starts.
struct NetSettings {
  bool curve = false;
  CurveKeys keys;
  bool compress_transfers = false;  // the master's choice; sent to workers in Hello
};
void SetNetSettings(NetSettings settings);
const NetSettings& GetNetSettings();

}  // namespace tfg::net
