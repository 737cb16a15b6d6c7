// The WriteMemory RPC: a client stream of chunks copied into one session's device memory. Each
// chunk is written on the session's strand, so copies stay in order with the session's launches.
#pragma once

#include "simulator.grpc.pb.h"
#include "src/simulator_service.h"

namespace aicore::daemon {

// Starts serving one WriteMemory call; the reactor deletes itself when the call is done.
grpc::ServerReadReactor<svc::MemoryChunk>* NewWriteMemoryReactor(
    SimulatorService* service, grpc::CallbackServerContext* ctx,
    svc::WriteMemoryResponse* response);

}  // namespace aicore::daemon
