#include "cli/listings.hpp"

#include "engine/registry.hpp"
#include "systems/scenarios.hpp"

namespace impact::cli {

void print_laws(std::FILE* out) {
  for (const engine::LawInfo& l : engine::all_laws()) {
    std::fprintf(out, "%-18s %s\n", l.name.c_str(), l.summary.c_str());
    std::fprintf(out, "%-18s reads W_*, n_*, v_*%s%s%s%s\n", "", l.use.mu ? ", mu" : "", l.use.e ? ", e" : "",
                 l.use.e_t ? ", e_t" : "", l.use.eta0 ? ", eta0" : "");
    std::fprintf(out, "%-18s writes P_*, vf_*, dE, status", "");
    for (const ExtraColumn& x : l.extras) std::fprintf(out, ", %s", x.name);
    std::fprintf(out, "\n");
  }
}

void print_scenarios(std::FILE* out) {
  for (const systems::ScenarioInfo& sc : systems::all_scenarios()) {
    std::fprintf(out, "%s: %s\n", sc.name.c_str(), sc.summary.c_str());
    for (const systems::ScenarioParam& p : sc.params) std::fprintf(out, "  %-8s %-12.6g %s\n", p.name, p.value, p.help);
    std::fprintf(out, "  outputs:");
    for (const std::string& o : sc.body_outputs) std::fprintf(out, " %s", o.c_str());
    std::fprintf(out, "%s\n\n", sc.body_outputs.empty() ? " (contact-space columns only)" : "");
  }
}

}  // namespace impact::cli
