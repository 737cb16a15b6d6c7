// The LaunchWithProgress reactor (see launch_progress_reactor.h): the session Launch path, with a
// progress sink that writes LaunchEvent.progress on the watchdog's ticks.
#include "src/reactors/launch_progress_reactor.h"

#include <chrono>
#include <memory>
#include <string>

#include "sim/core/quote.h"
#include "src/launch_execution.h"
#include "src/reactors/progress_writes.h"
#include "src/rpc_support.h"

namespace aicore::daemon {
namespace {

using detail::AdmittedLaunch;
using detail::ExecuteWatched;
using detail::Guarded;
using detail::LaunchFields;
using detail::ProgressSink;
using detail::RequestLog;

// When LaunchOptions.progress_interval_ms is 0.
constexpr std::chrono::milliseconds kDefaultInterval{500};

class LaunchProgressReactor final : public grpc::ServerWriteReactor<svc::LaunchEvent> {
 public:
  LaunchProgressReactor(SimulatorService* service, grpc::CallbackServerContext* ctx,
                        const svc::LaunchRequest* request)
      : service_(service), ctx_(ctx), request_(request), log_(service, ctx, "LaunchWithProgress") {
    const uint32_t ms = request->options().progress_interval_ms();
    sink_.interval = ms == 0 ? kDefaultInterval : std::chrono::milliseconds(ms);
    sink_.send = [this](const svc::LaunchProgress& progress) {
      if (!writes_.TryBegin()) return;
      *progress_.mutable_progress() = progress;
      StartWrite(&progress_);
    };
    grpc::Status admitted =
        Guarded([&] { return detail::AdmitLaunch(service_, ctx_, *request_, &launch_); });
    if (!admitted.ok()) {
      FinishWith(admitted);
      return;
    }
    (*launch_.session)->lane().Post(SessionLane::Work::kSimulation, [this] { RunLaunch(); });
  }

  void OnWriteDone(bool ok) override {
    std::function<void()> next;
    if (writes_.Complete(&next)) {
      if (next) next();
      return;
    }
    // The answer was written.
    FinishWith(ok ? grpc::Status::OK
                  : grpc::Status(grpc::StatusCode::CANCELLED, "the client stopped reading"));
  }

  void OnDone() override {
    std::string fields = "kernel=" + sim::Quoted(request_->kernel().name());
    if (answer_.has_response()) fields = LaunchFields(answer_.response().report());
    log_.Done(status_, fields);
    delete this;
  }

 private:
  void RunLaunch() {
    Session& session = **launch_.session;
    svc::LaunchResponse* response = answer_.mutable_response();
    grpc::Status status = Guarded([&] {
      return ExecuteWatched(service_, ctx_, launch_.deadline, &session.host(), request_->kernel(),
                            request_->block_dim(), launch_.args, request_->options(),
                            response->mutable_report(), &session.trace_bytes(), &sink_);
    });
    if (!status.ok()) answer_.clear_response();
    launch_.Release();
    writes_.Close([this, status] {
      if (!status.ok()) return FinishWith(status);
      StartWrite(&answer_);
    });
  }

  void FinishWith(const grpc::Status& status) {
    status_ = status;
    Finish(status);
  }

  SimulatorService* const service_;
  grpc::CallbackServerContext* const ctx_;
  const svc::LaunchRequest* const request_;
  RequestLog log_;
  AdmittedLaunch launch_;
  ProgressSink sink_;
  ProgressWrites writes_;
  svc::LaunchEvent progress_;  // the progress write in flight
  svc::LaunchEvent answer_;
  grpc::Status status_;
};

}  // namespace

grpc::ServerWriteReactor<svc::LaunchEvent>* NewLaunchProgressReactor(
    SimulatorService* service, grpc::CallbackServerContext* ctx,
    const svc::LaunchRequest* request) {
  return new LaunchProgressReactor(service, ctx, request);
}

}  // namespace aicore::daemon
