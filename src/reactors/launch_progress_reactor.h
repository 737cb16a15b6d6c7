// The LaunchWithProgress RPC: a session Launch that streams LaunchProgress while the simulation
// runs, then the LaunchResponse as its last message (docs/daemon.md "Progress").
#pragma once

#include "simulator.grpc.pb.h"
#include "src/simulator_service.h"

namespace aicore::daemon {

// Starts serving one LaunchWithProgress call; the reactor deletes itself when the call is done.
grpc::ServerWriteReactor<svc::LaunchEvent>* NewLaunchProgressReactor(
    SimulatorService* service, grpc::CallbackServerContext* ctx, const svc::LaunchRequest* request);

}  // namespace aicore::daemon
