// The cube family's semantics (see cube.h; ascendc-semantics.md 1-4).
#include "sim/isa/semantics/cube.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "sim/core/invariant.h"
#include "sim/isa/fp16.h"

namespace aicore::sim::cube {

namespace {

constexpr MmadTypeRow kMmadTypes[] = {
    {MmadTypes::kF16F32, "f16_to_f32", 16, 16, false},
    {MmadTypes::kBf16F32, "bf16_2_f32", 16, 16, false},
    {MmadTypes::kF32F32, "f32_2_f32", 32, 8, false},
    {MmadTypes::kS8S32, "s8", 8, 32, true},
    {MmadTypes::kS4S32, "s4", 4, 64, true},
};

void Mark(uint8_t* written, uint64_t at, uint64_t bytes) { std::memset(written + at, 1, bytes); }

// Element `e` of an operand of `row`'s input type, exactly: half and bf16 widen to float
// without rounding, int4 elements are packed two per byte, the even one in the low nibble (the
// model's choice: the references do not give the nibble order).
double FloatElement(const MmadTypeRow& row, const uint8_t* base, uint64_t e) {
  if (row.types == MmadTypes::kF32F32) {
    float f;
    std::memcpy(&f, base + e * 4, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, base + e * 2, 2);
  return row.types == MmadTypes::kF16F32 ? HalfToFloat(bits) : Bf16ToFloat(bits);
}

int64_t IntElement(const MmadTypeRow& row, const uint8_t* base, uint64_t e) {
  if (row.types == MmadTypes::kS8S32) return static_cast<int8_t>(base[e]);
  uint8_t nibble = (base[e / 2] >> ((e % 2) * 4)) & 0xfu;
  return nibble >= 8 ? static_cast<int64_t>(nibble) - 16 : nibble;
}

int32_t SaturateInt32(int64_t v) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}

}  // namespace

const MmadTypeRow& MmadTypeOf(MmadTypes t) {
  for (const MmadTypeRow& row : kMmadTypes) {
    if (row.types == t) return row;
  }
  SIM_CHECK(false, "an Mmad type combination without a row");
  return kMmadTypes[0];
}

// ---- ND -> NZ -----------------------------------------------------------------------------------

uint64_t Nd2NzSrcElements(const Nd2NzArgs& a) {
  if (a.nd_num == 0 || a.n_value == 0 || a.d_value == 0) return 0;
  return uint64_t{a.nd_num - 1} * a.src_nd_matrix_stride + uint64_t{a.n_value - 1} * a.src_d_value +
         a.d_value;
}

uint64_t Nd2NzDstBytes(const Nd2NzArgs& a) {
  if (a.nd_num == 0 || a.n_value == 0 || a.d_value == 0) return 0;
  uint64_t c0 = kRowBytes / a.esize;
  uint64_t blocks = CeilTo(a.d_value, c0) / c0;
  return uint64_t{a.nd_num - 1} * a.dst_nz_matrix_stride * a.esize +
         (blocks - 1) * a.dst_nz_c0_stride * kRowBytes +
         uint64_t{a.n_value - 1} * a.dst_nz_n_stride * kRowBytes + kRowBytes;
}

void Nd2Nz(const Nd2NzArgs& a, const uint8_t* src, uint8_t* image, uint8_t* written) {
  if (Nd2NzDstBytes(a) == 0) return;
  uint64_t es = a.esize;
  uint64_t c0 = kRowBytes / es;
  uint64_t padded = CeilTo(a.d_value, c0);
  for (uint64_t i = 0; i < a.nd_num; ++i) {
    for (uint64_t r = 0; r < a.n_value; ++r) {
      const uint8_t* row = src + (i * a.src_nd_matrix_stride + r * a.src_d_value) * es;
      for (uint64_t d = 0; d < padded; ++d) {
        uint64_t at = i * a.dst_nz_matrix_stride * es + (d / c0) * a.dst_nz_c0_stride * kRowBytes +
                      r * a.dst_nz_n_stride * kRowBytes + (d % c0) * es;
        if (d < a.d_value) {
          std::memcpy(image + at, row + d * es, es);
        } else {
          std::memset(image + at, 0, es);  // the last block's row is padded to 32 bytes
        }
        Mark(written, at, es);
      }
    }
  }
}

// ---- LoadData 2D ----------------------------------------------------------------------------

uint64_t LoadData2DSrcBytes(const LoadData2DArgs& a) {
  if (a.repeat_times == 0) return 0;
  return (uint64_t{a.start_index} + uint64_t{a.repeat_times - 1} * a.src_stride + 1) *
         kFractalBytes;
}

uint64_t LoadData2DDstBytes(const LoadData2DArgs& a) {
  if (a.repeat_times == 0) return 0;
  return (uint64_t{a.repeat_times - 1} * (uint64_t{a.dst_gap} + 1) + 1) * kFractalBytes;
}

void LoadData2D(const LoadData2DArgs& a, const uint8_t* src, uint8_t* image, uint8_t* written) {
  for (uint64_t i = 0; i < a.repeat_times; ++i) {
    const uint8_t* from = src + (a.start_index + i * a.src_stride) * kFractalBytes;
    uint8_t* to = image + i * (uint64_t{a.dst_gap} + 1) * kFractalBytes;
    if (!a.transpose) {
      std::memcpy(to, from, kFractalBytes);
    } else {
      // 16 x 16 two-byte elements: output row j is source column j.
      for (uint64_t j = 0; j < 16; ++j) {
        for (uint64_t t = 0; t < 16; ++t)
          std::memcpy(to + j * 32 + t * 2, from + t * 32 + j * 2, 2);
      }
    }
    Mark(written, static_cast<uint64_t>(to - image), kFractalBytes);
  }
}

// ---- Mmad -------------------------------------------------------------------------------------

uint64_t MmadKExtent(const MmadArgs& a) {
  const MmadTypeRow& row = MmadTypeOf(a.types);
  uint64_t align = a.types == MmadTypes::kF32F32 && a.k_direction_align ? 16 : row.c0;
  return CeilTo(a.k, align);
}

uint64_t MmadABytes(const MmadArgs& a) {
  if (a.m == 0 || a.n == 0 || a.k == 0) return 0;
  const MmadTypeRow& row = MmadTypeOf(a.types);
  uint64_t k_ext = MmadKExtent(a);
  uint64_t rows = a.m == 1 ? 1 : CeilTo(a.m, kFractalRows);  // GEMV: one ND row
  return rows * k_ext * row.input_bits / 8;
}

uint64_t MmadBBytes(const MmadArgs& a) {
  if (a.m == 0 || a.n == 0 || a.k == 0) return 0;
  const MmadTypeRow& row = MmadTypeOf(a.types);
  return MmadKExtent(a) * CeilTo(a.n, kFractalRows) * row.input_bits / 8;
}

uint64_t MmadBiasBytes(const MmadArgs& a) {
  return a.bias && a.m != 0 && a.n != 0 && a.k != 0 ? uint64_t{a.n} * 4 : 0;
}

uint64_t MmadCBytes(const MmadArgs& a) {
  if (a.m == 0 || a.n == 0 || a.k == 0) return 0;
  return CeilTo(a.n, 16) * CeilTo(a.m, 16) * 4;
}

namespace {

// One output element per (m, n), C of type T (float, or int32 for the integer rows): its start
// (0, C_old or the bias), then one chunk of K at a time, rounded or saturated after each.
template <typename T>
void MmadElements(const MmadArgs& a, const MmadTypeRow& row, const uint8_t* l0a, const uint8_t* l0b,
                  const uint8_t* bias, const uint8_t* c_old, uint8_t* image, uint8_t* written) {
  uint64_t c0 = row.c0;
  uint64_t k1 = MmadKExtent(a) / c0;
  uint64_t n1 = CeilTo(a.n, 16) / 16;
  uint64_t m_rows = CeilTo(a.m, 16);
  bool gemv = a.m == 1;
  // cmatrixInitVal wins over cmatrixSource when both are set (3.2: unconfirmed, the doc implies).
  bool from_bias = a.bias && !a.init;
  bool accumulate = !a.init && !a.bias;
  for (uint64_t m = 0; m < a.m; ++m) {
    for (uint64_t n = 0; n < a.n; ++n) {
      uint64_t at = L0cOffset(m, n, m_rows) * 4;
      T c = 0;
      if (from_bias) std::memcpy(&c, bias + n * 4, 4);
      if (accumulate) std::memcpy(&c, c_old + at, 4);
      for (uint64_t q = 0; q * c0 < a.k; ++q) {
        uint64_t end = std::min<uint64_t>((q + 1) * c0, a.k);
        if constexpr (std::is_same_v<T, int32_t>) {
          int64_t sum = 0;
          for (uint64_t k = q * c0; k < end; ++k) {
            sum += IntElement(row, l0a, gemv ? k : ZzOffset(m, k, k1, c0)) *
                   IntElement(row, l0b, ZnOffset(k, n, n1, c0));
          }
          c = SaturateInt32(int64_t{c} + sum);
        } else {
          double sum = 0;
          for (uint64_t k = q * c0; k < end; ++k) {
            sum += FloatElement(row, l0a, gemv ? k : ZzOffset(m, k, k1, c0)) *
                   FloatElement(row, l0b, ZnOffset(k, n, n1, c0));
          }
          c = static_cast<float>(static_cast<double>(c) + sum);  // one rounding per chunk
        }
      }
      std::memcpy(image + at, &c, 4);
      Mark(written, at, 4);
    }
  }
}

}  // namespace

void Mmad(const MmadArgs& a, const uint8_t* l0a, const uint8_t* l0b, const uint8_t* bias,
          const uint8_t* c_old, uint8_t* image, uint8_t* written) {
  if (MmadCBytes(a) == 0) return;
  const MmadTypeRow& row = MmadTypeOf(a.types);
  if (row.integer) {
    MmadElements<int32_t>(a, row, l0a, l0b, bias, c_old, image, written);
  } else {
    MmadElements<float>(a, row, l0a, l0b, bias, c_old, image, written);
  }
}

// ---- Fixpipe ----------------------------------------------------------------------------------

namespace {

uint64_t FixpipeSrcElement(const FixpipeArgs& a, uint64_t j, uint64_t c) {
  return (c / 16) * a.src_stride * 16 + j * 16 + c % 16;
}

uint64_t FixpipeDstByte(const FixpipeArgs& a, uint64_t j, uint64_t c) {
  uint64_t es = FixpipeDstElementBytes(a);
  if (a.nz2nd) return (j * a.dst_stride + c) * es;
  return (c / 16) * a.dst_stride * kRowBytes + j * 16 * es + (c % 16) * es;
}

// F322F16 / F322BF16 "do not support INF_NAN mode" (4.4): out-of-range values saturate to the
// largest finite value and NaN becomes 0 (the model's reading of "saturate").
uint16_t SaturatingHalf(float x) {
  if (std::isnan(x)) return 0;
  uint16_t h = FloatToHalf(x);
  if ((h & 0x7fffu) == 0x7c00u) h = static_cast<uint16_t>((h & 0x8000u) | 0x7bffu);
  return h;
}

uint16_t SaturatingBf16(float x) {
  if (std::isnan(x)) return 0;
  uint16_t b = FloatToBf16(x);
  if ((b & 0x7fffu) == 0x7f80u) b = static_cast<uint16_t>((b & 0x8000u) | 0x7f7fu);
  return b;
}

}  // namespace

uint32_t FixpipeDstElementBytes(const FixpipeArgs& a) {
  return a.quant == FixpipeQuant::kNone ? 4 : 2;
}

uint64_t FixpipeSrcBytes(const FixpipeArgs& a) {
  uint64_t end = 0;
  for (uint64_t c = 0; a.m != 0 && c < a.n; ++c) {
    end = std::max(end, FixpipeSrcElement(a, a.m - 1, c) + 1);
  }
  return end * 4;
}

uint64_t FixpipeDstBytes(const FixpipeArgs& a) {
  uint64_t end = 0;
  for (uint64_t c = 0; a.m != 0 && c < a.n; ++c) {
    end = std::max(end, FixpipeDstByte(a, a.m - 1, c) + FixpipeDstElementBytes(a));
  }
  return end;
}

void Fixpipe(const FixpipeArgs& a, const uint8_t* l0c, uint8_t* image, uint8_t* written) {
  for (uint64_t j = 0; j < a.m; ++j) {
    for (uint64_t c = 0; c < a.n; ++c) {
      const uint8_t* from = l0c + FixpipeSrcElement(a, j, c) * 4;
      uint64_t at = FixpipeDstByte(a, j, c);
      if (a.integer) {
        int32_t v;
        std::memcpy(&v, from, 4);
        if (a.relu && v < 0) v = 0;
        std::memcpy(image + at, &v, 4);
        Mark(written, at, 4);
        continue;
      }
      float x;
      std::memcpy(&x, from, 4);
      if (a.relu && x < 0) x = 0;  // NaN stays NaN (the model's choice)
      if (a.quant == FixpipeQuant::kNone) {
        std::memcpy(image + at, &x, 4);
        Mark(written, at, 4);
        continue;
      }
      uint16_t h = a.quant == FixpipeQuant::kF322F16 ? SaturatingHalf(x) : SaturatingBf16(x);
      std::memcpy(image + at, &h, 2);
      Mark(written, at, 2);
    }
  }
}

}  // namespace aicore::sim::cube
