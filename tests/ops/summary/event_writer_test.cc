#include "ops/summary/event_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ops/core/graph.h"
#include "ops/io/crc32c.h"
#include "proto/event.pb.h"
#include "proto/graph.pb.h"
#include "proto/summary.pb.h"

namespace tfg::summary {
namespace {

namespace fs = std::filesystem;

class EventWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tfg_event_writer_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

uint64_t LittleEndian(const std::string& s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  return v;
}

// Splits a file into its record payloads, checking the framing: u64
// length, masked CRC-32C of the length, payload, masked CRC-32C of it.
std::vector<std::string> ReadRecords(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  std::vector<std::string> records;
  size_t at = 0;
  while (at < bytes.size()) {
    EXPECT_LE(at + 12, bytes.size());
    uint64_t length = LittleEndian(bytes, at, 8);
    EXPECT_EQ(LittleEndian(bytes, at + 8, 4), MaskCrc(Crc32c(bytes.data() + at, 8)));
    EXPECT_LE(at + 16 + length, bytes.size());
    std::string payload = bytes.substr(at + 12, length);
    EXPECT_EQ(LittleEndian(bytes, at + 12 + length, 4), MaskCrc(Crc32c(payload.data(), payload.size())));
    records.push_back(std::move(payload));
    at += 16 + length;
  }
  return records;
}

TEST_F(EventWriterTest, Crc32cIsCastagnoli) {
  // The standard check value of CRC-32C, which the framing relies on.
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
}

TEST_F(EventWriterTest, WritesVersionThenSummaries) {
  auto writer = EventWriter::Create((dir_ / "run1").string());
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const std::string path = (*writer)->path();
  EXPECT_EQ(fs::path(path).parent_path(), dir_ / "run1");
  EXPECT_EQ(fs::path(path).filename().string().rfind("events.out.tfevents.", 0), 0u) << path;

  pb::Summary s;
  pb::Summary::Value* v = s.add_value();
  v->set_tag("loss");
  v->set_simple_value(1.5f);
  ASSERT_TRUE((*writer)->WriteSummary(s.SerializeAsString(), 42).ok());

  std::vector<std::string> records = ReadRecords(path);
  ASSERT_EQ(records.size(), 2u);
  pb::Event first, second;
  ASSERT_TRUE(first.ParseFromString(records[0]));
  EXPECT_EQ(first.file_version(), "brain.Event:2");
  EXPECT_GT(first.wall_time(), 1.5e9);
  ASSERT_TRUE(second.ParseFromString(records[1]));
  EXPECT_EQ(second.step(), 42);
  ASSERT_TRUE(second.has_summary());
  ASSERT_EQ(second.summary().value_size(), 1);
  EXPECT_EQ(second.summary().value(0).tag(), "loss");
  EXPECT_EQ(second.summary().value(0).simple_value(), 1.5f);
}

TEST_F(EventWriterTest, TwoWritersGetTwoFiles) {
  auto a = EventWriter::Create(dir_.string());
  auto b = EventWriter::Create(dir_.string());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->path(), (*b)->path());
}

TEST_F(EventWriterTest, WritesGraph) {
  auto writer = EventWriter::Create(dir_.string());
  ASSERT_TRUE(writer.ok());
  Graph g;
  NodeSpec spec{"placeholder", {}, {}, {{"dtype", DType::kF32}, {"shape", PartialShape({2})}}, "x", "", {}};
  ASSERT_TRUE(g.AddNode(std::move(spec)).ok());
  ASSERT_TRUE((*writer)->WriteGraph(g).ok());
  std::vector<std::string> records = ReadRecords((*writer)->path());
  ASSERT_EQ(records.size(), 2u);
  pb::Event e;
  ASSERT_TRUE(e.ParseFromString(records[1]));
  pb::GraphDef back;
  ASSERT_TRUE(back.ParseFromString(e.graph_def()));
  ASSERT_EQ(back.node_size(), 1);
  EXPECT_EQ(back.node(0).name(), "x");
  EXPECT_EQ(back.node(0).op(), "placeholder");
}

TEST_F(EventWriterTest, RejectsNonSummaryBytes) {
  auto writer = EventWriter::Create(dir_.string());
  ASSERT_TRUE(writer.ok());
  Status s = (*writer)->WriteSummary(std::string("\xff\xff\xff", 3), 0);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a serialized Summary"), std::string::npos);
}

TEST_F(EventWriterTest, UnwritableDirectoryNamesThePath) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  const std::string under_a_file = (dir_ / "file" / "logs").string();
  auto writer = EventWriter::Create(under_a_file);
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find(under_a_file), std::string::npos) << writer.status().message();
}

}  // namespace
}  // namespace tfg::summary
