// Element and scalar types of the decoded program (values mirror aicore.ir.v1.DType so the
// decoder converts by range check), with the size and name tables the model indexes.
#pragma once

#include <cstdint>
#include <string_view>

namespace aicore::sim {

enum class DType : uint8_t {
  kInvalid = 0,
  kBool = 1,
  kInt8 = 2,
  kUInt8 = 3,
  kInt16 = 4,
  kUInt16 = 5,
  kInt32 = 6,
  kUInt32 = 7,
  kInt64 = 8,
  kUInt64 = 9,
  kFloat16 = 10,
  kFloat32 = 11,
  kFloat64 = 12,
  kBFloat16 = 13,
};
inline constexpr int kNumDTypes = 14;

// Bytes per element (BOOL occupies one byte in memory); 0 for kInvalid.
uint32_t DTypeSize(DType t);
// Bits of the value: BOOL is 1, integers and floats their width.
uint32_t DTypeBits(DType t);
bool IsInteger(DType t);  // signed or unsigned integer, not BOOL
bool IsSigned(DType t);   // signed integers and floats
bool IsFloat(DType t);    // float16, bfloat16, float32, float64
// Proto-style name ("DT_FLOAT16") for decoder messages.
std::string_view DTypeProtoName(DType t);
// Config-style name ("float16") used by configs/*.textproto cost rows and reports.
std::string_view DTypeName(DType t);

}  // namespace aicore::sim
