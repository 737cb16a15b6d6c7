// Status and StatusOr for the simulator library: user mistakes (bad IR, kernel faults) come back
// as values, never as exit()/abort(). Codes mirror the gRPC codes the daemon maps them to.
#pragma once

#include <optional>
#include <source_location>
#include <string>
#include <utility>
#include <variant>

#include "sim/core/invariant.h"

namespace aicore::sim {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // bad program, bad config, bad argument
  kNotFound,            // unknown platform, unknown allocation
  kFailedPrecondition,  // wrong state
  kResourceExhausted,   // out of device memory or capacity
  kInternal,            // a simulator bug
};

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

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status ResourceExhausted(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

template <typename T>
class StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // Reading the value of an error is a simulator bug: it throws InvariantViolation (INTERNAL)
  // naming the caller, in every build, instead of undefined behaviour.
  T& value(std::source_location loc = std::source_location::current()) {
    Require(loc);
    return *value_;
  }
  const T& value(std::source_location loc = std::source_location::current()) const {
    Require(loc);
    return *value_;
  }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void Require(std::source_location loc) const {
    if (!value_.has_value()) [[unlikely]] {
      InvariantFailed("ok()", "StatusOr value read on an error status: " + status_.message(), loc);
    }
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace aicore::sim
