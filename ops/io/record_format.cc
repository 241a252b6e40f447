#include "ops/io/record_format.h"

#include "ops/io/crc32c.h"

namespace tfg::io {
namespace {

void PutLittleEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t GetLittleEndian(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

uint32_t MaskedCrc(const char* data, size_t n) { return MaskCrc(Crc32c(data, n)); }

Status Corrupt(const InputFile& file, uint64_t start, const std::string& what) {
  return Error(Code::kDataLoss, "'{}': corrupt record at offset {}: {}", file.path(), start, what);
}

}  // namespace

void AppendRecord(std::string& out, std::string_view data) {
  size_t header = out.size();
  PutLittleEndian(out, data.size(), 8);
  PutLittleEndian(out, MaskedCrc(out.data() + header, 8), 4);
  out.append(data);
  PutLittleEndian(out, MaskedCrc(data.data(), data.size()), 4);
}

Result<std::optional<std::string>> ReadRecord(InputFile& file) {
  const uint64_t start = file.offset();
  std::string header;
  TFG_ASSIGN_OR_RETURN(size_t got, file.ReadAppend(header, kRecordHeaderBytes));
  if (got == 0) return std::optional<std::string>();
  if (got < kRecordHeaderBytes) {
    return Corrupt(file, start, fmt::format("the file ends inside the record's {}-byte header", kRecordHeaderBytes));
  }
  const uint64_t length = GetLittleEndian(header.data(), 8);
  if (GetLittleEndian(header.data() + 8, 4) != MaskedCrc(header.data(), 8)) {
    return Corrupt(file, start, "the checksum of its length does not match");
  }
  std::optional<uint64_t> left = file.remaining();
  if (left && (*left < kRecordFooterBytes || length > *left - kRecordFooterBytes)) {
    return Corrupt(file, start, fmt::format("it claims {} bytes but the file has only {} left", length, *left));
  }
  // A gzipped file's size says nothing of what it holds: the cap keeps a
  // corrupt or hostile length from taking all memory.
  if (length > MaxRecordBytes()) return RecordTooLong(file.path(), "record", start, length);
  std::string data;
  TFG_ASSIGN_OR_RETURN(got, file.ReadAppend(data, length));
  std::string footer;
  size_t footer_got = 0;
  if (got == length) {
    TFG_ASSIGN_OR_RETURN(footer_got, file.ReadAppend(footer, kRecordFooterBytes));
  }
  if (got < length || footer_got < kRecordFooterBytes) {
    return Corrupt(file, start, fmt::format("the file ends inside the record ({} bytes of data)", length));
  }
  if (GetLittleEndian(footer.data(), 4) != MaskedCrc(data.data(), data.size())) {
    return Corrupt(file, start, "the checksum of its data does not match");
  }
  return std::optional<std::string>(std::move(data));
}

}  // namespace tfg::io
