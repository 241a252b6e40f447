// The rate limit on refusal lines: a burst of kRefusalBurst lines per kind,
// then about one a second, and a count of those left out.
#include "net/refusal_log.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace tfg::net {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RefusalLogTest, AStormOfOneKindLogsABurstThenCountsTheRest) {
  testing::internal::CaptureStderr();
  for (int i = 0; i < 30; ++i) LogRefusal("test storm kind", "refused thing " + std::to_string(i));
  LogRefusal("test other kind", "refused another thing");
  FlushRefusalLog();  // no line to spare yet: nothing more
  const std::string burst = testing::internal::GetCapturedStderr();
  EXPECT_EQ(Count(burst, "tfg[net]: refused thing "), kRefusalBurst);
  EXPECT_NE(burst.find("refused thing 19\n"), std::string::npos);
  EXPECT_EQ(burst.find("refused thing 20"), std::string::npos);
  // Another kind has a bucket of its own.
  EXPECT_NE(burst.find("tfg[net]: refused another thing\n"), std::string::npos);
  EXPECT_EQ(burst.find("not logged"), std::string::npos);

  // A second on, one line may go: the summary of the 10 left out.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  testing::internal::CaptureStderr();
  FlushRefusalLog();
  FlushRefusalLog();  // said once
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "tfg[net]: 10 more refusals like 'test storm kind' not logged one by one\n");
}

TEST(RefusalLogTest, ALineAfterSomeWereLeftOutSaysHowMany) {
  testing::internal::CaptureStderr();
  for (int i = 0; i < kRefusalBurst + 3; ++i) LogRefusal("test noted kind", "refused it");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  LogRefusal("test noted kind", "refused it once more");
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(Count(log, "tfg[net]: refused it\n"), kRefusalBurst);
  EXPECT_NE(log.find("tfg[net]: refused it once more (3 more of this kind not logged)\n"), std::string::npos) << log;
}

TEST(RefusalLogTest, AMalformedMessageIsOfTheKindOfWhatWasWrong) {
  EXPECT_EQ(MalformedMessageKind("malformed message: byte order 188 (tfg peers write 1, little-endian)"),
            "a malformed message (byte order)");
  EXPECT_EQ(MalformedMessageKind("malformed message: not a tfg message (bad magic)"),
            "a malformed message (not a tfg message)");
  EXPECT_EQ(MalformedMessageKind("malformed message: unknown op 'evil' in node 3"),
            "a malformed message (unknown op)");
}

}  // namespace
}  // namespace tfg::net
