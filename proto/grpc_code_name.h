// The name of a gRPC status code ("DEADLINE_EXCEEDED"), for messages of the daemon and of the
// remote transport. Part of the gRPC target (aicore_grpc), beside the generated service.
#pragma once

#include <grpcpp/support/status.h>

namespace aicore {

const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace aicore
