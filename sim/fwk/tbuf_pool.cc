// TBufPool range and buffer-id accounting (see tbuf_pool.h).
#include "sim/fwk/tbuf_pool.h"

namespace aicore::sim {

void TBufPoolState::Init(uint64_t base, uint64_t length) {
  range_ = BumpAllocator(base, length);
  ids_used_ = 0;
  initialized_ = true;
}

void TBufPoolState::Rewind() {
  range_.Rewind();
  ids_used_ = 0;
}

std::string TBufPoolState::TakeBuffers(uint64_t bytes, uint32_t count, const std::string& what,
                                       uint64_t* address, bool* out_of_memory) {
  *out_of_memory = false;
  if (count > ids_left()) {
    return what + " needs " + std::to_string(count) + " buffer" + (count == 1 ? "" : "s") +
           " but " + info_->label + " has " + std::to_string(ids_left()) +
           " of its buf_id_size = " + std::to_string(info_->buf_id_size) +
           " left. Fix: declare the pool with a larger buf_id_size (at most 16), or reset it "
           "between stages";
  }
  if (!range_.Take(bytes, address)) {
    *out_of_memory = true;
    return what + " needs " + std::to_string(bytes) + " bytes of " +
           std::string(MemSpaceName(info_->memory)) + " but " + info_->label + " has " +
           std::to_string(range_.left()) + " of its " + std::to_string(range_.length()) +
           " bytes left. Fix: give the pool more memory in init_buf_pool, or shrink the buffers";
  }
  ids_used_ += count;
  return "";
}

std::string TBufPoolState::TakeSubPool(uint64_t bytes, uint32_t ids, const std::string& what,
                                       uint64_t* address, bool* out_of_memory) {
  *out_of_memory = false;
  if (ids > ids_left()) {
    return what + ": the sub-pool's buf_id_size = " + std::to_string(ids) + " exceeds the " +
           std::to_string(ids_left()) + " buffer ids " + info_->label + " has left (of its " +
           std::to_string(info_->buf_id_size) +
           "); a non-shared sub-pool takes its ids from the parent. Fix: lower the sub-pool's "
           "buf_id_size or raise the parent's";
  }
  if (!range_.Take(bytes, address)) {
    *out_of_memory = true;
    return what + " needs " + std::to_string(bytes) + " bytes of " +
           std::string(MemSpaceName(info_->memory)) + " but " + info_->label + " has " +
           std::to_string(range_.left()) + " of its " + std::to_string(range_.length()) +
           " bytes left. Fix: give the parent pool more memory, or carve a smaller sub-pool";
  }
  ids_used_ += ids;
  return "";
}

}  // namespace aicore::sim
