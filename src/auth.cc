// TokenSet (see auth.h).
#include "src/auth.h"

#include <fstream>
#include <set>

namespace aicore::daemon {
namespace {

// Equal-length inputs are compared in full; a length mismatch is not secret (tokens are long).
bool ConstantTimeEquals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]);
  }
  return diff == 0;
}

std::string Trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

}  // namespace

sim::StatusOr<TokenSet> TokenSet::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return sim::InvalidArgument("--token-file " + path +
                                " cannot be read; give a file of NAME:TOKEN lines");
  }
  TokenSet set;
  std::set<std::string> names;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    const std::string where = "--token-file " + path + " line " + std::to_string(number);
    const size_t colon = line.find(':');
    std::string name = colon == std::string::npos ? "token-" + std::to_string(number)
                                                  : Trim(line.substr(0, colon));
    std::string token = colon == std::string::npos ? line : Trim(line.substr(colon + 1));
    if (name.empty()) return sim::InvalidArgument(where + ": the name before ':' is empty");
    if (token.size() < kMinTokenBytes) {
      return sim::InvalidArgument(where + ": the token is " + std::to_string(token.size()) +
                                  " bytes, shorter than " + std::to_string(kMinTokenBytes) +
                                  "; use a random one, e.g. `openssl rand -hex 32`");
    }
    if (!names.insert(name).second) {
      return sim::InvalidArgument(where + ": the name '" + name + "' is used twice");
    }
    set.tokens_.emplace_back(std::move(name), std::move(token));
  }
  if (set.tokens_.empty()) {
    return sim::InvalidArgument("--token-file " + path + " holds no token");
  }
  return set;
}

grpc::Status TokenSet::Authenticate(const grpc::CallbackServerContext* ctx,
                                    std::string* identity) const {
  if (!enabled()) {
    *identity = kAnonymous;
    return grpc::Status::OK;
  }
  const auto& metadata = ctx->client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return {grpc::StatusCode::UNAUTHENTICATED,
            "this daemon requires a bearer token (--token-file): send the metadata "
            "`authorization: Bearer <token>` (the runtime: set AICORE_SIM_TOKEN)"};
  }
  const std::string value(it->second.data(), it->second.size());
  const std::string prefix = "Bearer ";
  const std::string given = value.rfind(prefix, 0) == 0 ? value.substr(prefix.size()) : "";
  const std::string* match = nullptr;
  for (const auto& [name, token] : tokens_) {
    if (ConstantTimeEquals(given, token)) match = &name;  // no early exit
  }
  if (match == nullptr) {
    return {grpc::StatusCode::UNAUTHENTICATED,
            "the bearer token is not one this daemon accepts (--token-file); check "
            "AICORE_SIM_TOKEN or the `authorization: Bearer <token>` metadata"};
  }
  *identity = *match;
  return grpc::Status::OK;
}

}  // namespace aicore::daemon
