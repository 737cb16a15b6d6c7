// The version of the aicore.service.v1 protocol (simulator.proto) and the range a daemon serves;
// the compatibility policy is docs/versions.md. Bump kProtocolVersion when a change needs the
// other side to understand it (a new required field, a changed meaning); raise
// kMinProtocolVersion only when a daemon drops an old behaviour.
#pragma once

#include <cstdint>

namespace aicore::service {

inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr uint32_t kMinProtocolVersion = 1;

}  // namespace aicore::service
