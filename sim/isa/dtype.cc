// Tables behind dtype.h; indexed by the enum value.
#include "sim/isa/dtype.h"

namespace aicore::sim {
namespace {

struct DTypeRow {
  uint32_t size;
  uint32_t bits;
  bool integer;
  bool is_signed;
  bool is_float;
  std::string_view proto_name;
  std::string_view name;
};

constexpr DTypeRow kRows[kNumDTypes] = {
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

const DTypeRow& Row(DType t) {
  auto i = static_cast<uint32_t>(t);
  return kRows[i < kNumDTypes ? i : 0];
}

}  // namespace

uint32_t DTypeSize(DType t) { return Row(t).size; }
uint32_t DTypeBits(DType t) { return Row(t).bits; }
bool IsInteger(DType t) { return Row(t).integer; }
bool IsSigned(DType t) { return Row(t).is_signed; }
bool IsFloat(DType t) { return Row(t).is_float; }
std::string_view DTypeProtoName(DType t) { return Row(t).proto_name; }
std::string_view DTypeName(DType t) { return Row(t).name; }

}  // namespace aicore::sim
