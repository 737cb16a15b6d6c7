// Ascend C printf formats: parsed and checked once when a kernel is decoded, then applied to the
// scalar values of a run. Integer conversions print the value widened to 64 bits and float ones
// as double (the chip's printf reads each argument with its own type, so no conversion can
// read garbage as C's would on a mismatched vararg).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/isa/dtype.h"
#include "sim/isa/program.h"
#include "sim/isa/scalar_ops.h"

namespace aicore::sim {

// Splits `format` into pieces. Returns "" or why it is rejected (an unknown or unsupported
// conversion, a `*` width, a trailing '%').
std::string ParsePrintfFormat(std::string_view format, std::vector<FormatPiece>* out);
// Number of conversions, i.e. of arguments the format takes.
uint32_t CountConversions(const std::vector<FormatPiece>& pieces);
// The text for `values` (one per conversion, of `types`).
std::string FormatPrintf(const std::vector<FormatPiece>& pieces, const ScalarValue* values,
                         const DType* types);

}  // namespace aicore::sim
