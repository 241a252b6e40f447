#include "net/transport.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <mutex>

namespace tfg::net {
namespace {

TEST(NormalizeAddressTest, LoopbackByDefault) {
  EXPECT_EQ(*NormalizeAddress("tcp://127.0.0.1:7001"), "tcp://127.0.0.1:7001");
  EXPECT_EQ(*NormalizeAddress(":7001"), "tcp://127.0.0.1:7001");
  EXPECT_EQ(*NormalizeAddress("7001"), "tcp://127.0.0.1:7001");
  EXPECT_EQ(*NormalizeAddress("tcp://:0"), "tcp://127.0.0.1:*");
  EXPECT_FALSE(NormalizeAddress("tcp://127.0.0.1:x").ok());
  EXPECT_FALSE(NormalizeAddress("tcp://127.0.0.1:70000").ok());
  EXPECT_EQ(NormalizeAddress("nope").status().message(),
            "'nope' is not an address: expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:7001");
}

// Two transports on free loopback ports send each other frames.
TEST(TransportTest, FramesArriveInOrder) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> got;
  auto a = Transport::Start("tcp://127.0.0.1:0", [&](Received& r) {
    std::lock_guard<std::mutex> lock(mu);
    got.emplace_back(std::string_view(r.head));
    cv.notify_all();
  });
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = Transport::Start("tcp://127.0.0.1:0", [](Received&) {});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_NE((*a)->address().find("tcp://127.0.0.1:"), std::string::npos);
  const std::string big(1 << 20, 'x');
  (*b)->Send((*a)->address(), "one");
  (*b)->Send((*a)->address(), "");
  (*b)->Send((*a)->address(), big);
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return got.size() == 3; }));
  EXPECT_EQ(got[0], "one");
  EXPECT_EQ(got[1], "");
  EXPECT_EQ(got[2], big);
}

// A message with attachments arrives whole, the attachments in order and
// each kept alive by the frame it came in.
TEST(TransportTest, AttachmentsArriveAfterTheirHead) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Received> got;
  auto a = Transport::Start("tcp://127.0.0.1:0", [&](Received& r) {
    std::lock_guard<std::mutex> lock(mu);
    got.push_back(std::move(r));
    cv.notify_all();
  });
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = Transport::Start("tcp://127.0.0.1:0", [](Received&) {});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::vector<int32_t> counts(1 << 16);
  for (size_t i = 0; i < counts.size(); ++i) counts[i] = static_cast<int32_t>(i * 7);
  Tensor large = Tensor::FromVector<int32_t>(counts, TensorShape({static_cast<int64_t>(counts.size())}));
  (*b)->Send((*a)->address(), EncodedMessage{"head", {large, Tensor::Scalar<float>(4.5f)}});
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return got.size() == 1; }));
  EXPECT_EQ(std::string_view(got[0].head), "head");
  ASSERT_EQ(got[0].attachments.size(), 2u);
  const Attachment& first = got[0].attachments[0];
  ASSERT_EQ(first.size, counts.size() * 4);
  EXPECT_EQ(std::memcmp(first.data, counts.data(), first.size), 0);
  ASSERT_EQ(got[0].attachments[1].size, 4u);
  float f;
  std::memcpy(&f, got[0].attachments[1].data, 4);
  EXPECT_EQ(f, 4.5f);
}

// A large tensor crosses without a copy on the receiving side: ZeroMQ
// receives it into a buffer of its own, aligned for any dtype, and the
// decoded tensor keeps that buffer.
TEST(TransportTest, ALargeTensorIsUsedWhereItArrived) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<Result<Message>, const char*>> got;
  auto a = Transport::Start("tcp://127.0.0.1:0", [&](Received& r) {
    const char* frame = r.attachments.empty() ? nullptr : r.attachments[0].data;
    auto m = DecodeMessage(r.head, std::move(r.attachments));
    std::lock_guard<std::mutex> lock(mu);
    got.emplace_back(std::move(m), frame);
    cv.notify_all();
  });
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = Transport::Start("tcp://127.0.0.1:0", [](Received&) {});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::vector<double> values(8192);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5 * static_cast<double>(i) - 3;
  Message m;
  m.kind = MessageKind::kTensor;
  m.tensor.tensor_name = "w:0";
  m.tensor.value = Tensor::FromVector<double>(values, TensorShape({64, 128}));
  auto encoded = EncodeMessage(m);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  (*b)->Send((*a)->address(), std::move(*encoded));
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return got.size() == 1; }));
  ASSERT_TRUE(got[0].first.ok()) << got[0].first.status().ToString();
  const Tensor& t = got[0].first->tensor.value;
  EXPECT_EQ(t.shape(), TensorShape({64, 128}));
  EXPECT_EQ(static_cast<const char*>(t.raw_data()), got[0].second);
  for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(t.data<double>()[i], values[i]) << i;
}

TEST(TransportTest, ABusyPortIsAnError) {
  auto a = Transport::Start("tcp://127.0.0.1:0", [](Received&) {});
  ASSERT_TRUE(a.ok());
  auto b = Transport::Start((*a)->address(), [](Received&) {});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("cannot listen on " + (*a)->address()), std::string::npos)
      << b.status().message();
}

}  // namespace
}  // namespace tfg::net
