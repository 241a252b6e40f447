#include "interp/data/npz.h"

#include <zlib.h>

#include <cstring>
#include <set>

#include "interp/data/byte_order.h"
#include "interp/data/byte_source.h"
#include "interp/data/npy.h"
#include "ops/core/memory_budget.h"
#include "ops/core/safe_file.h"

namespace tfg::data {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr size_t kLocalBytes = 30;
constexpr size_t kCentralBytes = 46;
constexpr size_t kEndBytes = 22;
// zlib's deflate never shrinks data by more than about 1032:1.
constexpr uint64_t kMaxDeflateRatio = 1032;
// 1980-01-01 00:00 in DOS format: the archive's bytes do not depend on the clock.
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;

// Little-endian reads at a checked position of the archive.
struct Cursor {
  std::string_view bytes;
  size_t pos;
  bool Has(size_t n) const { return pos <= bytes.size() && n <= bytes.size() - pos; }
  uint16_t U16(size_t at) const { return LoadLittleEndian<uint16_t>(Ptr(at)); }
  uint32_t U32(size_t at) const { return LoadLittleEndian<uint32_t>(Ptr(at)); }
  const unsigned char* Ptr(size_t at) const { return reinterpret_cast<const unsigned char*>(bytes.data() + pos + at); }
};

struct Member {
  std::string name;
  uint16_t method = 0;
  uint16_t flags = 0;
  uint32_t crc = 0;
  uint64_t packed = 0;
  uint64_t size = 0;
  uint64_t local_offset = 0;
};

Status Corrupt(const std::string& file, const std::string& what) {
  return Error(Code::kDataLoss, "'{}' is not a valid .npz archive: {}", file, what);
}

Result<size_t> FindEnd(std::string_view bytes, const std::string& file) {
  if (bytes.size() < kEndBytes) return Corrupt(file, "it is too short to hold a zip directory");
  const size_t lowest = bytes.size() > kEndBytes + 0xffff ? bytes.size() - kEndBytes - 0xffff : 0;
  for (size_t at = bytes.size() - kEndBytes + 1; at-- > lowest;) {
    if (LoadLittleEndian<uint32_t>(reinterpret_cast<const unsigned char*>(bytes.data() + at)) == kEndSig) return at;
  }
  return Corrupt(file, "no end of the zip directory (the file is truncated or not a zip archive)");
}

Result<std::vector<Member>> ReadDirectory(std::string_view bytes, const std::string& file) {
  TFG_ASSIGN_OR_RETURN(size_t end_at, FindEnd(bytes, file));
  Cursor end{bytes, end_at};
  const uint16_t count = end.U16(10);
  const uint32_t dir_size = end.U32(12), dir_offset = end.U32(16);
  if (count == 0xffff || dir_size == 0xffffffffu || dir_offset == 0xffffffffu) {
    return Unimplemented("'{}' is a zip64 archive (over 4 GiB or 65535 arrays): not supported yet", file);
  }
  if (dir_offset > end_at || dir_size > end_at - dir_offset) return Corrupt(file, "the zip directory lies outside the file");
  std::vector<Member> members;
  Cursor c{bytes.substr(0, dir_offset + dir_size), dir_offset};
  for (uint16_t i = 0; i < count; ++i) {
    if (!c.Has(kCentralBytes) || c.U32(0) != kCentralSig) return Corrupt(file, fmt::format("directory entry {} is malformed", i));
    Member m;
    m.flags = c.U16(8);
    m.method = c.U16(10);
    m.crc = c.U32(16);
    m.packed = c.U32(20);
    m.size = c.U32(24);
    const size_t name_len = c.U16(28), extra_len = c.U16(30), comment_len = c.U16(32);
    m.local_offset = c.U32(42);
    if (!c.Has(kCentralBytes + name_len + extra_len + comment_len)) {
      return Corrupt(file, fmt::format("directory entry {} runs past the directory", i));
    }
    m.name.assign(reinterpret_cast<const char*>(c.Ptr(kCentralBytes)), name_len);
    if (m.packed == 0xffffffffu || m.size == 0xffffffffu || m.local_offset == 0xffffffffu) {
      return Unimplemented("'{}' is a zip64 archive (an array over 4 GiB): not supported yet", file);
    }
    c.pos += kCentralBytes + name_len + extra_len + comment_len;
    members.push_back(std::move(m));
  }
  return members;
}

// The compressed bytes of `m`, after its local header.
Result<std::string_view> Payload(std::string_view bytes, const Member& m, const std::string& file) {
  Cursor c{bytes, static_cast<size_t>(m.local_offset)};
  if (!c.Has(kLocalBytes) || c.U32(0) != kLocalSig) return Corrupt(file, fmt::format("the header of '{}' is missing", m.name));
  const size_t skip = kLocalBytes + c.U16(26) + c.U16(28);
  if (!c.Has(skip) || m.packed > bytes.size() - c.pos - skip) {
    return Corrupt(file, fmt::format("'{}' runs past the end of the file (truncated?)", m.name));
  }
  return bytes.substr(c.pos + skip, m.packed);
}

Result<std::string> Inflate(std::string_view packed, const Member& m, const std::string& file) {
  if (m.size > packed.size() * kMaxDeflateRatio + 64) {
    return Corrupt(file, fmt::format("'{}' claims {} bytes from {} compressed ones", m.name, m.size, packed.size()));
  }
  std::string out(m.size, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return Internal("zlib: inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  zs.avail_in = static_cast<uInt>(packed.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&zs, Z_FINISH);
  const uint64_t produced = zs.total_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END || produced != m.size) {
    return Corrupt(file, fmt::format("'{}' does not inflate to its recorded {} bytes", m.name, m.size));
  }
  return out;
}

Result<std::string> Extract(std::string_view bytes, const Member& m, const std::string& file) {
  if (m.flags & 1) return Unimplemented("'{}': '{}' is encrypted: not supported", file, m.name);
  if (m.method != 0 && m.method != 8) {
    return Unimplemented("'{}': '{}' is compressed with zip method {}: not supported (stored and deflate are)", file,
                         m.name, m.method);
  }
  TFG_ASSIGN_OR_RETURN(std::string_view packed, Payload(bytes, m, file));
  std::string out;
  if (m.method == 0) {
    if (m.size != m.packed) return Corrupt(file, fmt::format("'{}' is stored with two different sizes", m.name));
    out.assign(packed);
  } else {
    TFG_ASSIGN_OR_RETURN(out, Inflate(packed, m, file));
  }
  if (crc32(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())) != m.crc) {
    return Corrupt(file, fmt::format("'{}' fails its CRC-32 check", m.name));
  }
  return out;
}

void Put16(std::string& out, uint16_t v) {
  unsigned char b[2];
  StoreLittleEndian(v, b);
  out.append(reinterpret_cast<char*>(b), 2);
}
void Put32(std::string& out, uint32_t v) {
  unsigned char b[4];
  StoreLittleEndian(v, b);
  out.append(reinterpret_cast<char*>(b), 4);
}

Result<std::string> Deflate(const std::string& in) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Internal("zlib: deflateInit2 failed");
  }
  std::string out(deflateBound(&zs, static_cast<uLong>(in.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Internal("zlib: deflate did not finish");
  return out;
}

// The fields local and central headers share, from "version needed" on.
void PutCommon(std::string& out, uint16_t method, uint32_t crc, size_t packed, size_t size, size_t name_len) {
  Put16(out, 20);  // version needed: 2.0
  Put16(out, 0);   // flags
  Put16(out, method);
  Put16(out, 0);  // time
  Put16(out, kDosDate);
  Put32(out, crc);
  Put32(out, static_cast<uint32_t>(packed));
  Put32(out, static_cast<uint32_t>(size));
  Put16(out, static_cast<uint16_t>(name_len));
  Put16(out, 0);  // extra field length
}

}  // namespace

Result<NamedArrays> DecodeNpz(std::string_view bytes, const std::string& file) {
  TFG_ASSIGN_OR_RETURN(std::vector<Member> members, ReadDirectory(bytes, file));
  NamedArrays out;
  std::set<std::string> seen;
  for (const Member& m : members) {
    if (m.name.empty() || m.name.back() == '/') continue;  // directories
    TFG_ASSIGN_OR_RETURN(std::string npy, Extract(bytes, m, file));
    std::string key = m.name.size() > 4 && m.name.ends_with(".npy") ? m.name.substr(0, m.name.size() - 4) : m.name;
    if (!seen.insert(key).second) return Corrupt(file, fmt::format("it holds '{}' twice", key));
    auto t = DecodeNpy(npy, file + ":" + m.name);
    if (!t.ok()) return t.status();
    out.emplace_back(std::move(key), std::move(t).value());
  }
  return out;
}

Result<NamedArrays> ReadNpzFile(const std::string& path) {
  TFG_ASSIGN_OR_RETURN(std::string bytes, ReadRegularFile(path, static_cast<uint64_t>(MemoryLimit()), ".npz archive"));
  return DecodeNpz(bytes, path);
}

Result<std::string> EncodeNpz(const NamedArrays& arrays, bool compressed) {
  std::string out, directory;
  std::set<std::string> seen;
  for (const auto& [key, tensor] : arrays) {
    if (key.empty() || !seen.insert(key).second) {
      return InvalidArgument("the names of a .npz archive's arrays must be non-empty and unique, got '{}'", key);
    }
    TFG_ASSIGN_OR_RETURN(std::string npy, EncodeNpy(tensor));
    std::string packed = npy;
    if (compressed) {
      TFG_ASSIGN_OR_RETURN(packed, Deflate(npy));
    }
    const std::string name = key + ".npy";
    if (npy.size() >= 0xffffffffu || out.size() >= 0xffffffffu || name.size() > 0xffff) {
      return Unimplemented("array '{}' would make a zip64 archive (over 4 GiB): not supported yet", key);
    }
    const uint16_t method = compressed ? 8 : 0;
    const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(npy.data()), static_cast<uInt>(npy.size()));
    const size_t offset = out.size();
    Put32(out, kLocalSig);
    PutCommon(out, method, crc, packed.size(), npy.size(), name.size());
    out += name;
    out += packed;
    Put32(directory, kCentralSig);
    Put16(directory, 20);  // made by: version 2.0
    PutCommon(directory, method, crc, packed.size(), npy.size(), name.size());
    Put16(directory, 0);  // comment length
    Put16(directory, 0);  // disk
    Put16(directory, 0);  // internal attributes
    Put32(directory, 0);  // external attributes
    Put32(directory, static_cast<uint32_t>(offset));
    directory += name;
  }
  if (arrays.size() >= 0xffff || out.size() >= 0xffffffffu) {
    return Unimplemented("the archive would need zip64 (over 4 GiB or 65535 arrays): not supported yet");
  }
  const size_t dir_offset = out.size();
  out += directory;
  Put32(out, kEndSig);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, static_cast<uint16_t>(arrays.size()));
  Put16(out, static_cast<uint16_t>(arrays.size()));
  Put32(out, static_cast<uint32_t>(directory.size()));
  Put32(out, static_cast<uint32_t>(dir_offset));
  Put16(out, 0);  // comment length
  return out;
}

Status WriteNpzFile(const std::string& path, const NamedArrays& arrays, bool compressed) {
  TFG_ASSIGN_OR_RETURN(std::string bytes, EncodeNpz(arrays, compressed));
  return WriteFileAtomically(path, bytes);
}

}  // namespace tfg::data
