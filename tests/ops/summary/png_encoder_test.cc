#include "ops/summary/png_encoder.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tfg::summary {
namespace {

uint32_t BigEndian32(const std::string& s, size_t at) {
  return (uint32_t{static_cast<uint8_t>(s[at])} << 24) | (uint32_t{static_cast<uint8_t>(s[at + 1])} << 16) |
         (uint32_t{static_cast<uint8_t>(s[at + 2])} << 8) | uint32_t{static_cast<uint8_t>(s[at + 3])};
}

struct Chunk {
  std::string type;
  std::string data;
};

// Splits a PNG into its chunks, checking each chunk's CRC-32 with zlib.
std::vector<Chunk> ReadChunks(const std::string& png) {
  std::vector<Chunk> chunks;
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  size_t at = 8;
  while (at + 12 <= png.size()) {
    uint32_t length = BigEndian32(png, at);
    Chunk c{png.substr(at + 4, 4), png.substr(at + 8, length)};
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(png.data() + at + 4), length + 4);
    EXPECT_EQ(BigEndian32(png, at + 8 + length), static_cast<uint32_t>(crc)) << "chunk " << c.type;
    chunks.push_back(std::move(c));
    at += 12 + length;
  }
  EXPECT_EQ(at, png.size());
  return chunks;
}

std::string Inflate(const std::string& packed, size_t expected_size) {
  std::string raw(expected_size + 16, '\0');
  uLongf size = raw.size();
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(raw.data()), &size, reinterpret_cast<const Bytef*>(packed.data()),
                       packed.size()),
            Z_OK);
  raw.resize(size);
  return raw;
}

TEST(PngEncoderTest, RgbImageDecodesToItsPixels) {
  // 2 rows of 3 RGB pixels.
  std::vector<uint8_t> pixels = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 40, 50, 60, 70, 80, 90};
  auto png = EncodePng(pixels.data(), 2, 3, 3);
  ASSERT_TRUE(png.ok()) << png.status().ToString();
  std::vector<Chunk> chunks = ReadChunks(*png);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].type, "IHDR");
  EXPECT_EQ(chunks[1].type, "IDAT");
  EXPECT_EQ(chunks[2].type, "IEND");
  ASSERT_EQ(chunks[0].data.size(), 13u);
  EXPECT_EQ(BigEndian32(chunks[0].data, 0), 3u);  // width
  EXPECT_EQ(BigEndian32(chunks[0].data, 4), 2u);  // height
  EXPECT_EQ(chunks[0].data[8], 8);                // bit depth
  EXPECT_EQ(chunks[0].data[9], 2);                // color type: RGB
  // Each row: filter byte 0, then its pixels.
  std::string expected;
  expected.push_back('\0');
  expected.append(reinterpret_cast<const char*>(pixels.data()), 9);
  expected.push_back('\0');
  expected.append(reinterpret_cast<const char*>(pixels.data() + 9), 9);
  EXPECT_EQ(Inflate(chunks[1].data, expected.size()), expected);
}

TEST(PngEncoderTest, ColorTypeFollowsChannels) {
  std::vector<uint8_t> pixels(4 * 4, 7);
  const int expected_color_type[] = {0, 0, 4, 2, 6};  // by channels 1..4
  for (int channels = 1; channels <= 4; ++channels) {
    auto png = EncodePng(pixels.data(), 2, 2, channels);
    ASSERT_TRUE(png.ok());
    std::vector<Chunk> chunks = ReadChunks(*png);
    ASSERT_FALSE(chunks.empty());
    EXPECT_EQ(chunks[0].data[9], expected_color_type[channels]) << channels << " channels";
  }
}

TEST(PngEncoderTest, RejectsBadSizes) {
  uint8_t pixel = 0;
  EXPECT_FALSE(EncodePng(&pixel, 1, 1, 5).ok());
  EXPECT_FALSE(EncodePng(&pixel, 1, 1, 0).ok());
  EXPECT_FALSE(EncodePng(&pixel, 0, 1, 1).ok());
}

}  // namespace
}  // namespace tfg::summary
