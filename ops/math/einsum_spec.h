// The equation of einsum ("ij,jk->ik", "...ij,...jk->...ik", "ii->i",
// "ij->" ...), as tf.einsum / np.einsum read it: a term per operand, one
// letter per dimension, "..." for any number of leading-or-inner dims that
// broadcast against each other (NumPy rules, aligned right); without "->"
// the output is "..." then every letter used exactly once, sorted. Letters
// missing from the output are summed over; a letter repeated in one term
// takes that term's diagonal.
//
// tfg also accepts a letter repeated in the output (it writes the diagonal
// and leaves the rest 0): einsum's gradient needs it for "ii->i".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/core/shape.h"
#include "ops/core/status.h"

namespace tfg::math::einsum {

// The equation as text: its terms with spaces removed, the output made
// explicit.
struct EquationText {
  std::vector<std::string> inputs;
  std::string output;
};
// Errors name the equation: bad characters, more than one "..." in a term,
// an output letter no input has.
Result<EquationText> ParseEquation(std::string_view equation);
// "ab,bc->ac"
std::string JoinEquation(const std::vector<std::string>& inputs, const std::string& output);

// Labels as ids: letters 0..51, the dims of "..." from 52 on (the first
// broadcast dim is 52).
constexpr int kEllipsisLabel = 52;

// The equation bound to operands of known ranks.
struct BoundEquation {
  std::vector<std::vector<int>> inputs;  // label per dim of each operand
  std::vector<int> output;               // label per output dim
  int num_labels = 0;                    // ids are < num_labels
};
// Fails when an operand's rank does not fit its term ("ij" for a 3-D
// operand; "...ij" for a 1-D one).
Result<BoundEquation> Bind(const EquationText& eq, const std::vector<int>& ranks);

// The size of every label from the operand shapes (-1: unknown). Letters
// must agree everywhere; ellipsis dims broadcast (1 against n). Errors name
// the label, both sizes and the shapes.
Result<std::vector<int64_t>> LabelSizes(const std::string& equation, const BoundEquation& b,
                                        const std::vector<PartialShape>& shapes);

// The output shape for label sizes from LabelSizes.
std::vector<int64_t> OutputDims(const BoundEquation& b, const std::vector<int64_t>& sizes);

}  // namespace tfg::math::einsum
