// Bookkeeping of a runtime's stream ids, shared by both transports. Stream 0 always exists.
// Launches in this skeleton run synchronously (Launch returns when the kernel has finished), so a
// stream is only a name that orders launches; there is no queue behind it yet.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>

#include "aicore/status.h"

namespace aicore::runtime {

class StreamTable {
 public:
  StatusOr<uint32_t> Create() {
    std::lock_guard<std::mutex> lock(mu_);
    if (next_ == 0) return Status(StatusCode::kResourceExhausted, "stream ids exhausted");
    uint32_t id = next_++;
    live_.insert(id);
    return id;
  }

  Status Destroy(uint32_t stream) {
    if (stream == 0)
      return Status(StatusCode::kInvalidArgument,
                    "stream 0 is the default stream and cannot be destroyed");
    std::lock_guard<std::mutex> lock(mu_);
    if (live_.erase(stream) == 0) return Status(StatusCode::kNotFound, UnknownMessage(stream));
    return Status::Ok();
  }

  Status Check(uint32_t stream) const {
    if (stream == 0) return Status::Ok();
    std::lock_guard<std::mutex> lock(mu_);
    if (live_.count(stream) == 0) return Status(StatusCode::kNotFound, UnknownMessage(stream));
    return Status::Ok();
  }

 private:
  static std::string UnknownMessage(uint32_t stream) {
    return "unknown stream " + std::to_string(stream) +
           " (never created with create_stream, or already destroyed)";
  }

  mutable std::mutex mu_;
  uint32_t next_ = 1;
  std::set<uint32_t> live_;
};

}  // namespace aicore::runtime
