// The daemon's metrics: counters, gauges and gauges read at render time, rendered in the
// Prometheus text exposition format 0.0.4 for the HTTP endpoint (src/metrics_server.h).
//
// Hot paths hold the Counter& or Gauge& returned at registration and touch only its atomic; the
// registry's lock is taken when a series is looked up or created and while Render takes its
// snapshot. Series are never removed, so returned references stay valid for the registry's life.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace aicore::daemon {

// Label name/value pairs of one series. Their order does not matter: a series is identified and
// rendered by its labels sorted by name.
using Labels = std::vector<std::pair<std::string, std::string>>;

// A monotonic count (requests, simulated cycles). Negative or NaN increments are refused.
class Counter {
 public:
  void Increment(double amount = 1);
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// A value that goes up and down (sessions open, bytes held).
class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double amount) { value_.fetch_add(amount, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class MetricsRegistry {
 public:
  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // The series `name{labels}`, created on first use. Every call for one name must pass the same
  // help and the same kind (counter or gauge). An invalid metric or label name, a repeated label
  // name, a different help or kind for an existing name throw std::invalid_argument: they are
  // programming errors, found by the first test that registers the metric.
  Counter& GetCounter(const std::string& name, const std::string& help, Labels labels = {});
  Gauge& GetGauge(const std::string& name, const std::string& help, Labels labels = {});

  // A gauge whose value `read` returns when the registry renders (queue depth, bytes by kind).
  // `read` runs on the rendering thread without the registry's lock held, must be thread-safe
  // and must stay callable as long as the registry exists. Registering the same series twice
  // throws std::invalid_argument, as does a name already used by a counter.
  void AddCallbackGauge(const std::string& name, const std::string& help, Labels labels,
                        std::function<double()> read);

  // Every family sorted by name, one HELP and one TYPE line each, then its series sorted by
  // labels. A callback that throws is rendered as NaN rather than failing the scrape.
  std::string Render() const;

 private:
  enum class Kind { kCounter, kGauge };
  struct Series {
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Gauge> gauge;
    std::function<double()> read;
  };
  struct Family {
    std::string help;
    Kind kind;
    std::map<Labels, Series> series;
  };

  Series& FindOrCreate(const std::string& name, const std::string& help, Kind kind, Labels& labels,
                       bool* created);

  mutable std::mutex mutex_;
  std::map<std::string, Family> families_;
};

// Exposed for tests: how the format spells a sample value and escapes a label value.
std::string FormatMetricValue(double value);
std::string EscapeLabelValue(const std::string& value);

}  // namespace aicore::daemon
