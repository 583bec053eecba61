// STUB (being written): reference stronge and morgan.
#include "reference.hpp"
namespace impact::ref {
Result<double> morgan(const ContactProblem<double>&, const Options&) { return make_result<double>(Status::inconsistent); }
Result<double> stronge(const ContactProblem<double>&, const Options&) { return make_result<double>(Status::inconsistent); }
}  // namespace impact::ref
