#include "interp/interop/tf_tables.h"

#include <sstream>

namespace tfg::interop {
namespace {

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    out.emplace_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

// "axis=reduction_indices@1", "strides=strides(NHWC 4-list)", "axis=axis@N",
// "shared_name=@0 (the variable)".
std::optional<AttrRename> ParseRename(const std::string& item) {
  size_t eq = item.find('=');
  if (eq == std::string::npos) return std::nullopt;
  AttrRename r;
  r.tfg = item.substr(0, eq);
  std::string rhs = item.substr(eq + 1);
  if (rhs.find("(the variable)") != std::string::npos) {
    r.the_variable = true;
    return r;
  }
  if (size_t paren = rhs.find('('); paren != std::string::npos) {
    r.nhwc4 = rhs.find("NHWC 4-list", paren) != std::string::npos;
    rhs = rhs.substr(0, paren);
  }
  if (size_t at = rhs.find('@'); at != std::string::npos) {
    std::string where = rhs.substr(at + 1);
    rhs = rhs.substr(0, at);
    if (where == "N") {
      r.last_input = true;
    } else if (!where.empty() && where.find_first_not_of("0123456789") == std::string::npos) {
      r.tf_input = std::stoi(where);
    } else {
      return std::nullopt;  // "lr*grad@1": a computed input, no plain rename
    }
  }
  r.tf = rhs;
  return r;
}

TfArg ParseArg(const std::string& item) {
  TfArg a;
  size_t colon = item.find(':');
  a.name = item.substr(0, colon);
  std::string type = colon == std::string::npos ? "" : item.substr(colon + 1);
  if (size_t star = type.find('*'); star != std::string::npos) {
    a.number_attr = type.substr(0, star);
    type = type.substr(star + 1);
  }
  if (type.size() > 2 && type.front() == '[') {
    a.list_attr = type.substr(1, type.size() - 2);
  } else if (type.rfind("DT_", 0) == 0) {
    a.fixed_type = type;
  } else {
    a.type_attr = type;
  }
  return a;
}

}  // namespace

const TfAttrDef* TfOpSignature::FindAttr(std::string_view name) const {
  for (const TfAttrDef& a : attrs) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const TfTables& TfTables::Get() {
  static const TfTables* tables = new TfTables();
  return *tables;
}

TfTables::TfTables() {
  std::istringstream map(kTfOpMapTsv);
  for (std::string line; std::getline(map, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("tfg\t", 0) == 0) continue;
    std::vector<std::string> cols = Split(line, '\t');
    if (cols.size() < 5 || cols[1] != "op") continue;  // stdlib functions never appear in a GraphDef
    OpMapRow row;
    row.tfg = cols[0];
    row.tf_op = cols[2] == "-" ? "" : cols[2];
    if (cols[4] != "-") {
      for (const std::string& item : Split(cols[4], ',')) {
        if (auto r = ParseRename(item)) row.attrs.push_back(*r);
      }
    }
    rows_.push_back(std::move(row));
    const OpMapRow& added = rows_.back();
    by_tfg_.emplace(added.tfg, rows_.size() - 1);
    if (!added.tf_op.empty()) by_tf_.emplace(added.tf_op, rows_.size() - 1);
  }
  std::istringstream sigs(kTfOpSignaturesTsv);
  for (std::string line; std::getline(sigs, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols = Split(line, '\t');
    if (cols.size() != 4) continue;
    TfOpSignature s;
    s.op = cols[0];
    if (cols[1] != "-") {
      for (const std::string& a : Split(cols[1], ',')) s.inputs.push_back(ParseArg(a));
    }
    if (cols[2] != "-") {
      for (const std::string& a : Split(cols[2], ',')) s.outputs.push_back(ParseArg(a));
    }
    if (cols[3] != "-") {
      // "list(int)" holds no comma, so attrs split on ','.
      for (const std::string& a : Split(cols[3], ',')) {
        TfAttrDef d;
        size_t colon = a.find(':');
        d.name = a.substr(0, colon);
        d.type = colon == std::string::npos ? "" : a.substr(colon + 1);
        if (!d.type.empty() && d.type.back() == '=') {
          d.has_default = true;
          d.type.pop_back();
        }
        s.attrs.push_back(std::move(d));
      }
    }
    signatures_.emplace(s.op, std::move(s));
  }
}

const OpMapRow* TfTables::ByTfOp(std::string_view tf_op) const {
  auto it = by_tf_.find(tf_op);
  return it == by_tf_.end() ? nullptr : &rows_[it->second];
}

const OpMapRow* TfTables::ByTfg(std::string_view tfg_op) const {
  auto it = by_tfg_.find(tfg_op);
  return it == by_tfg_.end() ? nullptr : &rows_[it->second];
}

const TfOpSignature* TfTables::Signature(std::string_view tf_op) const {
  auto it = signatures_.find(tf_op);
  return it == signatures_.end() ? nullptr : &it->second;
}

}  // namespace tfg::interop
