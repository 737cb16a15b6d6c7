// Decode-once program cache (see program_cache.h). Decoding happens outside the lock so a slow
// decode of one kernel never blocks lookups of others; two threads decoding the same new kernel
// at once both succeed and the first insertion wins.
#include "sim/host/program_cache.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "sim/bridge/bridge.h"

namespace aicore::sim {

ProgramCache::ProgramCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

StatusOr<std::shared_ptr<const Program>> ProgramCache::Get(const std::string& serialized,
                                                           const aicore::ir::v1::Kernel* parsed) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(std::string_view(serialized));
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++hits_;
      return it->second->second;
    }
    ++misses_;
  }

  aicore::ir::v1::Kernel local;
  if (parsed == nullptr) {
    if (!local.ParseFromString(serialized)) {
      return InvalidArgument(
          "kernel IR is not a valid serialized aicore.ir.v1.Kernel message (protobuf parse "
          "failed; " +
          std::to_string(serialized.size()) + " bytes)");
    }
    parsed = &local;
  }
  auto decoded = DecodeKernel(*parsed);
  if (!decoded.ok()) return decoded.status();
  std::shared_ptr<const Program> program = *decoded;
  if (program == nullptr) return Internal("DecodeKernel returned ok with a null program");

  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(std::string_view(serialized));
  if (it != index_.end()) return it->second->second;
  lru_.emplace_front(serialized, program);
  index_.emplace(std::string_view(lru_.front().first), lru_.begin());
  while (lru_.size() > capacity_) {
    index_.erase(std::string_view(lru_.back().first));
    lru_.pop_back();
  }
  return program;
}

size_t ProgramCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

size_t ProgramCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

std::string SerializeKernelForCache(const aicore::ir::v1::Kernel& kernel) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    kernel.SerializeToCodedStream(&coded);
  }
  return out;
}

}  // namespace aicore::sim
