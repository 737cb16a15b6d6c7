// Decode-once cache of kernel programs shared by the embedded runtime and the daemon: kernels are
// validated and decoded by DecodeKernel the first time their exact serialized bytes are seen.
// Keyed by the full serialized kernel (not a digest), so two different kernels can never collide.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "kernel.pb.h"
#include "sim/core/status.h"

namespace aicore::sim {

class Program;

// Bounded both in entries and in bytes (each entry's key plus its decoded program): a flood of
// large distinct kernels evicts old entries instead of growing the host's memory for good. A
// program larger than the whole byte bound is decoded and returned but not kept.
class ProgramCache {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{256} << 20;
  explicit ProgramCache(size_t capacity = 256, size_t max_bytes = kDefaultMaxBytes);

  // Returns the decoded program for `serialized` (an aicore.ir.v1.Kernel). `parsed` may point at
  // the already-parsed message to avoid parsing again; it must be the same kernel. Decode errors
  // are returned as they come from the decoder (InvalidArgument with op index and reason) and are
  // not cached, so a fixed kernel is never shadowed by an old failure.
  StatusOr<std::shared_ptr<const Program>> Get(const std::string& serialized,
                                               const aicore::ir::v1::Kernel* parsed);

  size_t hits() const;
  size_t misses() const;
  size_t bytes() const;  // what the kept entries hold now
  size_t entries() const;
  size_t max_bytes() const { return max_bytes_; }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const Program> program;
    size_t bytes = 0;
  };

  const size_t capacity_;
  const size_t max_bytes_;
  size_t bytes_ = 0;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;  // views into lru_
  size_t hits_ = 0;
  size_t misses_ = 0;
};

// Deterministic serialization of a parsed kernel, used as the cache key by callers that receive
// the kernel as a message (the daemon).
std::string SerializeKernelForCache(const aicore::ir::v1::Kernel& kernel);

}  // namespace aicore::sim
