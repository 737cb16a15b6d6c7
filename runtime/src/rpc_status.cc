// sim::Status <-> grpc::Status (see rpc_status.h).
#include "runtime/src/rpc_status.h"

namespace aicore::runtime {

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

sim::Status FromGrpcStatus(const grpc::Status& status) {
  const std::string& msg = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return sim::Status::Ok();
    case grpc::StatusCode::INVALID_ARGUMENT:
      return sim::InvalidArgument(msg);
    case grpc::StatusCode::NOT_FOUND:
      return sim::NotFound(msg);
    case grpc::StatusCode::FAILED_PRECONDITION:
      return sim::FailedPrecondition(msg);
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return sim::ResourceExhausted(msg);
    case grpc::StatusCode::INTERNAL:
      return sim::Internal(msg);
    case grpc::StatusCode::OUT_OF_RANGE:
      return sim::InvalidArgument("gRPC OUT_OF_RANGE: " + msg);
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::ABORTED:
      return sim::FailedPrecondition(std::string("gRPC ") + GrpcCodeName(status.error_code()) +
                                     ": " + msg);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return sim::ResourceExhausted("gRPC DEADLINE_EXCEEDED: " + msg);
    default:
      return sim::Internal(std::string("gRPC ") + GrpcCodeName(status.error_code()) + ": " + msg);
  }
}

const char* GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    default:
      return "UNKNOWN";
  }
}

}  // namespace aicore::runtime
