#include "cli/listings.hpp"

#include "engine/column_info.hpp"
#include "engine/registry.hpp"
#include "impact/columns.hpp"
#include "systems/scenarios.hpp"

namespace impact::cli {

namespace {

// "  NAME      [UNIT]     meaning": one column of a listing ("-" for a pure number, blank for
// no quantity).
void column_line(std::FILE* out, const engine::ColumnInfo& c) {
  const std::string unit = c.unit.empty() ? "" : c.unit == "1" ? "[-]" : "[" + c.unit + "]";
  std::fprintf(out, "    %-14s %-9s %s\n", c.name.c_str(), unit.c_str(), c.meaning.c_str());
}

}  // namespace

void print_laws(std::FILE* out) {
  std::fprintf(out, "  (every law reads these inputs and writes these outputs; SI units for SI inputs)\n");
  for (int k = 0; k < kNumInputs; ++k) column_line(out, *engine::contact_column(kInputNames[k]));
  for (const char* name : kCommonOutputNames) column_line(out, *engine::contact_column(name));
  std::fprintf(out, "\n");
  for (const engine::LawInfo& l : engine::all_laws()) {
    std::fprintf(out, "%-18s %s\n", l.name.c_str(), l.summary.c_str());
    std::fprintf(out, "%-18s reads W_*, n_*, v_*%s%s%s%s\n", "", l.use.mu ? ", mu" : "", l.use.e ? ", e" : "",
                 l.use.e_t ? ", e_t" : "", l.use.eta0 ? ", eta0" : "");
    std::fprintf(out, "%-18s writes P_*, vf_*, dE, status", "");
    for (const ExtraColumn& x : l.extras) std::fprintf(out, ", %s", x.name);
    std::fprintf(out, "\n");
    for (const ExtraColumn& x : l.extras) column_line(out, engine::column_info(x));
  }
}

void print_scenarios(std::FILE* out) {
  for (const systems::ScenarioInfo& sc : systems::all_scenarios()) {
    std::fprintf(out, "%s: %s\n", sc.name.c_str(), sc.summary.c_str());
    for (const systems::ScenarioParam& p : sc.params) {
      const std::string unit = std::string(p.unit) == "1" ? "[-]" : "[" + std::string(p.unit) + "]";
      std::fprintf(out, "  %-8s %-12.6g %-8s %s\n", p.name, p.value, unit.c_str(), p.help);
    }
    std::fprintf(out, "  outputs:%s\n", sc.body_outputs.empty() ? " (contact-space columns only)" : "");
    for (const engine::ColumnInfo& o : sc.body_outputs) column_line(out, o);
    std::fprintf(out, "\n");
  }
}

}  // namespace impact::cli
