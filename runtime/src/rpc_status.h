// Conversions between the simulator's Status and gRPC status codes, shared by the daemon (sim ->
// gRPC) and the remote transport (gRPC -> sim), so both ends agree on the CONVENTIONS mapping.
// Only .cc files of the daemon and the remote transport include this; it pulls in gRPC.
#pragma once

#include <grpcpp/support/status.h>

#include <string>

#include "sim/core/status.h"

namespace aicore::runtime {

grpc::Status ToGrpcStatus(const sim::Status& status);

// gRPC codes the simulator's StatusCode cannot represent (UNAVAILABLE, DEADLINE_EXCEEDED,
// CANCELLED ...) are mapped to the nearest code and the original gRPC code name is kept in the
// message, so the user still sees it.
sim::Status FromGrpcStatus(const grpc::Status& status);

const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace aicore::runtime
