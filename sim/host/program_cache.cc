// Decode-once program cache (see program_cache.h). Decoding happens outside the lock so a slow
// decode of one kernel never blocks lookups of others; two threads decoding the same new kernel
// at once both succeed and the first insertion wins.
#include "sim/host/program_cache.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "deep_parse.h"
#include "sim/bridge/bridge.h"
#include "sim/isa/program.h"

namespace aicore::sim {

ProgramCache::ProgramCache(size_t capacity, size_t max_bytes)
    : capacity_(capacity == 0 ? 1 : capacity), max_bytes_(max_bytes) {}

StatusOr<std::shared_ptr<const Program>> ProgramCache::Get(const std::string& serialized,
                                                           const aicore::ir::v1::Kernel* parsed) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(std::string_view(serialized));
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++hits_;
      return it->second->program;
    }
    ++misses_;
  }

  aicore::ir::v1::Kernel local;
  if (parsed == nullptr) {
    if (!aicore::ir::ParseDeep(serialized, &local)) {
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

  const size_t entry_bytes = serialized.size() + program->ApproxBytes();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(std::string_view(serialized));
  if (it != index_.end()) return it->second->program;
  if (entry_bytes > max_bytes_) return program;  // used by this launch only
  lru_.push_front({serialized, program, entry_bytes});
  index_.emplace(std::string_view(lru_.front().key), lru_.begin());
  bytes_ += entry_bytes;
  while (lru_.size() > capacity_ || bytes_ > max_bytes_) {
    bytes_ -= lru_.back().bytes;
    index_.erase(std::string_view(lru_.back().key));
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

size_t ProgramCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t ProgramCache::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lru_.size();
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
