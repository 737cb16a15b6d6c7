// Several daemons behind one AICORE_SIM_ADDRESS (runtime/src/daemon_addresses.h): sessions opened
// through a list of three addresses land on all three, each stays on its daemon, and a daemon
// that does not answer is skipped. Asserted from the daemons' own logs, not from timing.
#include <gtest/gtest.h>
#include <netdb.h>

#include <memory>
#include <string>
#include <vector>

#include "aicore/runtime.h"
#include "tests/daemon/daemon_process.h"
#include "tests/daemon/test_client.h"

namespace aicore::testing {
namespace {

TEST(MultiDaemonTest, SessionsThroughAListLandOnEveryDaemonAndStayThere) {
  std::vector<std::unique_ptr<DaemonProcess>> daemons;
  std::string list;
  for (int i = 0; i < 3; ++i) {
    daemons.push_back(
        std::make_unique<DaemonProcess>(std::vector<std::string>{"--log-level", "debug"}));
    ASSERT_TRUE(daemons.back()->started()) << daemons.back()->Stderr();
    list += (list.empty() ? "" : ",") + daemons.back()->address();
  }
  std::vector<std::unique_ptr<runtime::Runtime>> sessions;
  for (int i = 0; i < 6; ++i) {
    auto remote = runtime::Runtime::CreateRemote("Ascend910B1", list);
    ASSERT_TRUE(remote.ok()) << remote.status().message();
    sessions.push_back(std::move(*remote));
  }
  // Round robin from any starting daemon: two sessions each.
  for (const auto& d : daemons) {
    EXPECT_EQ(CountOf(d->Stderr(), "rpc=CreateSession status=OK"), 2u) << d->Stderr();
  }
  // Every later call of a session goes to the daemon that holds it: each does 3 Mallocs.
  for (const auto& s : sessions) {
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(s->Malloc(4096).ok());
  }
  for (const auto& d : daemons) {
    size_t mine = 0;
    for (const auto& s : sessions) mine += s->transport() == "remote " + d->address();
    EXPECT_EQ(mine, 2u);
    ASSERT_TRUE(WaitForLog(*d, "rpc=Malloc status=OK", 6)) << d->Stderr();
    EXPECT_EQ(CountOf(d->Stderr(), "rpc=Malloc status=OK"), 6u) << d->Stderr();
  }
}

TEST(MultiDaemonTest, ADaemonThatDoesNotAnswerIsSkipped) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  const std::string list = "127.0.0.1:1," + daemon.address();
  for (int i = 0; i < 4; ++i) {
    auto remote = runtime::Runtime::CreateRemote("Ascend910B1", list);
    ASSERT_TRUE(remote.ok()) << remote.status().message();
    EXPECT_EQ((*remote)->transport(), "remote " + daemon.address());
  }
  auto none = runtime::Runtime::CreateRemote("Ascend910B1", "127.0.0.1:1,127.0.0.1:2");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("none of the 2 simulator daemons"), std::string::npos)
      << none.status().message();
}

TEST(MultiDaemonTest, ADnsNameStandsForEveryAddressItResolvesTo) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  const std::string port = daemon.address().substr(daemon.address().rfind(':') + 1);
  // localhost resolves to 127.0.0.1 (and perhaps ::1, where nothing listens: skipped). A machine
  // without an /etc/hosts (a bare container) does not resolve it: say so rather than time out.
  addrinfo* resolved = nullptr;
  const int error = getaddrinfo("localhost", nullptr, nullptr, &resolved);
  if (resolved != nullptr) freeaddrinfo(resolved);
  ASSERT_EQ(error, 0) << "this test needs the name localhost to resolve to 127.0.0.1, and this "
                         "machine's resolver does not resolve it ("
                      << gai_strerror(error)
                      << "): add the line `127.0.0.1 localhost` to /etc/hosts";
  auto remote = runtime::Runtime::CreateRemote("Ascend910B1", "dns:///localhost:" + port);
  ASSERT_TRUE(remote.ok()) << remote.status().message();
  EXPECT_EQ((*remote)->transport(), "remote 127.0.0.1:" + port);
}

TEST(MultiDaemonTest, MalformedListsAreRefusedNamingTheEntry) {
  for (const std::string bad :
       {"127.0.0.1:1,,127.0.0.1:2", "127.0.0.1", "a:b", "", "dns:///no-port"}) {
    auto remote = runtime::Runtime::CreateRemote("Ascend910B1", bad);
    ASSERT_FALSE(remote.ok()) << bad;
    EXPECT_EQ(remote.status().code(), runtime::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(remote.status().message().find("AICORE_SIM_ADDRESS"), std::string::npos)
        << remote.status().message();
  }
  auto unknown = runtime::Runtime::CreateRemote("Ascend910B1", "dns:///no-such-host.invalid:1");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("does not resolve"), std::string::npos)
      << unknown.status().message();
}

}  // namespace
}  // namespace aicore::testing
