// A directory held open by descriptor, in which the trace writer creates its folders and files
// with mkdirat/openat and O_NOFOLLOW: once a folder is open, nothing done to the paths around it
// (a directory swapped for a symlink after a check) can move where the files land. Opened below a
// root, every component from the root down is opened the same way, so no link is followed out.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "sim/core/status.h"

namespace aicore::sim {

class ConfinedDir {
 public:
  ConfinedDir(ConfinedDir&& other) noexcept;
  ConfinedDir& operator=(ConfinedDir&& other) noexcept;
  ConfinedDir(const ConfinedDir&) = delete;
  ConfinedDir& operator=(const ConfinedDir&) = delete;
  ~ConfinedDir();

  // `dir`, created with its parents if missing, following symlinks as any path would (the
  // caller's own folder).
  static StatusOr<ConfinedDir> Open(const std::string& dir);
  // `relative` below `root` (which may itself be a link: the operator's choice), each of its
  // components opened or created without following a symlink; FailedPrecondition naming the
  // component that is a link or not a folder. `relative` must not contain "..".
  static StatusOr<ConfinedDir> OpenBelow(const std::string& root, const std::string& relative);

  // The sub-folder `name` (one component), created if missing, never through a symlink.
  // `created`, when given, says whether this call created it (claims an index atomically).
  StatusOr<ConfinedDir> Sub(const std::string& name, bool* created = nullptr) const;
  // Creates or truncates the file `name` (one component; never through a symlink) and fills it.
  Status WriteFile(const std::string& name, const std::function<void(std::ostream&)>& write) const;

  const std::string& path() const { return path_; }  // for messages

 private:
  ConfinedDir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

}  // namespace aicore::sim
