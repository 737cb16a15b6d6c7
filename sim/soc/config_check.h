// Checks that a SocConfig is complete and sane: every figure that must be positive is, every
// vector instruction the model implements has a cost row. Used by the config loader (textprotos)
// and by Device::Launch (hand-built configs), so no launch runs on a config with holes.
#pragma once

#include <string>

#include "sim/core/config.h"
#include "sim/core/status.h"

namespace aicore::sim {

// InvalidArgument "<origin>: field <name>: <why>" for the first problem found.
Status ValidateSocConfig(const SocConfig& config, const std::string& origin);

}  // namespace aicore::sim
