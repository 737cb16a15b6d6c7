// Bearer-token authentication of the daemon's clients (--token-file). Off when no file is given:
// every caller is then "anonymous". With tokens, every Simulator RPC must carry
// `authorization: Bearer <token>`; the token's name is the caller's identity, which owns the
// sessions it opens (another token's calls cannot see them) and is its one-shot runs' client in
// the fair queue. gRPC health stays open, for probes.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/core/status.h"

namespace aicore::daemon {

class TokenSet {
 public:
  // The identity of every caller when authentication is off.
  static constexpr const char* kAnonymous = "anonymous";

  TokenSet() = default;  // authentication off

  // The file's non-empty lines that do not start with '#': `NAME:TOKEN`, or a bare TOKEN (named
  // token-<line>). Tokens must be at least kMinTokenBytes long; names unique. Errors name the line.
  static sim::StatusOr<TokenSet> Load(const std::string& path);
  static constexpr size_t kMinTokenBytes = 16;

  bool enabled() const { return !tokens_.empty(); }
  size_t size() const { return tokens_.size(); }

  // The caller's identity, or UNAUTHENTICATED saying what is missing or wrong. Compares in time
  // independent of where a wrong token differs, against every token.
  grpc::Status Authenticate(const grpc::CallbackServerContext* ctx, std::string* identity) const;

 private:
  std::vector<std::pair<std::string, std::string>> tokens_;  // name, token
};

}  // namespace aicore::daemon
