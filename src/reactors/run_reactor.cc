// The Run reactor (see run_reactor.h). Inputs go straight into the run's own device as they
// arrive; the launch runs on the job pool under the same watchdog as a session Launch.
#include "src/reactors/run_reactor.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report.pb.h"
#include "sim/bridge/bridge.h"
#include "sim/core/quote.h"
#include "sim/host/device_host.h"
#include "sim/soc/device.h"
#include "src/job_pool.h"
#include "src/launch_execution.h"
#include "src/reactors/progress_writes.h"
#include "src/rpc_status.h"
#include "src/rpc_support.h"
#include "src/session_manager.h"

namespace aicore::daemon {
namespace {

using detail::BusyStatus;
using detail::DrainingStatus;
using detail::ExecuteWatched;
using detail::Guarded;
using detail::kDefaultChunkBytes;
using detail::LaunchFields;
using detail::RequestLog;
using detail::StartDeadline;

class RunReactor final : public grpc::ServerBidiReactor<svc::RunRequest, svc::RunResponse> {
 public:
  RunReactor(SimulatorService* service, grpc::CallbackServerContext* ctx)
      : service_(service), ctx_(ctx), log_(service, ctx, "Run") {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      if (!host_) {
        return FinishWith(
            {grpc::StatusCode::INVALID_ARGUMENT, "the Run stream ended before its header"});
      }
      return StartRun();  // all inputs received
    }
    grpc::Status status = Guarded([&] {
      if (grpc::Status parsed = detail::CheckParsed(request_); !parsed.ok()) return parsed;
      if (!host_) {
        if (!request_.has_header()) {
          return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              "the first message of a Run stream must be its header");
        }
        return AcceptHeader(request_.header());
      }
      if (!request_.has_chunk()) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "a Run stream carries one header, then only data chunks");
      }
      return WriteInput(request_.chunk());
    });
    if (!status.ok()) return FinishWith(status);
    StartRead(&request_);
  }

  void OnWriteDone(bool ok) override {
    std::function<void()> next;
    if (writes_.Complete(&next)) {  // a progress write
      if (next) next();
      return;
    }
    if (!ok) return FinishWith({grpc::StatusCode::CANCELLED, "the client stopped reading"});
    grpc::Status status = Guarded([&] { return SendNextOutput(); });
    if (!status.ok()) FinishWith(status);
  }

  void OnDone() override {
    log_.Done(status_, report_sent_ ? LaunchFields(report_)
                                    : "kernel=" + sim::Quoted(header_.kernel().name()));
    service_->budget()->Give(budget_taken_);
    delete this;
  }

 private:
  struct Buffer {
    bool is_buffer = false;  // false for scalar arguments
    uint64_t address = 0;
    uint64_t bytes = 0;
    bool output = false;
  };

  grpc::Status AcceptHeader(const svc::RunHeader& header) {
    if (grpc::Status s = detail::Authenticate(service_, ctx_, &caller_); !s.ok()) return s;
    if (grpc::Status v =
            detail::CheckVersions(header.protocol_version(), header.kernel().version());
        !v.ok()) {
      return v;
    }
    if (service_->draining()) return DrainingStatus();
    auto slot = service_->sessions()->ReserveRunSlot();
    if (!slot.ok()) return ToGrpcStatus(slot.status());
    slot_.emplace(std::move(*slot));

    uint64_t total = 0;
    for (int i = 0; i < header.args_size(); ++i) {
      const svc::RunArg& arg = header.args(i);
      if (arg.value_case() == svc::RunArg::kBufferBytes) {
        if (arg.buffer_bytes() > std::numeric_limits<uint64_t>::max() - total) {
          total = std::numeric_limits<uint64_t>::max();
        } else {
          total += arg.buffer_bytes();
        }
      }
    }
    const uint64_t limit = service_->options().session_memory_limit;
    if (total > limit) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "the run's buffers need " + std::to_string(total) + " bytes, over the limit of " +
                  std::to_string(limit) + " bytes per run (--session-memory-limit)"};
    }
    if (sim::Status s = service_->budget()->Take(
            total, "the run's buffers (" + std::to_string(total) + " bytes)");
        !s.ok()) {
      return ToGrpcStatus(s);
    }
    budget_taken_ = total;
    auto config = sim::LoadSocConfig(header.platform());
    if (!config.ok()) return ToGrpcStatus(config.status());
    host_ = std::make_unique<sim::DeviceHost>(std::move(*config));

    buffers_.assign(header.args_size(), Buffer{});
    for (int i = 0; i < header.args_size(); ++i) {
      const svc::RunArg& arg = header.args(i);
      const std::string where = "args[" + std::to_string(i) + "]";
      if (arg.output() && arg.value_case() != svc::RunArg::kBufferBytes) {
        return {grpc::StatusCode::INVALID_ARGUMENT,
                where + " is a scalar marked as output; only buffers can be outputs"};
      }
      switch (arg.value_case()) {
        case svc::RunArg::kIntValue:
          args_.push_back(sim::ArgValue::Int(arg.int_value()));
          break;
        case svc::RunArg::kFloatValue:
          args_.push_back(sim::ArgValue::Float(arg.float_value()));
          break;
        case svc::RunArg::kBufferBytes: {
          auto address = host_->device().Malloc(arg.buffer_bytes());
          if (!address.ok()) {
            return ToGrpcStatus(
                sim::Status(address.status().code(), where + ": " + address.status().message()));
          }
          buffers_[i] = {true, *address, arg.buffer_bytes(), arg.output()};
          args_.push_back(sim::ArgValue::Address(*address));
          break;
        }
        default:
          return {grpc::StatusCode::INVALID_ARGUMENT,
                  where + " has no value: set int_value, float_value or buffer_bytes"};
      }
    }
    header_ = header;
    deadline_ =
        StartDeadline::For(ctx_, service_->options().max_wall_ms, header.options().max_wall_ms());
    return grpc::Status::OK;
  }

  grpc::Status WriteInput(const svc::RunChunk& chunk) {
    if (chunk.arg_index() >= buffers_.size() || !buffers_[chunk.arg_index()].is_buffer) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "data chunk for args[" +
                                                      std::to_string(chunk.arg_index()) +
                                                      "], which is not a buffer argument"};
    }
    const Buffer& buffer = buffers_[chunk.arg_index()];
    const uint64_t n = chunk.data().size();
    if (chunk.offset() > buffer.bytes || n > buffer.bytes - chunk.offset()) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "data chunk [" + std::to_string(chunk.offset()) +
                                                      ", " + std::to_string(chunk.offset() + n) +
                                                      ") is outside args[" +
                                                      std::to_string(chunk.arg_index()) + "] of " +
                                                      std::to_string(buffer.bytes) + " bytes"};
    }
    return ToGrpcStatus(
        host_->device().Write(buffer.address + chunk.offset(), chunk.data().data(), n));
  }

  void StartRun() {
    const std::string client = detail::RunClient(ctx_, caller_);
    JobPool::Refusal refusal = JobPool::Refusal::kNone;
    auto ticket = std::make_shared<JobPool::Ticket>(service_->pool()->TryAdmit(client, &refusal));
    if (!*ticket) return FinishWith(BusyStatus(service_->pool(), service_->options(), refusal));
    if (const uint32_t ms = header_.options().progress_interval_ms(); ms != 0) {
      sink_.interval = std::chrono::milliseconds(ms);
      sink_.send = [this](const svc::LaunchProgress& progress) {
        if (!writes_.TryBegin()) return;
        *progress_.mutable_progress() = progress;
        StartWrite(&progress_);
      };
    }
    service_->pool()->PostSimulation(client, [this, ticket] {
      grpc::Status status = Guarded([&] {
        return ExecuteWatched(service_, ctx_, deadline_, host_.get(), header_.kernel(),
                              header_.block_dim(), args_, header_.options(), &report_,
                              &trace_bytes_, sink_.send ? &sink_ : nullptr);
      });
      *ticket = JobPool::Ticket();  // streaming the outputs back is not simulation work
      writes_.Close([this, status] {
        if (!status.ok()) return FinishWith(status);
        *response_.mutable_report() = report_;
        report_sent_ = true;
        StartWrite(&response_);
      });
    });
  }

  // Output buffers in argument order, each in chunks; Finish after the last one.
  grpc::Status SendNextOutput() {
    while (next_output_ < buffers_.size()) {
      const Buffer& buffer = buffers_[next_output_];
      if (!buffer.output || output_offset_ >= buffer.bytes) {
        ++next_output_;
        output_offset_ = 0;
        continue;
      }
      const uint64_t n = std::min(kDefaultChunkBytes, buffer.bytes - output_offset_);
      svc::RunChunk* chunk = response_.mutable_chunk();
      chunk->set_arg_index(static_cast<uint32_t>(next_output_));
      chunk->set_offset(output_offset_);
      std::string* data = chunk->mutable_data();
      data->resize(n);
      if (sim::Status s = host_->device().Read(buffer.address + output_offset_, data->data(), n);
          !s.ok()) {
        return ToGrpcStatus(s);
      }
      output_offset_ += n;
      StartWrite(&response_);
      return grpc::Status::OK;
    }
    FinishWith(grpc::Status::OK);
    return grpc::Status::OK;
  }

  void FinishWith(const grpc::Status& status) {
    status_ = status;
    Finish(status);
  }

  SimulatorService* const service_;
  grpc::CallbackServerContext* const ctx_;
  RequestLog log_;
  svc::RunRequest request_;
  svc::RunResponse response_;
  svc::RunHeader header_;
  std::optional<SessionManager::RunSlot> slot_;
  std::unique_ptr<sim::DeviceHost> host_;
  std::vector<Buffer> buffers_;  // one per argument
  std::vector<sim::ArgValue> args_;
  StartDeadline deadline_;
  aicore::report::v1::LaunchReport report_;
  bool report_sent_ = false;
  uint64_t budget_taken_ = 0;  // of the daemon's memory budget, given back in OnDone
  std::string caller_;         // the authenticated identity
  uint64_t trace_bytes_ = 0;   // written below --trace-root by this run
  detail::ProgressSink sink_;  // set only when the header asks for progress
  ProgressWrites writes_;
  svc::RunResponse progress_;  // the progress write in flight
  size_t next_output_ = 0;
  uint64_t output_offset_ = 0;
  grpc::Status status_;
};

}  // namespace

grpc::ServerBidiReactor<svc::RunRequest, svc::RunResponse>* NewRunReactor(
    SimulatorService* service, grpc::CallbackServerContext* ctx) {
  return new RunReactor(service, ctx);
}

}  // namespace aicore::daemon
