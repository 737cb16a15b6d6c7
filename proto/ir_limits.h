// The nesting limits of aicore.ir.v1 (kernel.proto), shared by everything that parses or decodes
// the IR: the decoder refuses regions nested deeper than kMaxRegionDepth, and every protobuf
// parse of a message carrying a kernel allows the message depth such a kernel needs, so a kernel
// the decoder accepts is never refused by the transport first (protobuf's default is 100 levels,
// about 30 nested ifs).
#pragma once

#include <cstdint>

namespace aicore::ir {

inline constexpr uint32_t kMaxRegionDepth = 64;
// Each nested region costs three message levels (Region > Op > IfOp/ForOp/WhileOp); the messages
// around the kernel body (RunRequest > RunHeader > Kernel) and leaf messages add 16. Twice the
// decoder's depth is allowed, so a kernel a little too deep is told the decoder's own limit.
inline constexpr int kMaxIrMessageDepth = 3 * 2 * static_cast<int>(kMaxRegionDepth) + 16;

}  // namespace aicore::ir
