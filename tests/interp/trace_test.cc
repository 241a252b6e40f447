#include "interp/trace.h"

#include <gtest/gtest.h>

#include <memory>

namespace tfg {
namespace {

TEST(TracerTest, SpansAreRelativeToTheFirstAndInMicroseconds) {
  Tracer t;
  t.Step(7, 5'000, 9'000);
  t.Eager("add", SourceSpan{}, 6'000, 6'500);
  std::string json = t.ToJson();
  EXPECT_NE(json.find(R"("cat":"step","name":"step 7","pid":0,"tid":0,"ts":0.000,"dur":4.000)"), std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("cat":"eager","name":"add","pid":1,"tid":0,"ts":1.000,"dur":0.500)"), std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("name":"process_name","args":{"name":"/device:cpu:0"})"), std::string::npos) << json;
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
