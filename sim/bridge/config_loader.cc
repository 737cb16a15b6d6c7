// SoC configs: parse a textproto (unknown fields rejected, every figure checked), convert it to
// the plain SocConfig the model uses, and find platforms in the built-in table or in
// $AICORE_SIM_CONFIG_DIR.
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sim/bridge/bridge.h"
#include "sim/bridge/builtin_configs.h"
#include "sim/soc/config_check.h"

namespace aicore::sim {
namespace {

namespace cfg = aicore::config::v1;

constexpr char kDefaultPlatform[] = "Ascend910B1";

class Collector : public google::protobuf::io::ErrorCollector {
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

SocConfig FromProto(const cfg::SocConfig& p) {
  SocConfig c;
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
  const cfg::QueueDepths& q = p.queue_depth();
  c.queue_depth_vector = q.vector();
  c.queue_depth_cube = q.cube();
  c.queue_depth_mte1 = q.mte1();
  c.queue_depth_mte2 = q.mte2();
  c.queue_depth_mte3 = q.mte3();
  c.queue_depth_fixpipe = q.fixpipe();
  c.scalar_op_cycles = p.scalar().op_cycles();
  c.scalar_issue_cycles = p.scalar().issue_cycles();
  c.vector_repeat_bytes = p.vector().repeat_bytes();
  for (const cfg::VectorCost& v : p.vector().costs()) {
    c.vector_costs.push_back({v.op(), v.dtype(), v.per_call_cycles(), v.cycles_per_repeat()});
  }
  auto dma = [](const cfg::DmaCost& d) {
    return DmaCostConfig{d.fixed_cycles(), d.per_burst_cycles(), d.core_bytes_per_cycle()};
  };
  c.mte2 = dma(p.mte2());
  c.mte3 = dma(p.mte3());
  c.ub_copy = dma(p.ub_copy());
  c.hbm_read_bytes_per_cycle = p.gm().hbm_read_bytes_per_cycle();
  c.hbm_write_bytes_per_cycle = p.gm().hbm_write_bytes_per_cycle();
  c.hbm_transfer_overhead_cycles = p.gm().hbm_transfer_overhead_cycles();
  c.gm_request_bytes = p.gm().request_bytes();
  c.gm_misaligned_efficiency = p.gm().misaligned_efficiency();
  c.gm_latency_cycles = p.gm().latency_cycles();
  c.gm_alloc_alignment_bytes = p.gm().alloc_alignment_bytes();
  c.gm_alloc_slack_bytes = p.gm().alloc_slack_bytes();
  c.flag_ids_per_event = p.flag_ids_per_event();
  c.flag_latency_cycles = p.flag_latency_cycles();
  c.barrier_cycles = p.barrier_cycles();
  c.launch_overhead_cycles = p.launch_overhead_cycles();
  c.launch_overhead_per_core_cycles = p.launch_overhead_per_core_cycles();
  c.l2 = L2Config{p.l2().line_bytes(), p.l2().ways(), p.l2().bytes_per_cycle(),
                  p.l2().hit_latency_cycles(), p.l2().write_allocate()};
  c.ub_banks =
      UbBankConfig{p.ub_banks().block_bytes(), p.ub_banks().groups(), p.ub_banks().bank_bytes()};
  return c;
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

std::string KnownList() {
  std::string s;
  for (const std::string& n : ListPlatforms()) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

}  // namespace

std::vector<std::string> ListPlatforms() {
  std::vector<std::string> names;
  for (const auto& [name, text] : BuiltinConfigs()) names.push_back(name);
  // By name, not by the embedding order (file paths sort "B4-1.textproto" before "B4.textproto").
  std::sort(names.begin(), names.end());
  return names;
}

StatusOr<SocConfig> ParseSocConfig(const std::string& textproto, const std::string& origin) {
  cfg::SocConfig proto;
  google::protobuf::TextFormat::Parser parser;
  Collector errors;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(false);
  if (!parser.ParseFromString(textproto, &proto)) {
    return InvalidArgument(origin + ": " +
                           (errors.first().empty() ? "parse error" : errors.first()));
  }
  SocConfig config = FromProto(proto);
  Status s = ValidateSocConfig(config, origin);
  if (!s.ok()) return s;
  return config;
}

StatusOr<SocConfig> LoadSocConfig(const std::string& platform) {
  std::string name = platform.empty() ? kDefaultPlatform : platform;
  if (!IsPlainName(name)) {
    return InvalidArgument("platform name \"" + name +
                           "\" is not a plain name (known: " + KnownList() + ")");
  }
  std::string text;
  std::string origin;
  const char* dir = std::getenv("AICORE_SIM_CONFIG_DIR");
  if (dir != nullptr && *dir != '\0') {
    origin = std::string(dir) + "/" + name + ".textproto";
    std::ifstream in(origin);
    if (!in) {
      return NotFound("unknown platform \"" + name + "\": " + origin +
                      " does not exist (AICORE_SIM_CONFIG_DIR is set; built-in platforms: " +
                      KnownList() + ")");
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  } else {
    bool found = false;
    for (const auto& [n, t] : BuiltinConfigs()) {
      if (n == name) {
        text = t;
        found = true;
        break;
      }
    }
    if (!found) {
      return NotFound("unknown platform \"" + name + "\" (known: " + KnownList() + ")");
    }
    origin = "configs/" + name + ".textproto";
  }
  StatusOr<SocConfig> config = ParseSocConfig(text, origin);
  if (!config.ok()) return config;
  if (config->name != name) {
    return InvalidArgument(origin + ": field name: \"" + config->name +
                           "\" does not match the platform name \"" + name + "\"");
  }
  return config;
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
  cfg::QueueDepths* q = out->mutable_queue_depth();
  q->set_vector(c.queue_depth_vector);
  q->set_cube(c.queue_depth_cube);
  q->set_mte1(c.queue_depth_mte1);
  q->set_mte2(c.queue_depth_mte2);
  q->set_mte3(c.queue_depth_mte3);
  q->set_fixpipe(c.queue_depth_fixpipe);
  out->mutable_scalar()->set_op_cycles(c.scalar_op_cycles);
  out->mutable_scalar()->set_issue_cycles(c.scalar_issue_cycles);
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
  g->set_alloc_slack_bytes(c.gm_alloc_slack_bytes);
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
}

}  // namespace aicore::sim
