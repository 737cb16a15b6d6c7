// Device debug output: printf formats (parsing, rejections, C conversions), DumpTensor's text
// and the bounded sink that drops what does not fit in a core's dump space.
#include "sim/core/debug_output.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "sim/isa/dump_format.h"
#include "sim/isa/fp16.h"
#include "sim/isa/printf_format.h"

namespace aicore::sim {
namespace {

std::string Format(const char* fmt, std::vector<ScalarValue> values, std::vector<DType> types) {
  std::vector<FormatPiece> pieces;
  EXPECT_EQ(ParsePrintfFormat(fmt, &pieces), "");
  EXPECT_EQ(CountConversions(pieces), values.size());
  return FormatPrintf(pieces, values.data(), types.data());
}

ScalarValue F(double v) {
  ScalarValue s;
  s.f = v;
  return s;
}

TEST(Printf, IntegerConversionsSeeTheValueInItsOwnWidth) {
  EXPECT_EQ(Format("%d|%u|%x|%5i|%-3d|",
                   {IntValue(-1), IntValue(-1), IntValue(-1), IntValue(42), IntValue(7)},
                   {DType::kInt32, DType::kInt32, DType::kInt32, DType::kInt64, DType::kInt16}),
            "-1|4294967295|ffffffff|   42|7  |");
  EXPECT_EQ(Format("%lld %lx", {IntValue(-2), IntValue(-1)}, {DType::kInt64, DType::kInt64}),
            "-2 ffffffffffffffff");
}

TEST(Printf, FloatsAndMixedConversions) {
  EXPECT_EQ(Format("%f %.2f %e %g", {F(1.5), F(0.125), F(1500), F(0.5)},
                   {DType::kFloat32, DType::kFloat32, DType::kFloat32, DType::kFloat16}),
            "1.500000 0.12 1.500000e+03 0.5");
  // A float to %d prints its integer part; an int to %f its value (never garbage).
  EXPECT_EQ(Format("%d %f", {F(2.75), IntValue(3)}, {DType::kFloat32, DType::kInt32}),
            "2 3.000000");
  EXPECT_EQ(
      Format("100%% %c %p", {IntValue(65), IntValue(0x1000)}, {DType::kInt32, DType::kUInt64}),
      "100% A 0x1000");
}

// Found by service_fuzz (tests/fuzz): a %c of a byte >= 0x80 made the report's text invalid
// UTF-8, and conversions of large or NaN values went through undefined casts.
TEST(Printf, EveryValueFormatsDefinedAndAsValidUtf8) {
  EXPECT_EQ(Format("[%c]", {IntValue(0x80)}, {DType::kInt32}), "[\\x80]");
  EXPECT_EQ(Format("[%c]", {IntValue(-3)}, {DType::kInt32}), "[\\xfd]");
  // The low byte of a wide value, as C's conversion to unsigned char gives it.
  EXPECT_EQ(Format("[%c]", {IntValue((int64_t{1} << 40) + 'A')}, {DType::kInt64}), "[A]");
  // A UTF-8 sequence printed byte by byte stays itself.
  EXPECT_EQ(Format("%c%c", {IntValue(0xc3), IntValue(0xa9)}, {DType::kInt32, DType::kInt32}),
            "\xc3\xa9");
  EXPECT_EQ(Format("%d %d %c", {F(std::nan("")), F(1e30), F(1e30)},
                   {DType::kFloat32, DType::kFloat32, DType::kFloat32}),
            "0 9223372036854775807 \\xff");
}

TEST(Printf, BadFormatsAreRejectedWithTheReason) {
  std::vector<FormatPiece> p;
  EXPECT_NE(ParsePrintfFormat("%s", &p).find("Python str"), std::string::npos);
  EXPECT_NE(ParsePrintfFormat("%*d", &p).find("'*'"), std::string::npos);
  EXPECT_NE(ParsePrintfFormat("50%", &p).find("ends inside a conversion"), std::string::npos);
  EXPECT_NE(ParsePrintfFormat("%k", &p).find("unsupported conversion '%k'"), std::string::npos);
  EXPECT_NE(ParsePrintfFormat("%99999d", &p).find("more than 3 digits"), std::string::npos);
  EXPECT_EQ(ParsePrintfFormat("%999.3f", &p), "");
}

TEST(DumpTensor, HeaderThenValuesFlatOrByShape) {
  std::vector<uint16_t> half = {FloatToHalf(1), FloatToHalf(-2.5f), FloatToHalf(0), FloatToHalf(3)};
  DumpHeader h{5, 64, DType::kFloat16, "UB", 4};
  EXPECT_EQ(FormatDumpTensor(h, reinterpret_cast<const uint8_t*>(half.data()), {}, 1 << 20),
            "DumpTensor: desc=5, addr=64, data_type=float16, position=UB, dump_size=4\n"
            "[1.000000, -2.500000, 0.000000, 3.000000]\n");
  std::vector<int32_t> ints = {1, 2, 3, 4, 5};
  DumpHeader hi{1, 0, DType::kInt32, "GM", 5};
  EXPECT_EQ(FormatDumpTensor(hi, reinterpret_cast<const uint8_t*>(ints.data()), {2, 2}, 1 << 20),
            "DumpTensor: desc=1, addr=0, data_type=int32, position=GM, dump_size=5\n"
            "[[1, 2],\n[3, 4]],\n[5]\n");
}

TEST(DumpTensor, FormattingStopsAtTheBudget) {
  std::vector<int32_t> ints(100000, 7);
  DumpHeader h{0, 0, DType::kInt32, "GM", ints.size()};
  std::string text = FormatDumpTensor(h, reinterpret_cast<const uint8_t*>(ints.data()), {}, 1000);
  EXPECT_LT(text.size(), 1100u);
}

DebugRecord Rec(uint32_t core, uint64_t cycle, std::string text) {
  DebugRecord r;
  r.core = core;
  r.cycle = cycle;
  r.text = std::move(text);
  r.location.file = "k.py";
  r.location.line = 3;
  return r;
}

TEST(DebugSink, OrdersByCoreThenCycleAndKeepsEmissionOrderAtOneCycle) {
  DebugSink sink(100, 1000);
  sink.Add(Rec(1, 5, "c1\n"));
  sink.Add(Rec(0, 9, "b\n"));
  sink.Add(Rec(0, 2, "a\n"));
  sink.Add(Rec(0, 9, "b2\n"));
  std::string all;
  for (const DebugRecord& r : sink.Take()) all += r.text;
  EXPECT_EQ(all, "a\nb\nb2\nc1\n");
}

TEST(DebugSink, ACoreBeyondItsSpaceGetsOneNoteAndStaysSilent) {
  DebugSink sink(10, 1000);
  EXPECT_TRUE(sink.Add(Rec(0, 1, "12345678\n")));
  EXPECT_FALSE(sink.Add(Rec(0, 2, "abc\n")));
  EXPECT_FALSE(sink.Add(Rec(0, 3, "x\n")));  // would fit, but the space stays full
  EXPECT_EQ(sink.Room(0), 0u);
  EXPECT_TRUE(sink.Add(Rec(1, 1, "other\n")));
  std::vector<DebugRecord> out = sink.Take();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].kind, DebugRecord::Kind::kTruncated);
  EXPECT_NE(out[1].text.find("2 more record(s), 6 bytes dropped (limit 10 bytes per core"),
            std::string::npos);
  EXPECT_EQ(out[1].cycle, 2u);
  EXPECT_EQ(out[2].text, "other\n");
}

TEST(DebugSink, TheLaunchBoundCapsAllCores) {
  DebugSink sink(100, 8);
  EXPECT_TRUE(sink.Add(Rec(0, 1, "1234\n")));
  EXPECT_FALSE(sink.Add(Rec(1, 1, "1234\n")));
  std::vector<DebugRecord> out = sink.Take();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NE(out[1].text.find("8 bytes per launch"), std::string::npos);
}

}  // namespace
}  // namespace aicore::sim
