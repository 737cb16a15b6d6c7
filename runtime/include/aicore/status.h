// Status and StatusOr of the client runtime's API (aicore/runtime.h). The runtime's public
// headers depend on nothing else of the project, so they can be installed and used alone; the
// codes are those of the simulator and the daemon (CONVENTIONS: errors and gRPC codes).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace aicore::runtime {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // bad program, bad config, bad argument
  kNotFound,            // unknown platform, allocation, stream
  kFailedPrecondition,  // wrong state; the daemon cannot be reached
  kResourceExhausted,   // out of device memory or capacity
  kInternal,            // a simulator or runtime bug
};

// "INVALID_ARGUMENT", as gRPC names the code.
inline const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case StatusCode::kNotFound:
      return "NOT_FOUND";
    case StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case StatusCode::kInternal:
      return "INTERNAL";
  }
  return "UNKNOWN";
}

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // Reading the value of an error is a bug of the caller: it throws instead of being undefined.
  T& value() {
    Require();
    return *value_;
  }
  const T& value() const {
    Require();
    return *value_;
  }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void Require() const {
    if (!value_.has_value()) {
      throw std::logic_error(std::string("StatusOr value read on an error status: [") +
                             StatusCodeName(status_.code()) + "] " + status_.message());
    }
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace aicore::runtime
