// DaemonProcess: fork/exec of aicore-simd with a pipe on stdout (see daemon_process.h).
#include "tests/daemon/daemon_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

namespace aicore::testing {

DaemonProcess::DaemonProcess(const std::vector<std::string>& extra_args) {
  static int counter = 0;
  stderr_path_ =
      "aicore-simd-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".log";
  int out_pipe[2];
  if (pipe(out_pipe) != 0) return;

  std::vector<std::string> args = {AICORE_SIMD_PATH, "--listen", "127.0.0.1:0"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    int err = open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0) dup2(err, STDERR_FILENO);
    close(out_pipe[0]);
    close(out_pipe[1]);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  if (pid_ < 0) {
    close(out_pipe[0]);
    return;
  }

  // Read the first line, giving the daemon 30 s (a loaded CI machine) to bind.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::string line;
  char c;
  while (std::chrono::steady_clock::now() < give_up) {
    pollfd pfd{out_pipe[0], POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) continue;
    if (read(out_pipe[0], &c, 1) != 1) break;
    if (c == '\n') break;
    line.push_back(c);
  }
  // The read end stays open while the daemon runs so a later stdout write cannot SIGPIPE it.
  stdout_fd_ = out_pipe[0];
  first_line_ = line;
  std::smatch match;
  static const std::regex kLine(R"(^listening on 127\.0\.0\.1:(\d+)$)");
  if (std::regex_match(line, match, kLine)) port_ = std::stoi(match[1]);
}

DaemonProcess::~DaemonProcess() {
  if (pid_ > 0 && !reaped_) {
    if (!SignalAndWait(SIGTERM, std::chrono::seconds(20))) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
  std::remove(stderr_path_.c_str());
}

std::string DaemonProcess::Stderr() const {
  std::ifstream in(stderr_path_);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

std::optional<int> DaemonProcess::SignalAndWait(int signal, std::chrono::milliseconds timeout) {
  if (pid_ <= 0 || reaped_) return std::nullopt;
  kill(pid_, signal);
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < give_up) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

}  // namespace aicore::testing
