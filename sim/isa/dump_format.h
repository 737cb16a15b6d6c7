// The text of Ascend C's DumpTensor: a header naming the user's desc, the tensor's address, data
// type and position, then its first dump_size elements, nested by the ShapeInfo dims when given.
// Formatting stops once the text exceeds a byte budget, so a huge dump costs no more than the
// output space it could occupy.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/isa/dtype.h"

namespace aicore::sim {

struct DumpHeader {
  uint32_t desc = 0;
  uint64_t addr = 0;  // byte address in its memory
  DType dtype = DType::kInvalid;
  std::string_view position;  // "UB", "GM"
  uint64_t dump_size = 0;     // elements
};

// `data` holds header.dump_size elements of header.dtype; `shape` may be empty.
std::string FormatDumpTensor(const DumpHeader& header, const uint8_t* data,
                             const std::vector<uint64_t>& shape, uint64_t budget_bytes);

}  // namespace aicore::sim
