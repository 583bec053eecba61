// The columns of a study's result table, per law: sample_id, every scenario parameter (the
// inputs), the contact-space outputs, the law's extra columns, status, the body-level outputs.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "engine/column_info.hpp"
#include "engine/registry.hpp"
#include "systems/scenarios.hpp"

namespace impact::study {

enum class ColKind { real, integer, modes, status };

// Where a column's values come from: the law's own result (P, vf, dE: in the law's precision), a
// part of it derived in double (P_n, P_t, vf_n, vf_t), one of the law's extra columns, the status,
// or the scenario's body-level outputs (double).
enum class ColSource { law, derived, extra, status, body };

struct StudyColumn {
  std::string name;
  ColKind kind = ColKind::real;
  ColSource source = ColSource::law;
};

// Contact-space outputs every law writes (after P, vf and dE, the derived normal/tangential
// parts): P_n = P.n, P_t = |P - P_n n|, vf_n = vf.n, vf_t = |vf - vf_n n|.
inline const std::vector<std::string>& contact_output_names() {
  static const std::vector<std::string> names = {"P_x", "P_y", "P_z", "P_n", "P_t", "vf_x", "vf_y", "vf_z", "vf_n", "vf_t", "dE"};
  return names;
}

// Output columns of one law in a scenario (not sample_id and the inputs).
inline std::vector<StudyColumn> law_output_columns(const engine::LawInfo& law, const systems::ScenarioInfo& sc) {
  std::vector<StudyColumn> out;
  for (const std::string& n : contact_output_names()) {
    const bool derived = n == "P_n" || n == "P_t" || n == "vf_n" || n == "vf_t";
    out.push_back({n, ColKind::real, derived ? ColSource::derived : ColSource::law});
  }
  for (const ExtraColumn& x : law.extras) {
    const ColKind kind = x.what == Extra::Modes ? ColKind::modes : x.what == Extra::Steps ? ColKind::integer : ColKind::real;
    out.push_back({x.name, kind, ColSource::extra});
  }
  out.push_back({"status", ColKind::status, ColSource::status});
  for (const engine::ColumnInfo& b : sc.body_outputs) out.push_back({b.name, ColKind::real, ColSource::body});
  return out;
}

// The unit, symbol and meaning of one of a law's output columns in a scenario (every column has
// one: a test holds each law and scenario to it).
inline engine::ColumnInfo column_info(const StudyColumn& col, const engine::LawInfo& law, const systems::ScenarioInfo& sc) {
  if (col.source == ColSource::extra)
    for (const ExtraColumn& x : law.extras)
      if (col.name == x.name) return engine::column_info(x);
  if (col.source == ColSource::body)
    for (const engine::ColumnInfo& o : sc.body_outputs)
      if (o.name == col.name) return o;
  if (const engine::ColumnInfo* c = engine::contact_column(col.name)) return *c;
  return {col.name, "", "", ""};
}

// The .npy field title of a column: "NAME: meaning [unit]".
inline std::string npy_title(const engine::ColumnInfo& c) { return c.name + ": " + engine::described(c); }

// One law's columns in a study: its output columns, and where each of the study's kept columns
// (the SALib Y files, the summary table and the Sobol indices use them) is among them.
struct LawColumns {
  const engine::LawInfo* law = nullptr;
  std::vector<StudyColumn> cols;  // law_output_columns
  std::vector<int> kept_pos;      // per kept column: its index in cols, or -1 (the law lacks it)
};

inline LawColumns law_columns(const engine::LawInfo& law, const systems::ScenarioInfo& sc, const std::vector<std::string>& kept) {
  LawColumns lc{&law, law_output_columns(law, sc), std::vector<int>(kept.size(), -1)};
  for (std::size_t k = 0; k < kept.size(); ++k)
    for (std::size_t j = 0; j < lc.cols.size(); ++j)
      if (lc.cols[j].name == kept[k]) lc.kept_pos[k] = static_cast<int>(j);
  return lc;
}

struct StudyColumns {
  std::vector<std::vector<StudyColumn>> per_law;  // in study.laws order
  bool has_output(const std::string& name) const {
    for (const auto& l : per_law)
      for (const StudyColumn& c : l)
        if (c.name == name && (c.kind == ColKind::real || c.kind == ColKind::integer)) return true;
    return false;
  }
  std::string output_list() const {
    std::vector<std::string> seen;
    std::string s;
    for (const auto& l : per_law)
      for (const StudyColumn& c : l) {
        if (c.kind != ColKind::real && c.kind != ColKind::integer) continue;
        bool dup = false;
        for (const std::string& x : seen) dup |= x == c.name;
        if (dup) continue;
        seen.push_back(c.name);
        s += (s.empty() ? "" : ", ") + c.name;
      }
    return s;
  }
};

inline StudyColumns study_columns(const std::vector<std::string>& laws, const systems::ScenarioInfo& sc) {
  StudyColumns c;
  for (const std::string& l : laws) {
    const engine::LawInfo* li = engine::find_law(l);
    c.per_law.push_back(li ? law_output_columns(*li, sc) : std::vector<StudyColumn>{});
  }
  return c;
}

}  // namespace impact::study
