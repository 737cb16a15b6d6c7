// The one-shot Run RPC: header, inputs, launch and outputs on one bidirectional stream, on a
// device of its own that lives only as long as the call (no session).
#pragma once

#include "simulator.grpc.pb.h"
#include "src/simulator_service.h"

namespace aicore::daemon {

// Starts serving one Run call; the reactor deletes itself when the call is done.
grpc::ServerBidiReactor<svc::RunRequest, svc::RunResponse>* NewRunReactor(
    SimulatorService* service, grpc::CallbackServerContext* ctx);

}  // namespace aicore::daemon
