// The metrics registry and its Prometheus text rendering (see metrics.h).
#include "src/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <system_error>

namespace aicore::daemon {
namespace {

bool IsMetricNameChar(char c, bool first) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  return letter || (!first && c >= '0' && c <= '9');
}

bool IsLabelNameChar(char c, bool first) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return letter || (!first && c >= '0' && c <= '9');
}

template <typename CharTest>
bool IsValidName(const std::string& name, CharTest is_name_char) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!is_name_char(name[i], i == 0)) return false;
  }
  return true;
}

void ValidateMetricName(const std::string& name) {
  if (!IsValidName(name, IsMetricNameChar)) {
    throw std::invalid_argument("invalid metric name \"" + name +
                                "\": a metric name must match [a-zA-Z_:][a-zA-Z0-9_:]*");
  }
}

// Sorts `labels` by name (the series' identity) and checks their names.
void NormalizeLabels(const std::string& metric, Labels& labels) {
  for (const auto& [label, value] : labels) {
    if (!IsValidName(label, IsLabelNameChar)) {
      throw std::invalid_argument("invalid label name \"" + label + "\" of metric \"" + metric +
                                  "\": a label name must match [a-zA-Z_][a-zA-Z0-9_]*");
    }
  }
  std::sort(labels.begin(), labels.end());
  const auto repeated =
      std::adjacent_find(labels.begin(), labels.end(),
                         [](const auto& a, const auto& b) { return a.first == b.first; });
  if (repeated != labels.end()) {
    throw std::invalid_argument("label \"" + repeated->first + "\" given twice for metric \"" +
                                metric + "\": each label name may appear once per series");
  }
}

// HELP text escapes backslash and newline; label values also escape the double quote.
std::string EscapeHelp(const std::string& help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Every integral double below 2^63 is exact as an int64: print its digits, no exponent.
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (value == std::trunc(value) && std::fabs(value) < kTwoTo63) {
    return std::to_string(static_cast<int64_t>(value));
  }
  char buffer[64];
  // Shortest text that parses back to the same double.
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (error != std::errc()) return "NaN";  // cannot happen with 64 bytes; keeps the line valid
  return std::string(buffer, end);
}

void Counter::Increment(double amount) {
  if (!(amount >= 0)) {
    throw std::invalid_argument("counter increment " + FormatMetricValue(amount) +
                                " refused: a counter only goes up; use a Gauge for values "
                                "that fall");
  }
  value_.fetch_add(amount, std::memory_order_relaxed);
}

MetricsRegistry::MetricsRegistry() = default;
MetricsRegistry::~MetricsRegistry() = default;

MetricsRegistry::Series& MetricsRegistry::FindOrCreate(const std::string& name,
                                                       const std::string& help, Kind kind,
                                                       Labels& labels, bool* created) {
  ValidateMetricName(name);
  NormalizeLabels(name, labels);
  auto [family_it, new_family] = families_.try_emplace(name);
  Family& family = family_it->second;
  if (new_family) {
    family.help = help;
    family.kind = kind;
  } else if (family.kind != kind) {
    throw std::invalid_argument("metric \"" + name + "\" registered as both a counter and a " +
                                "gauge: give the second one its own name");
  } else if (family.help != help) {
    throw std::invalid_argument("metric \"" + name + "\" registered with two help texts (\"" +
                                family.help + "\" and \"" + help +
                                "\"): every series of a metric shares one help text");
  }
  auto [series_it, new_series] = family.series.try_emplace(labels);
  *created = new_series;
  return series_it->second;
}

Counter& MetricsRegistry::GetCounter(const std::string& name, const std::string& help,
                                     Labels labels) {
  std::lock_guard lock(mutex_);
  bool created = false;
  Series& series = FindOrCreate(name, help, Kind::kCounter, labels, &created);
  if (created) series.counter = std::make_unique<Counter>();
  return *series.counter;
}

Gauge& MetricsRegistry::GetGauge(const std::string& name, const std::string& help, Labels labels) {
  std::lock_guard lock(mutex_);
  bool created = false;
  Series& series = FindOrCreate(name, help, Kind::kGauge, labels, &created);
  if (created) {
    series.gauge = std::make_unique<Gauge>();
  } else if (!series.gauge) {
    throw std::invalid_argument("gauge \"" + name +
                                "\" with these labels is a callback gauge: it has no value to "
                                "set; register the settable one under other labels");
  }
  return *series.gauge;
}

void MetricsRegistry::AddCallbackGauge(const std::string& name, const std::string& help,
                                       Labels labels, std::function<double()> read) {
  if (!read) {
    throw std::invalid_argument("callback gauge \"" + name + "\" given an empty function");
  }
  std::lock_guard lock(mutex_);
  bool created = false;
  Series& series = FindOrCreate(name, help, Kind::kGauge, labels, &created);
  if (!created) {
    throw std::invalid_argument("callback gauge \"" + name +
                                "\" registered twice with the same labels: each series has one "
                                "source of its value");
  }
  series.read = std::move(read);
}

std::string MetricsRegistry::Render() const {
  // Families and series are never removed or changed once created, so pointers taken under the
  // lock stay valid after it; callbacks then run without it (they may take other locks).
  struct SeriesView {
    const Labels* labels;
    const Series* series;
  };
  struct FamilyView {
    const std::string* name;
    const Family* family;
    std::vector<SeriesView> series;
  };
  std::vector<FamilyView> snapshot;
  {
    std::lock_guard lock(mutex_);
    snapshot.reserve(families_.size());
    for (const auto& [name, family] : families_) {
      FamilyView view{&name, &family, {}};
      view.series.reserve(family.series.size());
      for (const auto& [labels, series] : family.series) view.series.push_back({&labels, &series});
      snapshot.push_back(std::move(view));
    }
  }

  std::string out;
  for (const FamilyView& view : snapshot) {
    const std::string& name = *view.name;
    out += "# HELP " + name + " " + EscapeHelp(view.family->help) + "\n";
    out += "# TYPE " + name + (view.family->kind == Kind::kCounter ? " counter\n" : " gauge\n");
    for (const SeriesView& entry : view.series) {
      out += name;
      if (!entry.labels->empty()) {
        out += '{';
        bool first = true;
        for (const auto& [label, value] : *entry.labels) {
          if (!first) out += ',';
          first = false;
          out += label + "=\"" + EscapeLabelValue(value) + "\"";
        }
        out += '}';
      }
      double value = 0;
      const Series& series = *entry.series;
      if (series.counter) {
        value = series.counter->Value();
      } else if (series.gauge) {
        value = series.gauge->Value();
      } else {
        try {
          value = series.read();
        } catch (...) {
          value = std::nan("");
        }
      }
      out += ' ' + FormatMetricValue(value) + '\n';
    }
  }
  return out;
}

}  // namespace aicore::daemon
