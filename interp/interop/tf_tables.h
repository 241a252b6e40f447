// The two tables the importer and exporter translate with, compiled in:
// ops/tf_op_map.tsv (tfg op <-> TensorFlow op, attr renames, attrs that
// TensorFlow takes as inputs) and tf_op_signatures.tsv (each TensorFlow
// op's inputs, outputs and attrs, recorded from TensorFlow by
// tests/interop/gen_op_signatures.py), so that neither direction needs
// TensorFlow at run time.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfg::interop {

// One `tfg_attr=tf_attr` of tf_op_map.tsv's attrs column.
struct AttrRename {
  std::string tfg;
  std::string tf;           // empty for "shared_name=@0 (the variable)"
  int tf_input = -1;        // TensorFlow takes it as input N (-1: an attr)
  bool last_input = false;  // "@N": TensorFlow's last input
  bool nhwc4 = false;       // "(NHWC 4-list)": tfg's [h, w] is TensorFlow's [1, h, w, 1]
  bool the_variable = false;  // the variable an update op writes (TensorFlow input 0)
};

struct OpMapRow {
  std::string tfg;
  std::string tf_op;  // empty: no TensorFlow op
  std::vector<AttrRename> attrs;
};

// One input or output argument of a TensorFlow op.
struct TfArg {
  std::string name;
  std::string type_attr;    // "T"; empty when fixed or a type list
  std::string number_attr;  // "N": a list of N tensors of type_attr
  std::string list_attr;    // "Tcomponents": a list of the types in that attr
  std::string fixed_type;   // "DT_INT32" when fixed
};

struct TfAttrDef {
  std::string name;
  std::string type;  // "int", "list(int)", "type", "shape", "tensor", ...
  bool has_default = false;
};

struct TfOpSignature {
  std::string op;
  std::vector<TfArg> inputs;
  std::vector<TfArg> outputs;
  std::vector<TfAttrDef> attrs;
  const TfAttrDef* FindAttr(std::string_view name) const;
};

class TfTables {
 public:
  static const TfTables& Get();

  // The row for a GraphDef op (the first row naming it, for ops several
  // tfg ops map onto such as Fill); null when tfg has none.
  const OpMapRow* ByTfOp(std::string_view tf_op) const;
  // The row of a tfg op; null when the table has none.
  const OpMapRow* ByTfg(std::string_view tfg_op) const;
  const TfOpSignature* Signature(std::string_view tf_op) const;
  const std::vector<OpMapRow>& rows() const { return rows_; }

 private:
  TfTables();
  std::vector<OpMapRow> rows_;
  std::map<std::string, size_t, std::less<>> by_tf_;
  std::map<std::string, size_t, std::less<>> by_tfg_;
  std::map<std::string, TfOpSignature, std::less<>> signatures_;
};

// The embedded text of both tables (generated from the .tsv files at build time).
extern const char* const kTfOpMapTsv;
extern const char* const kTfOpSignaturesTsv;

}  // namespace tfg::interop
