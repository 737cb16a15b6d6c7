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
#include <type_traits>

#include "sim/bridge/bridge.h"
#include "sim/bridge/builtin_configs.h"
#include "sim/bridge/config_fields.h"
#include "sim/core/invariant.h"
#include "sim/core/quote.h"
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

constexpr size_t kMaxPlatformName = 128;        // the longest name a platform file may have
constexpr size_t kMaxOverrideBytes = 64 << 10;  // config overrides: figures, not files
constexpr char kOverridesOrigin[] = "config overrides";

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
  // A table replaces the one of its name in the layer below, so one file gives each name once.
  for (int i = 0; i < out->tables_size(); ++i) {
    for (int j = 0; j < i; ++j) {
      if (out->tables(j).name() == out->tables(i).name()) {
        return InvalidArgument(file.origin + ": field tables[" + std::to_string(i) + "] (name \"" +
                               out->tables(i).name() +
                               "\"): a second table of this name; give each table once");
      }
    }
  }
  return Status::Ok();
}

// Applies `platform` over `preset`: every field the platform sets replaces the preset's, a
// vector cost row replaces the preset's row of the same op and dtype, and a table the preset's
// table of its name, whole (others are added).
cfg::SocDescription ApplyOverrides(const cfg::SocDescription& preset,
                                   const cfg::SocDescription& platform) {
  cfg::SocDescription merged = preset;
  cfg::SocDescription rest = platform;
  rest.mutable_vector()->clear_costs();
  rest.clear_tables();
  merged.MergeFrom(rest);
  for (const cfg::FigureTable& table : platform.tables()) {
    cfg::FigureTable* same = nullptr;
    for (cfg::FigureTable& existing : *merged.mutable_tables()) {
      if (existing.name() == table.name()) same = &existing;
    }
    *(same != nullptr ? same : merged.add_tables()) = table;
  }
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
        // Rows are found by their op or name: vector.costs[49] (op "copy").dtype.
        std::string name = sub + "[" + std::to_string(k) + "]";
        for (const char* key : {"op", "name"}) {
          const pb::FieldDescriptor* id = row.GetDescriptor()->FindFieldByName(key);
          if (id != nullptr && id->type() == pb::FieldDescriptor::TYPE_STRING &&
              row.GetReflection()->HasField(row, id)) {
            name +=
                std::string(" (") + key + " \"" + row.GetReflection()->GetString(row, id) + "\")";
          }
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

// Figures given in physical units, per cycle at the clock.
double PerCycle(double per_second, double clock_mhz) { return per_second / (clock_mhz * 1e6); }
double NsToCycles(double ns, double clock_mhz) { return ns * clock_mhz / 1000.0; }

// Where a description gives a figure (the `from` column of soc_figures.def): the resolved
// config's own path, or another field converted at the clock.
struct Source {
  const char* path = nullptr;
  double (*convert)(double, double clock_mhz) = nullptr;  // nullptr: the own path, as it is
};
constexpr Source Same() { return {}; }
constexpr Source PerSecond(const char* path) { return {path, &PerCycle}; }
constexpr Source Nanoseconds(const char* path) { return {path, &NsToCycles}; }

// A converted figure at the precision the model holds it: 0.01 for bandwidths and fractional
// overheads, whole cycles for an integer figure (the launch overhead).
template <typename T>
T Held(double v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::round(v * 100.0) / 100.0;
  } else {
    return static_cast<T>(std::llround(v));
  }
}

template <typename T>
void Describe(const cfg::SocDescription& d, const char* path, Source from, double clock_mhz,
              T* out) {
  if (from.convert == nullptr) {
    GetField(d, path, out);
  } else if constexpr (std::is_arithmetic_v<T>) {
    double v = 0;
    GetField(d, from.path, &v);
    *out = Held<T>(from.convert(v, clock_mhz));
  } else {
    SIM_CHECK(false, std::string("config figure \"") + path + "\" converts a non-number");
  }
}

void CopyCosts(const cfg::VectorUnit& v, SocConfig* c) {
  for (const cfg::VectorCost& row : v.costs()) {
    c->vector_costs.push_back(
        {row.op(), row.dtype(), row.per_call_cycles(), row.cycles_per_repeat()});
  }
}

// The tables of a description or resolved config, by name (one figure stored once: the
// duplicate check is ValidateSocConfig's).
template <typename Message>
void CopyTables(const Message& m, SocConfig* c) {
  for (const cfg::FigureTable& t : m.tables()) {
    FigureTable table;
    table.name = t.name();
    table.source = t.source();
    table.columns.assign(t.columns().begin(), t.columns().end());
    for (const cfg::FigureRow& row : t.rows()) {
      table.rows.emplace_back(row.values().begin(), row.values().end());
    }
    c->tables.push_back(std::move(table));
  }
  std::stable_sort(c->tables.begin(), c->tables.end(),
                   [](const FigureTable& a, const FigureTable& b) { return a.name < b.name; });
}

// A description's figures at its clock.
SocConfig Resolve(const cfg::SocDescription& p) {
  SocConfig c;
  double mhz = p.clock_mhz();
#define AICORE_SOC_FIGURE(type, member, path, check, from) Describe(p, path, from, mhz, &c.member);
#define AICORE_SOC_PART(member, path, check, from) Describe(p, path, from, mhz, &c.member);
#define AICORE_SOC_RULE(rule)
#include "sim/core/soc_figures.def"
  CopyCosts(p.vector(), &c);
  CopyTables(p, &c);
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

StatusOr<SocConfig> ParseSocConfig(const std::string& textproto, const std::string& origin,
                                   const std::string& overrides) {
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
  if (!overrides.empty()) {
    // A third layer over the platform file: figures only, as a session's or a fit's trial.
    if (overrides.size() > kMaxOverrideBytes) {
      return InvalidArgument(std::string(kOverridesOrigin) + ": " +
                             std::to_string(overrides.size()) + " bytes, more than the " +
                             std::to_string(kMaxOverrideBytes) +
                             " allowed; give only the figures that change");
    }
    cfg::SocDescription trial;
    if (Status s = ParseText({overrides, kOverridesOrigin}, &trial); !s.ok()) return s;
    if (trial.has_name() || trial.has_preset()) {
      return InvalidArgument(std::string(kOverridesOrigin) + ": field " +
                             (trial.has_name() ? "name" : "preset") +
                             ": overrides change figures of the session's platform, not which "
                             "platform or preset it is; choose those with the platform");
    }
    merged = ApplyOverrides(merged, trial);
    where += " with " + std::string(kOverridesOrigin);
  }
  if (std::string unset = FirstUnset(merged, ""); !unset.empty()) {
    return InvalidArgument(where + ": field " + unset + " is not set; give it in " +
                           (platform.has_preset() ? "the preset or the platform file"
                                                  : "the file (or name a preset that has it)"));
  }
  SocConfig config = Resolve(merged);
  Status s = ValidateSocConfig(config, overrides.empty() ? origin : where);
  if (!s.ok()) return s;
  return config;
}

StatusOr<SocConfig> LoadSocConfig(const std::string& platform, const std::string& overrides) {
  std::string name = platform.empty() ? kDefaultPlatform : platform;
  if (!IsPlainName(name) || name.size() > kMaxPlatformName) {
    return InvalidArgument("field platform: " + Quoted(name) +
                           " is not a platform name (letters, digits, '_', '-', '.'; at most " +
                           std::to_string(kMaxPlatformName) +
                           " bytes; known: " + Join(ListPlatforms()) + ")");
  }
  ConfigFile file;
  if (const char* dir = ConfigDir()) {
    file.origin = std::string(dir) + "/" + name + ".textproto";
    std::optional<std::string> text = ReadFile(file.origin);
    if (!text) {
      return InvalidArgument("field platform: unknown platform " + Quoted(name) + ": " +
                             file.origin +
                             " does not exist (AICORE_SIM_CONFIG_DIR is set; built-in platforms: " +
                             Join(ListPlatforms()) + ")");
    }
    file.text = std::move(*text);
  } else {
    const std::string* text = Builtin(name);
    if (text == nullptr || name.rfind(kPresetPrefix, 0) == 0) {
      return InvalidArgument("field platform: unknown platform " + Quoted(name) +
                             " (known: " + Join(ListPlatforms()) + ")");
    }
    file = ConfigFile{*text, "configs/" + name + ".textproto"};
  }
  StatusOr<SocConfig> config = ParseSocConfig(file.text, file.origin, overrides);
  if (!config.ok()) return config;
  if (config->name != name) {
    return InvalidArgument(file.origin + ": field name: \"" + config->name +
                           "\" does not match the platform name \"" + name + "\"");
  }
  return config;
}

SocConfig FromProto(const cfg::SocConfig& p) {
  SocConfig c;
#define AICORE_SOC_FIGURE(type, member, path, check, from) GetField(p, path, &c.member);
#define AICORE_SOC_PART(member, path, check, from) GetField(p, path, &c.member);
#define AICORE_SOC_RULE(rule)
#include "sim/core/soc_figures.def"
  CopyCosts(p.vector(), &c);
  CopyTables(p, &c);
  return c;
}

void ToProto(const SocConfig& c, cfg::SocConfig* out) {
  out->Clear();
#define AICORE_SOC_FIGURE(type, member, path, check, from) SetField(out, path, c.member);
#define AICORE_SOC_PART(member, path, check, from) SetField(out, path, c.member);
#define AICORE_SOC_RULE(rule)
#include "sim/core/soc_figures.def"
  for (const VectorCostRow& r : c.vector_costs) {
    cfg::VectorCost* v = out->mutable_vector()->add_costs();
    v->set_op(r.op);
    v->set_dtype(r.dtype);
    v->set_per_call_cycles(r.per_call_cycles);
    v->set_cycles_per_repeat(r.cycles_per_repeat);
  }
  for (const FigureTable& t : c.tables) {
    cfg::FigureTable* table = out->add_tables();
    table->set_name(t.name);
    table->set_source(t.source);
    for (const std::string& column : t.columns) table->add_columns(column);
    for (const std::vector<double>& row : t.rows) {
      cfg::FigureRow* r = table->add_rows();
      for (double v : row) r->add_values(v);
    }
  }
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
