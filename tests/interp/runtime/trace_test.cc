#include "interp/runtime/trace.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

TEST(TracerTest, SpansAreRelativeToTheFirstAndInMicroseconds) {
  Tracer t;
  t.Step(7, 5'000, 9'000);
  t.Eager("add", SourceSpan{}, 6'000, 6'500);
  std::string json = t.ToJson();
  EXPECT_NE(json.find(R"("cat":"step","name":"step 7","pid":0,"tid":0,"ts":0.000,"dur":4.000)"), std::string::npos)
      << json;
  // Tracks by name: /device:cpu:0 (pid 1), then the eager track (pid 2).
  EXPECT_NE(json.find(R"("cat":"eager","name":"add","pid":2,"tid":0,"ts":1.000,"dur":0.500)"), std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("pid":1,"tid":0,"name":"process_name","args":{"name":"/device:cpu:0"})"), std::string::npos)
      << json;
  EXPECT_NE(json.find(R"x("pid":2,"tid":0,"name":"process_name","args":{"name":"eager ops (host values)"})x"),
            std::string::npos)
      << json;
  // The thread that made the tracer ran the eager op: it is "main".
  EXPECT_NE(json.find(R"("pid":2,"tid":0,"name":"thread_name","args":{"name":"main"})"), std::string::npos) << json;
}

TEST(TracerTest, KernelsNameTheirStepAndWaitsAreAsyncSlicesOfTheirDevice) {
  Graph g;
  Node* recv = test::AddNode(g, "control_trigger", {}, {}, "r");
  recv->set_assigned_device("/job:localhost/replica:0/task:0/device:cpu:1");
  Tracer t;
  t.Kernel(*recv, 3, 1'000, 2'000);
  std::thread other([&] { t.Wait(*recv, 3, 1'500, 4'000); });
  other.join();
  std::string json = t.ToJson();
  EXPECT_NE(json.find(R"("ph":"X","cat":"kernel","name":"control_trigger","pid":2,"tid":0,"ts":0.000,"dur":1.000,)"
                      R"("args":{"node":"r","line":"","step":3})"),
            std::string::npos)
      << json;
  // A wait is a begin/end pair on its device's track (pid 2, after
  // /device:cpu:0), whatever thread ended it.
  EXPECT_NE(json.find(R"("ph":"b","cat":"wait","name":"control_trigger","pid":2,"tid":0,"id":1,"ts":0.500,)"), std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("ph":"e","cat":"wait","name":"control_trigger","pid":2,"tid":0,"id":1,"ts":3.000})"), std::string::npos)
      << json;
  EXPECT_EQ(json.find("pool thread"), std::string::npos) << json;  // the waiting thread ran no kernel
}

TEST(TracerTest, NamesAndLocationsAreEscaped) {
  Tracer t;
  auto file = std::make_shared<SourceFile>("dir/\"odd\"\\name.tfg", "x\n");
  t.Eager("op\nname", SourceSpan{file, 1, 1, 1, 2}, 0, 1);
  std::string json = t.ToJson();
  EXPECT_NE(json.find(R"("name":"op\u000aname")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("line":"dir/\"odd\"\\name.tfg:1")"), std::string::npos) << json;
}

TEST(TracerTest, EmptyTraceIsValid) {
  EXPECT_NE(Tracer().ToJson().find("\"traceEvents\":["), std::string::npos);
}

}  // namespace
}  // namespace tfg
