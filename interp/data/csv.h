// CSV files as 2-D tensors [rows, columns].
//
// Fields are separated by one delimiter character; a field may be quoted
// with double quotes (the delimiter and newlines are then literal, "" is a
// quote). Lines are "\n" or "\r\n"; blank lines are skipped. Every row must
// have as many fields as the first. Numbers may have spaces around them;
// floats also read "nan", "inf" and "-inf"; bools read true/false/1/0.
// With dtype string every field is kept as its text.
//
// Errors name the line and field (1-based): "'d.csv' line 3, field 2:
// 'abc' is not a number".
#pragma once

#include <string>
#include <string_view>

#include "ops/core/tensor.h"

namespace tfg::data {

struct CsvOptions {
  DType dtype = DType::kF32;
  bool skip_header = false;  // the first non-blank record is column names
  char delimiter = ',';
};

// `name` is the file name used in messages.
Result<Tensor> ParseCsv(std::string_view text, const std::string& name, const CsvOptions& options = {});

// The file at `path` (gzipped files are read too).
Result<Tensor> ReadCsvFile(const std::string& path, const CsvOptions& options = {});

}  // namespace tfg::data
