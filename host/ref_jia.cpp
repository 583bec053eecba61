// STUB (being written): reference jia.
#include "reference.hpp"
namespace impact::ref {
Result<double> jia(const ContactProblem<double>&, const Options&) { return make_result<double>(Status::inconsistent); }
}  // namespace impact::ref
