// The cube family's semantics (ascendc-semantics.md 1-4), bit for bit, over byte images of the
// memories: the fractal layouts, the ND -> NZ copy into L1, LoadData 2D into L0A/L0B, Mmad and
// the Fixpipe's layout and conversion out of L0C. Pure functions: the issue stage checks the
// operands, the cube pipes call these when an instruction starts and write the images back at
// its end (only the bytes marked written, as the vector pipe's masked results).
//
// Choices where the references are silent (docs/cube.md): Mmad accumulates each output element
// over K in C0-wide chunks in increasing k, every product exact, a chunk's products summed in
// float64 in increasing k, then C = round-to-nearest-even-fp32(C + chunk sum): one rounding per
// chunk (the vendor reference model's chunking, 3.3). Integer paths are exact in int64 and
// saturate to int32 after each chunk. Elements of L0C outside the m x n region are not written.
#pragma once

#include <cstdint>

namespace aicore::sim::cube {

// Every fractal row is 32 bytes: C0 elements of its type (1.2). L1 and L0A fractals are 16 rows
// of C0, L0B fractals C0 x 16 (stored as 16 rows of C0), L0C fractals 16 x 16 32-bit elements.
inline constexpr uint64_t kFractalRows = 16;
inline constexpr uint64_t kRowBytes = 32;
inline constexpr uint64_t kFractalBytes = kFractalRows * kRowBytes;  // 512

inline uint64_t CeilTo(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

// Element offsets of the layouts (1.3).
// Nz of an R x C matrix (L1): C0-column blocks outermost, `block_rows` rows each.
inline uint64_t NzOffset(uint64_t r, uint64_t c, uint64_t c0, uint64_t block_rows) {
  return (c / c0) * block_rows * c0 + r * c0 + c % c0;
}
// Zz of A (M x K) in L0A: fractals row-major (k1 K-fractals per row of fractals).
inline uint64_t ZzOffset(uint64_t m, uint64_t k, uint64_t k1, uint64_t c0) {
  return ((m / kFractalRows) * k1 + k / c0) * kFractalRows * c0 + (m % kFractalRows) * c0 + k % c0;
}
// Zn of B (K x N) in L0B: K-fractals outer, N-fractals inner; a fractal row is one column n.
inline uint64_t ZnOffset(uint64_t k, uint64_t n, uint64_t n1, uint64_t c0) {
  return ((k / c0) * n1 + n / kFractalRows) * kFractalRows * c0 + (n % kFractalRows) * c0 + k % c0;
}
// Nz of C (M x N, 32-bit) in L0C: 16-column blocks of `m_rows` (ceil16(M)) rows.
inline uint64_t L0cOffset(uint64_t m, uint64_t n, uint64_t m_rows) {
  return (n / 16) * m_rows * 16 + m * 16 + n % 16;
}

// ---- ND -> NZ copy, GM -> L1 (1.4) ------------------------------------------------------------

struct Nd2NzArgs {
  uint32_t esize = 2;  // element bytes (b4 data moves as b8, its parameters in b8 units)
  uint32_t nd_num = 0, n_value = 0, d_value = 0;
  uint32_t src_nd_matrix_stride = 0;  // elements
  uint32_t src_d_value = 0;           // source row pitch, elements
  uint32_t dst_nz_c0_stride = 0;      // 32-byte units between C0-column blocks
  uint32_t dst_nz_n_stride = 0;       // 32-byte units between rows of a block
  uint32_t dst_nz_matrix_stride = 0;  // elements between destination matrices
};
// Elements of the source the copy reads, and bytes of L1 from dst's base it may write.
uint64_t Nd2NzSrcElements(const Nd2NzArgs& a);
uint64_t Nd2NzDstBytes(const Nd2NzArgs& a);
// Writes the copy into `image` (Nd2NzDstBytes bytes, dst's base at 0) and marks each byte it
// writes in `written`: the rows' elements, and zeros for the last C0 block's columns past
// d_value; rows past n_value are not written.
void Nd2Nz(const Nd2NzArgs& a, const uint8_t* src, uint8_t* image, uint8_t* written);

// ---- LoadData 2D, L1 -> L0A / L0B (2.1) -------------------------------------------------------

struct LoadData2DArgs {
  uint32_t start_index = 0;   // first source fractal (512-byte units from src's base)
  uint32_t repeat_times = 0;  // fractals moved
  uint32_t src_stride = 0;    // 512-byte units between the source fractals of two repeats
  uint32_t dst_gap = 0;       // 512-byte units from one destination fractal's end to the next
  bool transpose = false;     // each 16 x 16 b16 fractal transposed
};
uint64_t LoadData2DSrcBytes(const LoadData2DArgs& a);  // from src's base
uint64_t LoadData2DDstBytes(const LoadData2DArgs& a);  // from dst's base
void LoadData2D(const LoadData2DArgs& a, const uint8_t* src, uint8_t* image, uint8_t* written);

// ---- LoadDataWithTranspose, L1 -> L0A / L0B (2.2) ---------------------------------------------

struct LoadTransposeArgs {
  uint32_t esize = 2;         // element bytes: 1, 2 or 4
  uint32_t start_index = 0;   // first source square
  uint32_t repeat_times = 0;  // squares moved
  uint32_t src_stride = 0;    // squares between the sources of two repeats
  uint32_t dst_gap = 0;       // fractals from one repeat's first output fractal slot to the next
  uint32_t dst_frac_gap = 0;  // fractals between a repeat's output fractals (b8, b32)
};
// A square's fractals: 1 for b16, 2 for b8 and b32.
uint64_t TransposeSquareFractals(uint32_t esize);
uint64_t LoadTransposeSrcBytes(const LoadTransposeArgs& a);
uint64_t LoadTransposeDstBytes(const LoadTransposeArgs& a);
void LoadTranspose(const LoadTransposeArgs& a, const uint8_t* src, uint8_t* image,
                   uint8_t* written);

// ---- LoadData 3D (img2col), L1 -> L0A / L0B (2.3; docs/cube.md "LoadData 3D") -------------------

// The im2col matrix of an NC1HWC0 feature map (C1 = channels / C0 planes of l1_h x l1_w pixels of
// C0 elements, at src): row r is output pixel (r / w_out, r % w_out), column q is channel
// (q / C0 / (fh * fw)) * C0 + q % C0 of filter tap ((q / C0) % (fh * fw)) in row-major (kh, kw)
// order (the vendor's pseudocode, load3d.py). A tap outside the map reads the pad value.
struct LoadData3DArgs {
  uint32_t esize = 2;
  bool to_l0b = false;     // L0B: Zn of the block (B's K along im2col rows); else L0A: Zz
  bool transpose = false;  // L0A: Zz of the block's transpose
  uint32_t l1_h = 0, l1_w = 0, channels = 0;
  uint32_t pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;
  uint32_t stride_w = 1, stride_h = 1, filter_w = 1, filter_h = 1;  // filter_* with the +256
  uint32_t dilation_w = 1, dilation_h = 1;
  uint32_t k_start = 0, m_start = 0, k_ext = 0, m_ext = 0;
  // The repeat registers: repeat r moves the block repeat_stride * r * 16 rows (mode 0) or
  // * C0 columns (mode 1) further and places it after the previous one in one big matrix.
  uint32_t repeat_time = 1, repeat_stride = 0, repeat_mode = 0;
  uint64_t pad_bits = 0;    // PADDING's low esize bytes are a padded cell
  uint64_t src_offset = 0;  // src's byte address in L1 (the `l1` pointer is L1's start)
  uint64_t boundary = 0;    // L1 byte address past which reads wrap to 0 (0: none)
};
int64_t Load3DOutW(const LoadData3DArgs& a);  // output pixels along w (< 1: the window is wider)
int64_t Load3DOutH(const LoadData3DArgs& a);
uint64_t Load3DColumns(const LoadData3DArgs& a);   // C1 * fh * fw * C0
uint64_t Load3DSrcBytes(const LoadData3DArgs& a);  // the feature map from src
uint64_t Load3DDstFractals(const LoadData3DArgs& a);
void LoadData3D(const LoadData3DArgs& a, const uint8_t* l1, uint8_t* image, uint8_t* written);

// ---- InitConstValue into L1 / L0A / L0B ---------------------------------------------------------

struct InitConstArgs {
  uint32_t esize = 2;
  uint32_t block_bytes = 32;  // 32 in L1, 512 in L0A/L0B
  uint32_t repeat_times = 0, block_num = 0, dst_gap = 0;
  uint64_t value_bits = 0;  // the value in dst's type, little-endian
};
uint64_t InitConstDstBytes(const InitConstArgs& a);
void InitConst(const InitConstArgs& a, uint8_t* image, uint8_t* written);

// ---- Mmad (3) ---------------------------------------------------------------------------------

// The type combinations of A2 (3.3), a row each.
enum class MmadTypes : uint8_t { kF16F32, kBf16F32, kF32F32, kS8S32, kS4S32 };
struct MmadTypeRow {
  MmadTypes types;
  const char* name;     // msprof's MMAD suffix: "f16_to_f32"
  uint32_t input_bits;  // 16, 16, 32, 8, 4
  uint32_t c0;          // elements per 32-byte fractal row: 16, 16, 8, 32, 64
  bool integer;         // int32 accumulation, saturating
};
const MmadTypeRow& MmadTypeOf(MmadTypes t);

struct MmadArgs {
  MmadTypes types = MmadTypes::kF16F32;
  uint32_t m = 0, n = 0, k = 0;
  bool init = true;                // cmatrixInitVal (after isBias): C = A*B, else C += A*B
  bool bias = false;               // cmatrixSource: C = bias (1 x N, from the bias table) + A*B
  bool k_direction_align = false;  // fp32: K padded to 16 instead of 8 in L0A/L0B
  // HF32 (CTRL[46], set_hf32_mode): float inputs rounded to HF32 before multiplying, by
  // CTRL[47] (set_hf32_trans_mode) to nearest even or toward zero. Other types ignore it.
  bool hf32 = false;
  bool hf32_toward_zero = false;
};
// HF32 of a float (docs/cube.md: the model's 10 mantissa bits): its 13 low bits dropped, rounded
// to nearest even or toward zero; infinities and NaN pass unchanged.
float RoundToHf32(float x, bool toward_zero);
// K as L0A/L0B store it (whole C0 chunks; 16 for fp32 with k_direction_align) and its chunks.
uint64_t MmadKExtent(const MmadArgs& a);
// Bytes read from L0A (GEMV when m == 1: k contiguous elements), L0B and the bias table, and the
// bytes of L0C from C's base the result occupies (ceil16(m) rows of 16-column fractals).
uint64_t MmadABytes(const MmadArgs& a);
uint64_t MmadBBytes(const MmadArgs& a);
uint64_t MmadBiasBytes(const MmadArgs& a);
uint64_t MmadCBytes(const MmadArgs& a);
// C's m x n elements into `image` (MmadCBytes, laid out as L0C; `c_old` is L0C as the instruction
// starts, read when accumulating), each written byte marked in `written`.
void Mmad(const MmadArgs& a, const uint8_t* l0a, const uint8_t* l0b, const uint8_t* bias,
          const uint8_t* c_old, uint8_t* image, uint8_t* written);

// ---- Fixpipe, L0C -> GM / L1 (4) --------------------------------------------------------------

// The conversions (4.4). The quantising ones take a 64-bit quant word: from QUANT_PRE for the
// scalar modes (DEQF16, QF322B8_PRE, REQ8), one per output column for the vector modes (VDEQF16,
// VQF322B8_PRE, VREQ8), which run the same arithmetic.
enum class FixpipeQuant : uint8_t {
  kNone,      // f32 -> f32, s32 -> s32
  kF322F16,   // f32 -> half
  kF322Bf16,  // f32 -> bf16
  kDeqF16,    // s32 -> half: (pre-shift,) times M1, to half with saturation
  kQf322B8,   // f32 -> int8 / uint8: times M1, rounded, offset, clamped
  kReq8,      // s32 -> int8 / uint8: (pre-shift,) times M1, rounded, offset, clamped
};
struct FixpipeArgs {
  uint32_t m = 0, n = 0;    // rows and columns read from L0C
  uint32_t src_stride = 0;  // rows between two 16-column blocks of L0C (normally ceil16(m))
  uint32_t dst_stride = 0;  // ND: elements between rows; NZ: 32-byte units between blocks
  bool nz2nd = true;        // CFG_ROW_MAJOR: the destination is row-major
  bool relu = false;        // y = max(0, x); with a quant word, M2 = 0 for negative x
  bool integer = false;     // L0C holds int32 (int8/int4 inputs); else float
  FixpipeQuant quant = FixpipeQuant::kNone;
  uint64_t quant_word = 0;  // QUANT_PRE, the scalar modes' word
  // The vector modes' words, one little-endian uint64 per column n (nullptr: the scalar word).
  const uint8_t* quant_words = nullptr;
};

// The fields of a quant word (4.4). Where the references conflict or are silent, the model's
// choice (docs/cube.md): the pre-shift is the raw 4-bit value and the offset unsigned, as the
// vendor's golden model has them.
struct QuantWord {
  float m1 = 0;            // bits 31..13 as a float (bits 12..0 cleared)
  uint32_t shift = 0;      // bits 35..32
  bool pre_shift = false;  // bit 36 (MCB): REQ8 and DEQF16 shift first
  int32_t offset = 0;      // bits 45..37
  bool to_int8 = false;    // bit 46: int8 results, else uint8
};
QuantWord DecodeQuantWord(uint64_t word);
// M1 is neither infinite, NaN nor denormal (4.1 requires it of the quant parameters).
bool QuantScaleIsNormal(uint64_t word);
// One element of each quantising mode, as its destination's bits (4.4).
uint16_t DeqF16(int32_t x, const QuantWord& q, bool relu);
uint8_t Qf322B8(float x, const QuantWord& q, bool relu);
uint8_t Req8(int32_t x, const QuantWord& q, bool relu);

uint32_t FixpipeDstElementBytes(const FixpipeArgs& a);
uint64_t FixpipeSrcBytes(const FixpipeArgs& a);  // of L0C from the source's base
uint64_t FixpipeDstBytes(const FixpipeArgs& a);  // from the destination's base
void Fixpipe(const FixpipeArgs& a, const uint8_t* l0c, uint8_t* image, uint8_t* written);

}  // namespace aicore::sim::cube
