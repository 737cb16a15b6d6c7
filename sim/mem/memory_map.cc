// A core's local memories (see memory_map.h).
#include "sim/mem/memory_map.h"

#include <string>

namespace aicore::sim {

MemoryMap::MemoryMap(const std::vector<MemorySpec>& memories) {
  for (const MemorySpec& m : memories) {
    memories_[Index(m.space)] =
        std::make_unique<LocalMemory>(std::string(MemSpaceName(m.space)), m.bytes, m.alignment);
  }
}

}  // namespace aicore::sim
