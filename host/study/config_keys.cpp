#include "study/config_keys.hpp"

#include <string>

#include "engine/run_keys.hpp"
#include "study/config.hpp"

namespace impact::study {

const std::vector<io::KeyDoc>& study_key_docs() {
  static const std::vector<io::KeyDoc> docs = [] {
    std::vector<io::KeyDoc> k = {
        {"study.name", "string", "study", "",
         "the study's name (summary.md; output.dir's default out/NAME, where it must be a plain name)"},
        {"study.description", "string", "", "", "one line for summary.md"},
        {"study.scenario", "string", "contact", "", "the physical system (impact scenarios)"},
        {"study.law", "string", "", "", "one law (the same as laws = [law])"},
        {"study.laws", "array of strings", "[\"jia\"]", "", "the laws evaluated on the same samples (impact laws)"}};
    for (io::KeyDoc& d : engine::run_key_docs(true, true, kMaxChunk)) k.push_back(d);
    const std::vector<io::KeyDoc> rest = {
        {"design.kind", "string", "mc", "", "grid, mc, lhs, sobol, saltelli or imported (docs/study.md, Designs)"},
        {"design.n", "integer", "1000", "",
         "rows (mc, lhs, sobol); base rows N of a saltelli design (N (d + 2) rows, N (2d + 2) with second_order)"},
        {"design.seed", "integer", "1", "", "the random designs' seed (mc, lhs): the same rows on every machine"},
        {"design.skip_first", "boolean", "true", "", "sobol, saltelli: leave out the sequence's first point (the origin)"},
        {"design.file", "string", "", "",
         "imported: a sample matrix; saltelli: SALib's Saltelli matrix (relative to the config's folder)"},
        {"design.second_order", "boolean", "false", "",
         "saltelli: SALib's calc_second_order layout, for second-order Sobol indices (sensitivity2.csv)"},
        {"params.NAME", "number, string or table", "the scenario's", "the parameter's",
         "a scenario parameter: a number (fixed), \"uniform:LO:HI\", \"normal:MEAN:SD\", \"lognormal:MU:SIGMA\", "
         "\"truncnormal:MEAN:SD:LO:HI\", \"linspace:A:B:COUNT\" or a table {dist = ...} (the scenarios' "
         "parameters, with units: below)"},
        {"params.from_salib", "string", "", "",
         "a SALib problem (JSON: names, bounds, dists unif/norm/lognorm/truncnorm) whose parameters the study varies"},
        {"output.dir", "string", "out/NAME", "", "the output folder (a run's own: docs/study.md, The output folder)"},
        {"output.formats", "array of strings", R"(["csv", "npy", "salib"])", "", "the tables written: csv, npy, salib"},
        {"output.columns", "array of strings", "[]", "",
         "the columns of the SALib Y files and of summary.md's table ([]: the scenario's outputs)"},
        {"output.csv_max_rows", "integer", "200000", "", "the CSV tables' rows at most when .npy is written too (0: no limit)"},
        {"sensitivity.outputs", "array of strings", "", "", "the outputs whose Sobol indices are computed (a saltelli design)"},
        {"sensitivity.bootstrap", "integer", "200", "",
         "bootstrap resamples of the confidence intervals (10 to " + std::to_string(kMaxBootstrap) + ")"},
        {"sensitivity.confidence", "number", "0.95", "", "the intervals' confidence level, in (0, 1)"},
        {"plots[].kind", "string", "", "", "sweep, hist or scatter"},
        {"plots[].x", "string", "", "", "sweep: a swept parameter; scatter: a column"},
        {"plots[].y", "string or array of strings", "", "", "the columns drawn"},
        {"plots[].file", "string", "", "", "the picture's name in the output folder (NAME.png, .pdf or .svg)"},
        {"plots[].title", "string", "", "", "the title (mathtext allowed)"},
        {"plots[].law", "string", "", "", "one law of the study (default: every law, overlaid)"},
        {"plots[].bins", "integer", "60", "", "hist: the bins"}};
    k.insert(k.end(), rest.begin(), rest.end());
    return k;
  }();
  return docs;
}

}  // namespace impact::study
