// AICORE_SIM_ADDRESS lists and their round robin (see daemon_addresses.h).
#include "runtime/src/daemon_addresses.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>

namespace aicore::runtime {
namespace {

constexpr char kDnsPrefix[] = "dns:///";

std::string Trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// HOST:PORT with a numeric port; HOST may be a [bracketed] IPv6 address.
bool IsHostPort(const std::string& a) {
  const size_t colon = a.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == a.size()) return false;
  return std::all_of(a.begin() + static_cast<std::ptrdiff_t>(colon) + 1, a.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

StatusOr<std::vector<std::string>> Resolve(const std::string& spec, const std::string& name_port) {
  const size_t colon = name_port.rfind(':');
  const std::string name = name_port.substr(0, colon);
  const std::string port = name_port.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int error = getaddrinfo(name.c_str(), port.c_str(), &hints, &found); error != 0) {
    return Status(StatusCode::kInvalidArgument,
                  "AICORE_SIM_ADDRESS " + spec + ": " + name + " does not resolve (" +
                      gai_strerror(error) +
                      "); give HOST:PORT[,HOST:PORT...] or a resolvable "
                      "dns:///NAME:PORT");
  }
  std::vector<std::string> out;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* where =
        a->ai_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr);
    if (inet_ntop(a->ai_family, where, text, sizeof(text)) == nullptr) continue;
    std::string address = a->ai_family == AF_INET6 ? "[" + std::string(text) + "]:" + port
                                                   : std::string(text) + ":" + port;
    if (std::find(out.begin(), out.end(), address) == out.end()) out.push_back(address);
  }
  freeaddrinfo(found);
  return out;
}

}  // namespace

StatusOr<std::vector<std::string>> ParseDaemonAddresses(const std::string& spec) {
  const std::string trimmed = Trim(spec);
  if (trimmed.rfind(kDnsPrefix, 0) == 0) {
    const std::string name_port = trimmed.substr(sizeof(kDnsPrefix) - 1);
    if (!IsHostPort(name_port)) {
      return Status(StatusCode::kInvalidArgument,
                    "AICORE_SIM_ADDRESS " + spec + ": after dns:/// give NAME:PORT");
    }
    return Resolve(spec, name_port);
  }
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= trimmed.size()) {
    size_t comma = trimmed.find(',', start);
    if (comma == std::string::npos) comma = trimmed.size();
    const std::string entry = Trim(trimmed.substr(start, comma - start));
    if (!IsHostPort(entry)) {
      return Status(StatusCode::kInvalidArgument,
                    "AICORE_SIM_ADDRESS must be HOST:PORT, a comma-separated list of them, or "
                    "dns:///NAME:PORT; '" +
                        entry + "' in '" + spec + "' is not HOST:PORT");
    }
    out.push_back(entry);
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> SessionOrder(const std::vector<std::string>& addresses) {
  static std::atomic<uint64_t> next{std::random_device{}()};
  if (addresses.empty()) return {};
  const size_t first = next.fetch_add(1) % addresses.size();
  std::vector<std::string> order;
  order.reserve(addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) {
    order.push_back(addresses[(first + i) % addresses.size()]);
  }
  return order;
}

}  // namespace aicore::runtime
