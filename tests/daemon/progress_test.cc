// Streamed progress of long launches (docs/daemon.md "Progress"): LaunchWithProgress and Run with
// LaunchOptions.progress_interval_ms report the simulated cycles and per-core state while a launch
// runs, and the answer comes after the last progress message. Asserted by order and content, not
// by timing: a launch calibrated to run about a second gets several reports at a 50 ms interval.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/daemon/daemon_process.h"
#include "tests/daemon/test_client.h"
#include "tests/daemon/test_kernels.h"

namespace aicore::testing {
namespace {

using svc::LaunchProgress;

class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(daemon_.started()) << daemon_.Stderr();
    client_ = std::make_unique<Client>(daemon_.address());
    ASSERT_TRUE(client_->CreateSession(&session_).ok());
    iterations_ = CalibrateSpin(client_.get(), session_, 1.0);
  }

  svc::LaunchRequest SpinRequest(uint32_t interval_ms) const {
    svc::LaunchRequest request;
    request.set_session_id(session_);
    *request.mutable_kernel() = SpinKernel(iterations_);
    request.set_block_dim(1);
    request.mutable_options()->set_progress_interval_ms(interval_ms);
    request.mutable_options()->set_check(aicore::report::v1::CHECK_STRICT);
    return request;
  }

  // The progress messages of one LaunchWithProgress call, and its final status and response.
  struct Streamed {
    std::vector<LaunchProgress> progress;
    bool answered = false;
    bool progress_after_answer = false;
    svc::LaunchResponse response;
    grpc::Status status;
  };

  Streamed LaunchStreaming(const svc::LaunchRequest& request,
                           std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + deadline);
    auto reader = client_->stub()->LaunchWithProgress(&ctx, request);
    Streamed out;
    svc::LaunchEvent event;
    while (reader->Read(&event)) {
      if (event.has_progress()) {
        if (out.answered) out.progress_after_answer = true;
        out.progress.push_back(event.progress());
      } else if (event.has_response()) {
        out.answered = true;
        out.response = event.response();
      }
    }
    out.status = reader->Finish();
    return out;
  }

  DaemonProcess daemon_{{"--max-cycles", "0"}};
  std::unique_ptr<Client> client_;
  std::string session_;
  int64_t iterations_ = 0;
};

TEST_F(ProgressTest, ALongLaunchStreamsRisingCyclesThenItsReport) {
  const Streamed run = LaunchStreaming(SpinRequest(50));
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  ASSERT_TRUE(run.answered);
  EXPECT_FALSE(run.progress_after_answer);
  const LaunchReport& report = run.response.report();
  EXPECT_EQ(report.status(), LaunchReport::OK);
  ASSERT_GE(run.progress.size(), 3u) << "a launch of about a second, reported every 50 ms";
  for (size_t i = 1; i < run.progress.size(); ++i) {
    EXPECT_GT(run.progress[i].cycle(), run.progress[i - 1].cycle()) << "report " << i;
    EXPECT_GE(run.progress[i].wall_ms(), run.progress[i - 1].wall_ms()) << "report " << i;
  }
  EXPECT_LE(run.progress.back().cycle(), report.cycles());
  // One block on one vector core, running until the end.
  const LaunchProgress& first = run.progress.front();
  EXPECT_EQ(first.block_dim(), 1u);
  EXPECT_EQ(first.blocks_done(), 0u);
  ASSERT_FALSE(first.cores().empty());
  EXPECT_EQ(first.cores(0).state(), LaunchProgress::Core::RUNNING);
  EXPECT_FALSE(first.cores(0).cube());
  EXPECT_EQ(first.cores(0).blocks_assigned(), 1u);
}

TEST_F(ProgressTest, ProgressNeverChangesTheResult) {
  LaunchReport plain;
  ASSERT_TRUE(client_->Launch(session_, SpinKernel(iterations_), 1, {}, &plain).ok());
  const Streamed run = LaunchStreaming(SpinRequest(20));
  ASSERT_TRUE(run.status.ok()) << run.status.error_message();
  EXPECT_EQ(run.response.report().cycles(), plain.cycles());
  EXPECT_EQ(run.response.report().simulated_instructions(), plain.simulated_instructions());
}

TEST_F(ProgressTest, ACancelledLaunchNamesTheCycleItsLastProgressReached) {
  // The daemon's wall-time limit (the client's own deadline would end the call on the client's
  // side, before the daemon's message could arrive).
  svc::LaunchRequest request = SpinRequest(50);
  request.mutable_options()->set_max_wall_ms(400);
  const Streamed run = LaunchStreaming(request);
  ASSERT_EQ(run.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
      << run.status.error_message();
  EXPECT_FALSE(run.answered);
  const std::string& message = run.status.error_message();
  const size_t at = message.find("at simulated cycle ");
  ASSERT_NE(at, std::string::npos) << message;
  if (!run.progress.empty()) {
    const uint64_t cycle = std::stoull(message.substr(at + 19));
    EXPECT_GE(cycle, run.progress.back().cycle()) << message;
  }
}

TEST_F(ProgressTest, AnUnknownSessionIsRefusedBeforeAnyProgress) {
  svc::LaunchRequest request = SpinRequest(50);
  request.set_session_id("no-such-session");
  const Streamed run = LaunchStreaming(request);
  EXPECT_EQ(run.status.error_code(), grpc::StatusCode::NOT_FOUND) << run.status.error_message();
  EXPECT_TRUE(run.progress.empty());
}

TEST_F(ProgressTest, RunStreamsProgressOnlyWhenAskedAndBeforeItsReport) {
  for (const uint32_t interval : {0u, 50u}) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    auto stream = client_->stub()->Run(&ctx);
    svc::RunRequest header;
    header.mutable_header()->set_platform("Ascend910B1");
    *header.mutable_header()->mutable_kernel() = SpinKernel(iterations_);
    header.mutable_header()->set_block_dim(1);
    header.mutable_header()->mutable_options()->set_progress_interval_ms(interval);
    ASSERT_TRUE(stream->Write(header));
    ASSERT_TRUE(stream->WritesDone());
    size_t progress = 0;
    bool reported = false;
    svc::RunResponse response;
    while (stream->Read(&response)) {
      if (response.has_progress()) {
        EXPECT_FALSE(reported) << "progress after the report";
        ++progress;
      }
      if (response.has_report()) reported = true;
    }
    grpc::Status status = stream->Finish();
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_TRUE(reported);
    if (interval == 0) {
      EXPECT_EQ(progress, 0u);
    } else {
      EXPECT_GE(progress, 3u);
    }
  }
}

}  // namespace
}  // namespace aicore::testing
