// grpc::Status -> the runtime's Status for the remote transport, the inverse of the daemon's
// mapping (src/rpc_status.h), so both ends agree on the CONVENTIONS table. Only the remote
// transport includes this; it pulls in gRPC.
#pragma once

#include <grpcpp/support/status.h>

#include "aicore/status.h"

namespace aicore::runtime {

// gRPC codes the runtime's StatusCode cannot represent (UNAVAILABLE, DEADLINE_EXCEEDED,
// CANCELLED ...) are mapped to the nearest code and the original gRPC code name is kept in the
// message, so the user still sees it.
Status FromGrpcStatus(const grpc::Status& status);

}  // namespace aicore::runtime
