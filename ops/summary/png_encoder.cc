#include "ops/summary/png_encoder.h"

#include <zlib.h>

#include <limits>
#include <string_view>

namespace tfg::summary {
namespace {

constexpr char kSignature[] = "\x89PNG\r\n\x1a\n";

void AppendBigEndian32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

// length | type | data | CRC-32 of type and data.
void AppendChunk(std::string& out, std::string_view type, std::string_view data) {
  AppendBigEndian32(out, static_cast<uint32_t>(data.size()));
  out.append(type);
  out.append(data);
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(type.data()), static_cast<uInt>(type.size()));
  crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
  AppendBigEndian32(out, static_cast<uint32_t>(crc));
}

uint8_t ColorType(int channels) {
  switch (channels) {
    case 1: return 0;  // grayscale
    case 2: return 4;  // grayscale + alpha
    case 3: return 2;  // RGB
    default: return 6; // RGBA
  }
}

std::string HeaderChunkData(int64_t height, int64_t width, int channels) {
  std::string ihdr;
  AppendBigEndian32(ihdr, static_cast<uint32_t>(width));
  AppendBigEndian32(ihdr, static_cast<uint32_t>(height));
  ihdr.push_back(8);  // bits per sample
  ihdr.push_back(static_cast<char>(ColorType(channels)));
  ihdr.append(3, '\0');  // deflate, adaptive filtering, no interlace
  return ihdr;
}

// Each row behind a filter-type byte 0 (none), deflated.
Result<std::string> CompressedRows(const uint8_t* pixels, int64_t height, int64_t row_bytes) {
  std::string raw;
  raw.reserve(static_cast<size_t>(height * (row_bytes + 1)));
  for (int64_t y = 0; y < height; ++y) {
    raw.push_back('\0');
    raw.append(reinterpret_cast<const char*>(pixels + y * row_bytes), static_cast<size_t>(row_bytes));
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string packed(size, '\0');
  int rc = compress2(reinterpret_cast<Bytef*>(packed.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
                     static_cast<uLong>(raw.size()), Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) return Internal("PNG encoding: zlib compress2 failed ({})", rc);
  packed.resize(size);
  return packed;
}

}  // namespace

Result<std::string> EncodePng(const uint8_t* pixels, int64_t height, int64_t width, int channels) {
  if (channels < 1 || channels > 4) {
    return InvalidArgument("PNG encoding: an image needs 1 to 4 channels, got {}", channels);
  }
  // PNG stores sizes in 31 bits; zlib takes sizes as uLong.
  constexpr int64_t kMaxSide = std::numeric_limits<int32_t>::max();
  if (height < 1 || width < 1 || height > kMaxSide || width > kMaxSide ||
      height * width * channels > (int64_t{1} << 31)) {
    return InvalidArgument("PNG encoding: cannot encode a {}x{} image of {} channels", height, width, channels);
  }
  TFG_ASSIGN_OR_RETURN(std::string idat, CompressedRows(pixels, height, width * channels));
  std::string png(kSignature, sizeof(kSignature) - 1);
  AppendChunk(png, "IHDR", HeaderChunkData(height, width, channels));
  AppendChunk(png, "IDAT", idat);
  AppendChunk(png, "IEND", "");
  return png;
}

}  // namespace tfg::summary
