// sim::Status -> grpc::Status for the daemon's replies (see rpc_status.h).
#include "src/rpc_status.h"

namespace aicore::daemon {

grpc::Status ToGrpcStatus(const sim::Status& status) {
  switch (status.code()) {
    case sim::StatusCode::kOk:
      return grpc::Status::OK;
    case sim::StatusCode::kInvalidArgument:
      return {grpc::StatusCode::INVALID_ARGUMENT, status.message()};
    case sim::StatusCode::kNotFound:
      return {grpc::StatusCode::NOT_FOUND, status.message()};
    case sim::StatusCode::kFailedPrecondition:
      return {grpc::StatusCode::FAILED_PRECONDITION, status.message()};
    case sim::StatusCode::kResourceExhausted:
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, status.message()};
    case sim::StatusCode::kInternal:
      return {grpc::StatusCode::INTERNAL, status.message()};
  }
  return {grpc::StatusCode::INTERNAL, "unknown simulator status code: " + status.message()};
}

}  // namespace aicore::daemon
