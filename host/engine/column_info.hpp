// The unit, plot symbol and meaning of every contact-space column, stated once: the inputs and
// outputs of docs/INTERFACE.md and the normal / tangential parts a study derives. A law's extra
// columns state theirs in the law's header (ExtraColumn), a scenario's parameters and body outputs
// in its table (host/systems). Listings, metadata.json, the .npy field titles and every plot axis
// read these.
//
// Units are SI for inputs in SI (any consistent unit set scales alike): "1" for a pure number, ""
// for a column that is no quantity (status, modes, sample_id). Symbols are matplotlib mathtext
// without the dollars.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "impact/law_meta.hpp"

namespace impact::engine {

struct ColumnInfo {
  std::string name, unit, symbol, meaning;
};

// Every contact-space column: W_*, n_*, v_*, mu, e, e_t, eta0, P_*, P_n, P_t, vf_*, vf_n, vf_t, dE,
// status, and a study's sample_id.
const std::vector<ColumnInfo>& contact_columns();
// The contact-space column `name`, or null.
const ColumnInfo* contact_column(std::string_view name);
ColumnInfo column_info(const ExtraColumn& x);
// "meaning [unit]" ("meaning" for a pure number or no quantity): the one-line description of
// listings and the .npy field titles.
std::string described(const ColumnInfo& c);

}  // namespace impact::engine
