// STUB (being written): reference newton, chatterjee-ruina, aghili.
#include "reference.hpp"
namespace impact::ref {
Result<double> newton(const ContactProblem<double>&) { return make_result<double>(Status::inconsistent); }
Result<double> chatterjee_ruina(const ContactProblem<double>&) { return make_result<double>(Status::inconsistent); }
Result<double> aghili(const ContactProblem<double>&) { return make_result<double>(Status::inconsistent); }
}  // namespace impact::ref
