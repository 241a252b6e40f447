// Helpers for the data reader tests: scratch files, gzip, and a loop that
// corrupts valid bytes at random (the readers must answer with an error or
// a tensor, never crash; CI runs this under ASan and UBSan).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

namespace tfg::data::testing {

// A fresh path under the test temp dir; the file is removed by ~ScratchFile.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& suffix) {
    static std::atomic<int> counter{0};
    path_ = ::testing::TempDir() + "tfg_data_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix;
  }
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& path() const { return path_; }
  void Write(const std::string& bytes) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::string Read() const {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  std::string path_;
};

// `bytes` gzipped (a gzip header and trailer around a deflate stream).
inline std::string Gzip(const std::string& bytes) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, bytes.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Big-endian u32, as IDX headers store dims.
inline std::string BigEndian32(uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
}

// Mutates `valid` `rounds` times (flip bytes, cut the tail, or both) and
// hands each variant to `read`, which must return without crashing.
inline void CorruptAndRead(const std::string& valid, int rounds, const std::function<void(const std::string&)>& read) {
  std::mt19937 rng(12345);
  for (int r = 0; r < rounds; ++r) {
    std::string bytes = valid;
    int mode = r % 3;
    if (mode != 1) {
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < flips && !bytes.empty(); ++i) bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
    }
    if (mode != 0) bytes.resize(rng() % (bytes.size() + 1));
    read(bytes);
  }
}

}  // namespace tfg::data::testing
