#include "ops/math/cwise_unary_util.h"

namespace tfg {

GradFn UnaryGradFn(UnaryGrad rule) {
  return [rule](GradContext& g) -> Status {
    TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
    TFG_ASSIGN_OR_RETURN(g.input_grads[0], rule(g, dy, g.input(0), g.output(0)));
    return Status::OK();
  };
}

}  // namespace tfg
