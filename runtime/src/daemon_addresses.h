// Which daemons a remote runtime may use (AICORE_SIM_ADDRESS): one HOST:PORT, a comma-separated
// list of them, or dns:///NAME:PORT, every address record of NAME being one daemon (a headless
// Kubernetes service). A session is stateful, so each remote runtime pins its session to one
// daemon: the next in a process-wide round robin, moving on to the following ones only when a
// daemon cannot be reached.
#pragma once

#include <string>
#include <vector>

#include "aicore/status.h"

namespace aicore::runtime {

// The daemons' addresses in the order given (dns: in the resolver's order, duplicates dropped);
// InvalidArgument naming the entry that is not HOST:PORT or the name that does not resolve.
StatusOr<std::vector<std::string>> ParseDaemonAddresses(const std::string& spec);

// `addresses` rotated to start at the next daemon of this process's round robin (its first
// choice is random, so processes started together do not all begin with the first daemon).
std::vector<std::string> SessionOrder(const std::vector<std::string>& addresses);

}  // namespace aicore::runtime
