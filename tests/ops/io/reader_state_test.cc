// ReaderState: records across files of a filename queue, keys, waiting for
// a filename without blocking, and the end of the epoch. The queue here is
// a small fake, so the reader is tested apart from ops/queue.
#include "ops/io/reader_state.h"

#include <gtest/gtest.h>

#include "ops/core/cancellation.h"
#include "tests/ops/io/io_test_util.h"

namespace tfg::io {
namespace {

class FakeFilenameQueue : public QueueInterface {
 public:
  const std::string& name() const override { return name_; }
  const std::vector<DType>& component_types() const override { return types_; }
  const std::vector<PartialShape>& component_shapes() const override { return shapes_; }
  void TryEnqueue(Tuple, CancellationManager*, DoneCallback done) override { done(Unimplemented("fake")); }
  void TryEnqueueMany(Tuple, CancellationManager*, DoneCallback done) override { done(Unimplemented("fake")); }
  void TryDequeueMany(int64_t, bool, CancellationManager*, TupleCallback done) override {
    done(Unimplemented("fake"));
  }
  void TryDequeue(CancellationManager*, TupleCallback done) override {
    if (!items_.empty()) {
      Tuple t = {Tensor::Scalar<std::string>(items_.front())};
      items_.erase(items_.begin());
      done(std::move(t));
    } else if (closed_) {
      done(OutOfRange("queue 'filenames' is closed and empty"));
    } else {
      waiting_.push_back(std::move(done));
    }
  }
  void Close(bool) override {
    closed_ = true;
    for (auto& w : std::exchange(waiting_, {})) w(OutOfRange("queue 'filenames' is closed and empty"));
  }
  bool is_closed() const override { return closed_; }
  int64_t size() const override { return static_cast<int64_t>(items_.size()); }
  std::string WaitDescription() const override { return "queue 'filenames' (empty)"; }
  std::string DebugString() const override { return "fake queue"; }

  void Add(const std::string& filename) {
    items_.push_back(filename);
    if (!waiting_.empty()) {
      TupleCallback w = std::move(waiting_.front());
      waiting_.erase(waiting_.begin());
      TryDequeue(nullptr, std::move(w));
    }
  }
  size_t num_waiting() const { return waiting_.size(); }

 private:
  std::string name_ = "filenames";
  std::vector<DType> types_ = {DType::kString};
  std::vector<PartialShape> shapes_ = {PartialShape::Scalar()};
  std::vector<std::string> items_;
  std::vector<TupleCallback> waiting_;
  bool closed_ = false;
};

class ReaderStateTest : public test::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    queue_ = std::make_shared<FakeFilenameQueue>();
    reader_ = std::make_shared<ReaderState>("r", MakeTextLineSource(Compression::kNone, 0));
  }
  // Starts a read; its result lands in *out when it completes.
  void StartRead(int64_t n, std::optional<Result<Records>>* out) {
    reader_->Read({queue_, nullptr, n, [out](Result<Records> r) { out->emplace(std::move(r)); }});
  }
  Result<Records> ReadNow(int64_t n) {
    std::optional<Result<Records>> out;
    StartRead(n, &out);
    EXPECT_TRUE(out.has_value()) << "the read did not complete";
    return out ? *out : Result<Records>(Internal("pending"));
  }

  std::shared_ptr<FakeFilenameQueue> queue_;
  std::shared_ptr<ReaderState> reader_;
};

TEST_F(ReaderStateTest, ReadsEveryLineOfEveryFileOnceThenOutOfRange) {
  std::string a = WriteFile("a.txt", "a0\na1\n");
  std::string b = WriteFile("b.txt", "b0");
  std::string empty = WriteFile("e.txt", "");
  queue_->Add(a);
  queue_->Add(empty);
  queue_->Add(b);
  queue_->Close(false);
  std::vector<std::pair<std::string, std::string>> expected = {
      {a + ":0", "a0"}, {a + ":1", "a1"}, {b + ":0", "b0"}};
  for (const auto& [key, value] : expected) {
    Result<Records> r = ReadNow(1);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->keys, std::vector<std::string>{key});
    EXPECT_EQ(r->values, std::vector<std::string>{value});
  }
  Result<Records> end = ReadNow(1);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.status().code(), Code::kOutOfRange);
}

TEST_F(ReaderStateTest, ReadUpToStaysWithinOneFile) {
  queue_->Add(WriteFile("a.txt", "1\n2\n3\n"));
  queue_->Add(WriteFile("b.txt", "4\n5\n"));
  queue_->Close(false);
  EXPECT_EQ(ReadNow(2)->values, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(ReadNow(2)->values, (std::vector<std::string>{"3"}));
  EXPECT_EQ(ReadNow(5)->values, (std::vector<std::string>{"4", "5"}));
  EXPECT_EQ(ReadNow(5).status().code(), Code::kOutOfRange);
}

// A read that finds no filename waits without blocking; reads behind it
// wait their turn and are served in order once filenames come.
TEST_F(ReaderStateTest, WaitsForFilenamesWithoutBlocking) {
  std::optional<Result<Records>> first, second;
  StartRead(1, &first);
  StartRead(1, &second);
  EXPECT_FALSE(first.has_value());
  EXPECT_FALSE(second.has_value());
  EXPECT_EQ(queue_->num_waiting(), 1u);
  EXPECT_NE(reader_->WaitDescription().find("waiting for a filename from queue 'filenames'"), std::string::npos)
      << reader_->WaitDescription();
  queue_->Add(WriteFile("a.txt", "x\ny\n"));
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_EQ((*first)->values, std::vector<std::string>{"x"});
  EXPECT_EQ((*second)->values, std::vector<std::string>{"y"});
}

TEST_F(ReaderStateTest, ClosingTheQueueEndsAWaitingRead) {
  std::optional<Result<Records>> waiting;
  StartRead(1, &waiting);
  EXPECT_FALSE(waiting.has_value());
  queue_->Close(false);
  ASSERT_TRUE(waiting.has_value());
  EXPECT_EQ(waiting->status().code(), Code::kOutOfRange);
}

TEST_F(ReaderStateTest, AMissingFileFailsOneReadAndTheNextFileFollows) {
  queue_->Add((dir_ / "absent.txt").string());
  queue_->Add(WriteFile("ok.txt", "fine\n"));
  Result<Records> bad = ReadNow(1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kNotFound);
  Result<Records> good = ReadNow(1);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(good->values, std::vector<std::string>{"fine"});
}

TEST_F(ReaderStateTest, StateSurvivesAcrossReadsLikeRuns) {
  queue_->Add(WriteFile("a.txt", "p\nq\n"));
  EXPECT_EQ(ReadNow(1)->keys[0].substr(dir_.string().size()), "/a.txt:0");
  EXPECT_EQ(ReadNow(1)->keys[0].substr(dir_.string().size()), "/a.txt:1");
}

TEST_F(ReaderStateTest, LookupReaderChecksTheHandle) {
  ResourceMgr resources;
  auto made = resources.LookupOrCreate<ReaderState>("c", "r", [&] { return reader_; });
  ASSERT_TRUE(made.ok());
  Tensor handle = Tensor::Vector<std::string>({"c", "r"});
  auto found = LookupReader(&resources, handle);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->get(), reader_.get());
  EXPECT_EQ(LookupReader(&resources, Tensor::Vector<std::string>({"c", "other"})).status().code(), Code::kNotFound);
  EXPECT_EQ(LookupReader(&resources, Tensor::Scalar<std::string>("r")).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace tfg::io
