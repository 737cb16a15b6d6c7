// SoC configs: find a platform file and its preset (built in, or in $AICORE_SIM_CONFIG_DIR),
// parse both (unknown fields rejected), apply the platform's overrides to the preset, require
// every figure to be set, convert times to cycles at the platform's clock, and check the result.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "sim/bridge/bridge.h"
#include "sim/bridge/builtin_configs.h"
#include "sim/soc/config_check.h"
#include "soc_config.pb.h"

namespace aicore::sim {
namespace {

namespace cfg = aicore::config::v1;
namespace pb = google::protobuf;

constexpr char kDefaultPlatform[] = "Ascend910B1";
constexpr char kPresetPrefix[] = "presets/";

class Collector : public pb::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first_.empty()) {
      first_ = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) +
               ": " + message;
    }
  }
  void AddWarning(int, int, const std::string&) override {}
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

// A configs/ file: its text and where it came from, for messages.
struct ConfigFile {
  std::string text;
  std::string origin;  // "configs/Ascend910B1.textproto" or a path below AICORE_SIM_CONFIG_DIR
};

const char* ConfigDir() {
  const char* dir = std::getenv("AICORE_SIM_CONFIG_DIR");
  return dir != nullptr && *dir != '\0' ? dir : nullptr;
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::string* Builtin(const std::string& key) {
  for (const auto& [name, text] : BuiltinConfigs()) {
    if (name == key) return &text;
  }
  return nullptr;
}

bool IsPlainName(const std::string& s) {
  if (s.empty()) return false;
  for (char ch : s) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-' || ch == '.';
    if (!ok) return false;
  }
  return s.find("..") == std::string::npos;
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::vector<std::string> ListPresets() {
  std::vector<std::string> names;
  for (const auto& [name, text] : BuiltinConfigs()) {
    if (name.rfind(kPresetPrefix, 0) == 0) names.push_back(name.substr(sizeof(kPresetPrefix) - 1));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The preset a platform names: $AICORE_SIM_CONFIG_DIR/presets/<name>.textproto when that file
// exists, else the built-in one.
StatusOr<ConfigFile> FindPreset(const std::string& name, const std::string& requested_by) {
  if (!IsPlainName(name)) {
    return InvalidArgument(requested_by + ": field preset: \"" + name + "\" is not a plain name");
  }
  if (const char* dir = ConfigDir()) {
    std::string path = std::string(dir) + "/presets/" + name + ".textproto";
    if (std::optional<std::string> text = ReadFile(path)) return ConfigFile{*text, path};
  }
  if (const std::string* text = Builtin(kPresetPrefix + name)) {
    return ConfigFile{*text, "configs/presets/" + name + ".textproto"};
  }
  return NotFound(requested_by + ": field preset: unknown preset \"" + name +
                  "\" (known: " + Join(ListPresets()) + ")");
}

Status ParseText(const ConfigFile& file, cfg::SocDescription* out) {
  pb::TextFormat::Parser parser;
  Collector errors;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(false);
  if (!parser.ParseFromString(file.text, out)) {
    return InvalidArgument(file.origin + ": " +
                           (errors.first().empty() ? "parse error" : errors.first()));
  }
  return Status::Ok();
}

// Applies `platform` over `preset`: every field the platform sets replaces the preset's, and a
// vector cost row replaces the preset's row of the same op and dtype (others are added).
cfg::SocDescription ApplyOverrides(const cfg::SocDescription& preset,
                                   const cfg::SocDescription& platform) {
  cfg::SocDescription merged = preset;
  cfg::SocDescription rest = platform;
  rest.mutable_vector()->clear_costs();
  merged.MergeFrom(rest);
  for (const cfg::VectorCost& row : platform.vector().costs()) {
    cfg::VectorCost* same = nullptr;
    for (cfg::VectorCost& existing : *merged.mutable_vector()->mutable_costs()) {
      if (existing.op() == row.op() && existing.dtype() == row.dtype()) same = &existing;
    }
    *(same != nullptr ? same : merged.mutable_vector()->add_costs()) = row;
  }
  return merged;
}

// The path of the first figure `m` leaves unset ("gm.latency_cycles"), or "" if none.
std::string FirstUnset(const pb::Message& m, const std::string& path) {
  const pb::Descriptor* d = m.GetDescriptor();
  const pb::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const pb::FieldDescriptor* f = d->field(i);
    if (path.empty() && f->name() == "preset") continue;
    std::string sub = path + (path.empty() ? "" : ".") + f->name();
    if (f->is_repeated()) {
      if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
      for (int k = 0; k < r->FieldSize(m, f); ++k) {
        const pb::Message& row = r->GetRepeatedMessage(m, f, k);
        // Cost rows are found by their op: vector.costs[49] (op "copy").dtype.
        std::string name = sub + "[" + std::to_string(k) + "]";
        const pb::FieldDescriptor* op = row.GetDescriptor()->FindFieldByName("op");
        if (op != nullptr && row.GetReflection()->HasField(row, op)) {
          name += " (op \"" + row.GetReflection()->GetString(row, op) + "\")";
        }
        std::string found = FirstUnset(row, name);
        if (!found.empty()) return found;
      }
    } else if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
      std::string found = FirstUnset(r->GetMessage(m, f), sub);
      if (!found.empty()) return found;
    } else if (f->has_presence() && !r->HasField(m, f)) {
      return sub;
    }
  }
  return "";
}

// Per-cycle figures derived from physical ones, at the precision the model holds them: 0.01 for
// bandwidths and fractional overheads, whole cycles for the launch overhead.
double Hundredths(double v) { return std::round(v * 100.0) / 100.0; }
double PerCycle(double per_second, double clock_mhz) {
  return Hundredths(per_second / (clock_mhz * 1e6));
}
double NsToCycles(double ns, double clock_mhz) { return ns * clock_mhz / 1000.0; }

DmaCostConfig Dma(const cfg::DmaCost& d) {
  return DmaCostConfig{d.fixed_cycles(), d.per_burst_cycles(), d.core_bytes_per_cycle()};
}

// The figures a description and a resolved config hold alike (same fields in both messages).
template <typename Message>
void CopyShared(const Message& p, SocConfig* out) {
  SocConfig& c = *out;
  c.name = p.name();
  c.arch = p.arch();
  c.cube_cores = p.cube_cores();
  c.vector_cores = p.vector_cores();
  c.clock_mhz = p.clock_mhz();
  const cfg::MemorySizes& m = p.memory();
  c.ub_bytes = m.ub_bytes();
  c.l1_bytes = m.l1_bytes();
  c.l0a_bytes = m.l0a_bytes();
  c.l0b_bytes = m.l0b_bytes();
  c.l0c_bytes = m.l0c_bytes();
  c.bt_bytes = m.bt_bytes();
  c.fb_bytes = m.fb_bytes();
  c.l2_bytes = m.l2_bytes();
  c.hbm_bytes = m.hbm_bytes();
  c.ub_alignment_bytes = m.ub_alignment_bytes();
  c.l1_alignment_bytes = m.l1_alignment_bytes();
  c.l0a_alignment_bytes = m.l0a_alignment_bytes();
  c.l0b_alignment_bytes = m.l0b_alignment_bytes();
  c.l0c_alignment_bytes = m.l0c_alignment_bytes();
  c.bt_alignment_bytes = m.bt_alignment_bytes();
  c.fb_alignment_bytes = m.fb_alignment_bytes();
  const cfg::QueueDepths& q = p.queue_depth();
  c.queue_depth_vector = q.vector();
  c.queue_depth_cube = q.cube();
  c.queue_depth_mte1 = q.mte1();
  c.queue_depth_mte2 = q.mte2();
  c.queue_depth_mte3 = q.mte3();
  c.queue_depth_fixpipe = q.fixpipe();
  c.scalar_op_cycles = p.scalar().op_cycles();
  c.scalar_issue_cycles = p.scalar().issue_cycles();
  c.scalar_local_load_cycles = p.scalar().local_load_cycles();
  c.scalar_local_store_cycles = p.scalar().local_store_cycles();
  c.scalar_gm_load_cycles = p.scalar().gm_load_cycles();
  c.scalar_gm_store_cycles = p.scalar().gm_store_cycles();
  c.vector_repeat_bytes = p.vector().repeat_bytes();
  for (const cfg::VectorCost& v : p.vector().costs()) {
    c.vector_costs.push_back({v.op(), v.dtype(), v.per_call_cycles(), v.cycles_per_repeat()});
  }
  c.mte2 = Dma(p.mte2());
  c.mte3 = Dma(p.mte3());
  c.ub_copy = Dma(p.ub_copy());
  c.flag_ids_per_event = p.flag_ids_per_event();
  c.flag_latency_cycles = p.flag_latency_cycles();
  c.barrier_cycles = p.barrier_cycles();
  c.ub_banks =
      UbBankConfig{p.ub_banks().block_bytes(), p.ub_banks().groups(), p.ub_banks().bank_bytes()};
  const cfg::DebugUnit& d = p.debug();
  c.debug = DebugConfig{d.system_counter_mhz(), d.printf_cycles(), d.dump_fixed_cycles(),
                        d.output_bytes_per_core(), d.output_bytes_per_launch()};
}

// A description's figures at its clock.
SocConfig Resolve(const cfg::SocDescription& p) {
  SocConfig c;
  CopyShared(p, &c);
  const cfg::GlobalMemoryDescription& g = p.gm();
  double mhz = c.clock_mhz;
  c.hbm_read_bytes_per_cycle = PerCycle(g.hbm_read_bytes_per_second(), mhz);
  c.hbm_write_bytes_per_cycle = PerCycle(g.hbm_write_bytes_per_second(), mhz);
  c.hbm_transfer_overhead_cycles = Hundredths(NsToCycles(g.hbm_transfer_overhead_ns(), mhz));
  c.gm_request_bytes = g.request_bytes();
  c.gm_misaligned_efficiency = g.misaligned_efficiency();
  c.gm_latency_cycles = g.latency_cycles();
  c.gm_alloc_alignment_bytes = g.alloc_alignment_bytes();
  c.gm_alloc_block_bytes = g.alloc_block_bytes();
  c.launch_overhead_cycles =
      static_cast<uint64_t>(std::llround(NsToCycles(p.launch_overhead_ns(), mhz)));
  c.launch_overhead_per_core_cycles =
      static_cast<uint64_t>(std::llround(NsToCycles(p.launch_overhead_per_core_ns(), mhz)));
  const cfg::L2CacheDescription& l2 = p.l2();
  c.l2 = L2Config{l2.line_bytes(), l2.ways(), PerCycle(l2.bytes_per_second(), mhz),
                  l2.hit_latency_cycles(), l2.write_allocate()};
  return c;
}

}  // namespace

std::vector<std::string> ListPlatforms() {
  std::vector<std::string> names;
  for (const auto& [name, text] : BuiltinConfigs()) {
    if (name.rfind(kPresetPrefix, 0) != 0) names.push_back(name);
  }
  // By name, not by the embedding order (file paths sort "B4-1.textproto" before "B4.textproto").
  std::sort(names.begin(), names.end());
  return names;
}

StatusOr<SocConfig> ParseSocConfig(const std::string& textproto, const std::string& origin) {
  cfg::SocDescription platform;
  if (Status s = ParseText({textproto, origin}, &platform); !s.ok()) return s;
  cfg::SocDescription merged = platform;
  std::string where = origin;
  if (platform.has_preset()) {
    StatusOr<ConfigFile> file = FindPreset(platform.preset(), origin);
    if (!file.ok()) return file.status();
    cfg::SocDescription preset;
    if (Status s = ParseText(*file, &preset); !s.ok()) return s;
    if (preset.has_preset()) {
      return InvalidArgument(file->origin +
                             ": field preset: a preset cannot name another preset (\"" +
                             preset.preset() + "\"); put every shared figure in one preset");
    }
    merged = ApplyOverrides(preset, platform);
    where = origin + " (preset " + file->origin + ")";
  }
  if (std::string unset = FirstUnset(merged, ""); !unset.empty()) {
    return InvalidArgument(where + ": field " + unset + " is not set; give it in " +
                           (platform.has_preset() ? "the preset or the platform file"
                                                  : "the file (or name a preset that has it)"));
  }
  SocConfig config = Resolve(merged);
  Status s = ValidateSocConfig(config, origin);
  if (!s.ok()) return s;
  return config;
}

StatusOr<SocConfig> LoadSocConfig(const std::string& platform) {
  std::string name = platform.empty() ? kDefaultPlatform : platform;
  if (!IsPlainName(name)) {
    return InvalidArgument("platform name \"" + name +
                           "\" is not a plain name (known: " + Join(ListPlatforms()) + ")");
  }
  ConfigFile file;
  if (const char* dir = ConfigDir()) {
    file.origin = std::string(dir) + "/" + name + ".textproto";
    std::optional<std::string> text = ReadFile(file.origin);
    if (!text) {
      return NotFound("unknown platform \"" + name + "\": " + file.origin +
                      " does not exist (AICORE_SIM_CONFIG_DIR is set; built-in platforms: " +
                      Join(ListPlatforms()) + ")");
    }
    file.text = std::move(*text);
  } else {
    const std::string* text = Builtin(name);
    if (text == nullptr || name.rfind(kPresetPrefix, 0) == 0) {
      return NotFound("unknown platform \"" + name + "\" (known: " + Join(ListPlatforms()) + ")");
    }
    file = ConfigFile{*text, "configs/" + name + ".textproto"};
  }
  StatusOr<SocConfig> config = ParseSocConfig(file.text, file.origin);
  if (!config.ok()) return config;
  if (config->name != name) {
    return InvalidArgument(file.origin + ": field name: \"" + config->name +
                           "\" does not match the platform name \"" + name + "\"");
  }
  return config;
}

SocConfig FromProto(const cfg::SocConfig& p) {
  SocConfig c;
  CopyShared(p, &c);
  const cfg::GlobalMemory& g = p.gm();
  c.hbm_read_bytes_per_cycle = g.hbm_read_bytes_per_cycle();
  c.hbm_write_bytes_per_cycle = g.hbm_write_bytes_per_cycle();
  c.hbm_transfer_overhead_cycles = g.hbm_transfer_overhead_cycles();
  c.gm_request_bytes = g.request_bytes();
  c.gm_misaligned_efficiency = g.misaligned_efficiency();
  c.gm_latency_cycles = g.latency_cycles();
  c.gm_alloc_alignment_bytes = g.alloc_alignment_bytes();
  c.gm_alloc_block_bytes = g.alloc_block_bytes();
  c.launch_overhead_cycles = p.launch_overhead_cycles();
  c.launch_overhead_per_core_cycles = p.launch_overhead_per_core_cycles();
  c.l2 = L2Config{p.l2().line_bytes(), p.l2().ways(), p.l2().bytes_per_cycle(),
                  p.l2().hit_latency_cycles(), p.l2().write_allocate()};
  return c;
}

void ToProto(const SocConfig& c, cfg::SocConfig* out) {
  out->Clear();
  out->set_name(c.name);
  out->set_arch(c.arch);
  out->set_cube_cores(c.cube_cores);
  out->set_vector_cores(c.vector_cores);
  out->set_clock_mhz(c.clock_mhz);
  cfg::MemorySizes* m = out->mutable_memory();
  m->set_ub_bytes(c.ub_bytes);
  m->set_l1_bytes(c.l1_bytes);
  m->set_l0a_bytes(c.l0a_bytes);
  m->set_l0b_bytes(c.l0b_bytes);
  m->set_l0c_bytes(c.l0c_bytes);
  m->set_bt_bytes(c.bt_bytes);
  m->set_fb_bytes(c.fb_bytes);
  m->set_l2_bytes(c.l2_bytes);
  m->set_hbm_bytes(c.hbm_bytes);
  m->set_ub_alignment_bytes(c.ub_alignment_bytes);
  m->set_l1_alignment_bytes(c.l1_alignment_bytes);
  m->set_l0a_alignment_bytes(c.l0a_alignment_bytes);
  m->set_l0b_alignment_bytes(c.l0b_alignment_bytes);
  m->set_l0c_alignment_bytes(c.l0c_alignment_bytes);
  m->set_bt_alignment_bytes(c.bt_alignment_bytes);
  m->set_fb_alignment_bytes(c.fb_alignment_bytes);
  cfg::QueueDepths* q = out->mutable_queue_depth();
  q->set_vector(c.queue_depth_vector);
  q->set_cube(c.queue_depth_cube);
  q->set_mte1(c.queue_depth_mte1);
  q->set_mte2(c.queue_depth_mte2);
  q->set_mte3(c.queue_depth_mte3);
  q->set_fixpipe(c.queue_depth_fixpipe);
  out->mutable_scalar()->set_op_cycles(c.scalar_op_cycles);
  out->mutable_scalar()->set_issue_cycles(c.scalar_issue_cycles);
  out->mutable_scalar()->set_local_load_cycles(c.scalar_local_load_cycles);
  out->mutable_scalar()->set_local_store_cycles(c.scalar_local_store_cycles);
  out->mutable_scalar()->set_gm_load_cycles(c.scalar_gm_load_cycles);
  out->mutable_scalar()->set_gm_store_cycles(c.scalar_gm_store_cycles);
  out->mutable_vector()->set_repeat_bytes(c.vector_repeat_bytes);
  for (const VectorCostRow& r : c.vector_costs) {
    cfg::VectorCost* v = out->mutable_vector()->add_costs();
    v->set_op(r.op);
    v->set_dtype(r.dtype);
    v->set_per_call_cycles(r.per_call_cycles);
    v->set_cycles_per_repeat(r.cycles_per_repeat);
  }
  auto dma = [](const DmaCostConfig& d, cfg::DmaCost* p) {
    p->set_fixed_cycles(d.fixed_cycles);
    p->set_per_burst_cycles(d.per_burst_cycles);
    p->set_core_bytes_per_cycle(d.core_bytes_per_cycle);
  };
  dma(c.mte2, out->mutable_mte2());
  dma(c.mte3, out->mutable_mte3());
  dma(c.ub_copy, out->mutable_ub_copy());
  cfg::GlobalMemory* g = out->mutable_gm();
  g->set_hbm_read_bytes_per_cycle(c.hbm_read_bytes_per_cycle);
  g->set_hbm_write_bytes_per_cycle(c.hbm_write_bytes_per_cycle);
  g->set_hbm_transfer_overhead_cycles(c.hbm_transfer_overhead_cycles);
  g->set_request_bytes(c.gm_request_bytes);
  g->set_misaligned_efficiency(c.gm_misaligned_efficiency);
  g->set_latency_cycles(c.gm_latency_cycles);
  g->set_alloc_alignment_bytes(c.gm_alloc_alignment_bytes);
  g->set_alloc_block_bytes(c.gm_alloc_block_bytes);
  out->set_flag_ids_per_event(c.flag_ids_per_event);
  out->set_flag_latency_cycles(c.flag_latency_cycles);
  out->set_barrier_cycles(c.barrier_cycles);
  out->set_launch_overhead_cycles(c.launch_overhead_cycles);
  out->set_launch_overhead_per_core_cycles(c.launch_overhead_per_core_cycles);
  cfg::L2Cache* l2 = out->mutable_l2();
  l2->set_line_bytes(c.l2.line_bytes);
  l2->set_ways(c.l2.ways);
  l2->set_bytes_per_cycle(c.l2.bytes_per_cycle);
  l2->set_hit_latency_cycles(c.l2.hit_latency_cycles);
  l2->set_write_allocate(c.l2.write_allocate);
  cfg::UbBanks* ub = out->mutable_ub_banks();
  ub->set_block_bytes(c.ub_banks.block_bytes);
  ub->set_groups(c.ub_banks.groups);
  ub->set_bank_bytes(c.ub_banks.bank_bytes);
  cfg::DebugUnit* debug = out->mutable_debug();
  debug->set_system_counter_mhz(c.debug.system_counter_mhz);
  debug->set_printf_cycles(c.debug.printf_cycles);
  debug->set_dump_fixed_cycles(c.debug.dump_fixed_cycles);
  debug->set_output_bytes_per_core(c.debug.output_bytes_per_core);
  debug->set_output_bytes_per_launch(c.debug.output_bytes_per_launch);
}

std::string ConfigHash(const SocConfig& config) {
  cfg::SocConfig proto;
  ToProto(config, &proto);
  std::string bytes;
  {
    pb::io::StringOutputStream stream(&bytes);
    pb::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    proto.SerializeToCodedStream(&coded);
  }
  // FNV-1a, 64 bits: identifies a resolved config (two runs on the same figures share a hash);
  // not a security digest.
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : bytes) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace aicore::sim
