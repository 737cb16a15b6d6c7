// Element and scalar types of the decoded program (values mirror aicore.ir.v1.DType so the
// decoder converts by range check), with the size and name table the model indexes.
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

// One row per DType, indexed by its value. Inline so the scalar unit's per-op type tests
// (IsFloat, IsSigned, DTypeBits) compile to a load each.
struct DTypeRow {
  uint32_t size;
  uint32_t bits;
  bool integer;
  bool is_signed;
  bool is_float;
  std::string_view proto_name;
  std::string_view name;
};

inline constexpr DTypeRow kDTypeRows[kNumDTypes] = {
    {0, 0, false, false, false, "DT_INVALID", "invalid"},
    {1, 1, false, false, false, "DT_BOOL", "bool"},
    {1, 8, true, true, false, "DT_INT8", "int8"},
    {1, 8, true, false, false, "DT_UINT8", "uint8"},
    {2, 16, true, true, false, "DT_INT16", "int16"},
    {2, 16, true, false, false, "DT_UINT16", "uint16"},
    {4, 32, true, true, false, "DT_INT32", "int32"},
    {4, 32, true, false, false, "DT_UINT32", "uint32"},
    {8, 64, true, true, false, "DT_INT64", "int64"},
    {8, 64, true, false, false, "DT_UINT64", "uint64"},
    {2, 16, false, true, true, "DT_FLOAT16", "float16"},
    {4, 32, false, true, true, "DT_FLOAT32", "float32"},
    {8, 64, false, true, true, "DT_FLOAT64", "float64"},
    {2, 16, false, true, true, "DT_BFLOAT16", "bfloat16"},
};

// The row of `t`; an out-of-range value reads as kInvalid.
inline const DTypeRow& DTypeRowOf(DType t) {
  auto i = static_cast<uint32_t>(t);
  return kDTypeRows[i < kNumDTypes ? i : 0];
}

// Bytes per element (BOOL occupies one byte in memory); 0 for kInvalid.
inline uint32_t DTypeSize(DType t) { return DTypeRowOf(t).size; }
// Bits of the value: BOOL is 1, integers and floats their width.
inline uint32_t DTypeBits(DType t) { return DTypeRowOf(t).bits; }
// Signed or unsigned integer, not BOOL.
inline bool IsInteger(DType t) { return DTypeRowOf(t).integer; }
// Signed integers and floats.
inline bool IsSigned(DType t) { return DTypeRowOf(t).is_signed; }
// float16, bfloat16, float32, float64.
inline bool IsFloat(DType t) { return DTypeRowOf(t).is_float; }
// Proto-style name ("DT_FLOAT16") for decoder messages.
inline std::string_view DTypeProtoName(DType t) { return DTypeRowOf(t).proto_name; }
// Config-style name ("float16") used by configs/*.textproto cost rows and reports.
inline std::string_view DTypeName(DType t) { return DTypeRowOf(t).name; }

}  // namespace aicore::sim
