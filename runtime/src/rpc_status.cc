// grpc::Status -> runtime::Status for the remote transport (see rpc_status.h).
#include "runtime/src/rpc_status.h"

#include "grpc_code_name.h"

namespace aicore::runtime {

Status FromGrpcStatus(const grpc::Status& status) {
  const std::string& msg = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return Status::Ok();
    case grpc::StatusCode::INVALID_ARGUMENT:
      return Status(StatusCode::kInvalidArgument, msg);
    case grpc::StatusCode::NOT_FOUND:
      return Status(StatusCode::kNotFound, msg);
    case grpc::StatusCode::FAILED_PRECONDITION:
      return Status(StatusCode::kFailedPrecondition, msg);
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return Status(StatusCode::kResourceExhausted, msg);
    case grpc::StatusCode::INTERNAL:
      return Status(StatusCode::kInternal, msg);
    case grpc::StatusCode::OUT_OF_RANGE:
      return Status(StatusCode::kInvalidArgument, "gRPC OUT_OF_RANGE: " + msg);
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::ABORTED:
      return Status(StatusCode::kFailedPrecondition,
                    std::string("gRPC ") + GrpcCodeName(status.error_code()) + ": " + msg);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Status(StatusCode::kResourceExhausted, "gRPC DEADLINE_EXCEEDED: " + msg);
    default:
      return Status(StatusCode::kInternal,
                    std::string("gRPC ") + GrpcCodeName(status.error_code()) + ": " + msg);
  }
}

}  // namespace aicore::runtime
