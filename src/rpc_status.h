// sim::Status -> grpc::Status for the daemon (CONVENTIONS: bad program INVALID_ARGUMENT, wrong
// state FAILED_PRECONDITION, unknown session NOT_FOUND, capacity RESOURCE_EXHAUSTED, our bug
// INTERNAL); the remote transport maps back in runtime/src/rpc_status.h.
#pragma once

#include <grpcpp/support/status.h>

#include "sim/core/status.h"

namespace aicore::daemon {

grpc::Status ToGrpcStatus(const sim::Status& status);

}  // namespace aicore::daemon
