#include "ops/core/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace tfg::printable_test {
namespace {

TEST(PrintableBytesTest, PrintableAsciiIsUnchanged) { EXPECT_EQ(PrintableBytes("1.5e3, abc"), "1.5e3, abc"); }

TEST(PrintableBytesTest, ControlAndHighBytesAreEscaped) {
  // An ANSI escape sequence that would clear the terminal, a NUL, UTF-8.
  EXPECT_EQ(PrintableBytes(std::string("\x1b[2J\0x\xc3\xa9", 8)), "\\x1b[2J\\x00x\\xc3\\xa9");
  EXPECT_EQ(PrintableBytes("a\\b\n"), "a\\\\b\\x0a");
}

TEST(PrintableBytesTest, LongInputIsCutAndItsLengthGiven) {
  EXPECT_EQ(PrintableBytes(std::string(1000, 'z'), 5), "zzzzz... (1000 bytes)");
  EXPECT_EQ(PrintableBytes("12345", 5), "12345");
}

}  // namespace
}  // namespace tfg::printable_test
