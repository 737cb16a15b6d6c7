// The ReadMemory RPC: a range of one session's device memory streamed back to the client in
// chunks, each read on the session's strand so it sees every earlier copy and launch.
#pragma once

#include "simulator.grpc.pb.h"
#include "src/simulator_service.h"

namespace aicore::daemon {

// Starts serving one ReadMemory call; the reactor deletes itself when the call is done.
grpc::ServerWriteReactor<svc::MemoryChunk>* NewReadMemoryReactor(
    SimulatorService* service, grpc::CallbackServerContext* ctx,
    const svc::ReadMemoryRequest* request);

}  // namespace aicore::daemon
