#include "calibrate/config_keys.hpp"

#include "engine/run_keys.hpp"

namespace impact::calibrate {

const std::vector<io::KeyDoc>& calibrate_key_docs() {
  static const std::vector<io::KeyDoc> docs = [] {
    std::vector<io::KeyDoc> k = {
        {"calibrate.name", "string", "calibration", "",
         "the run's name (summary.md; output.dir's default out/NAME, where it must be a plain name)"},
        {"calibrate.description", "string", "", "", "one line for summary.md"},
        {"calibrate.scenario", "string", "", "", "the physical system of the experiments (required; impact scenarios)"},
        {"calibrate.law", "string", "", "", "the law calibrated (required unless laws is given)"},
        {"calibrate.laws", "array of strings", "[]", "",
         "two laws or more: their evidence compared by SMC, each into output.dir/LAW (Comparing laws)"},
        {"calibrate.method", "string", "smc", "",
         "smc (the posterior, its evidence and modes), ensemble (or mcmc: the stretch-move sampler) or fit (the "
         "maximum and the Laplace approximation)"}};
    for (io::KeyDoc& d : engine::run_key_docs(false, false, 0)) k.push_back(d);
    const std::vector<io::KeyDoc> rest = {
        {"data.file", "string", "", "", "the experiments' CSV (required; relative to the config's folder)"},
        {"data.observed", "array of strings", "", "", "the outputs measured (required: body outputs or contact columns)"},
        {"data.sigma", "table", "{}", "the output's",
         "per observed output without a sigma_OUTPUT column: its measurement sd (a number), or a prior (a free noise "
         "parameter sigma_OUTPUT)"},
        {"data.ignore", "array of strings", "[]", "", "columns of the file that are not used (labels, notes)"},
        {"params.NAME", "number or string", "the scenario's", "the parameter's",
         "a scenario parameter: a number (fixed for every experiment) or a prior \"uniform:LO:HI\", \"normal:MEAN:SD\", "
         "\"lognormal:MU:SIGMA\", \"truncnormal:MEAN:SD:LO:HI\" (free)"},
        {"smc.particles", "integer or \"auto\"", "auto", "",
         "particles in all (a multiple of runs); auto: 2048 on the CPU, 32768 on a GPU"},
        {"smc.runs", "integer", "16", "", "independent populations: the evidence's standard error from their spread"},
        {"smc.ess_target", "number", "0.5", "", "the tempering's effective-sample-size fraction per stage, in (0, 1)"},
        {"smc.seed", "integer", "1", "", "the seed: the same draws on every machine and backend's CPU path"},
        {"smc.max_stages", "integer", "500", "", "stages at most (a run that has not reached beta = 1 says so)"},
        {"smc.moves", "integer", "64", "", "Metropolis steps per stage at most"},
        {"mcmc.walkers", "integer", "max(16, 4 d)", "", "the ensemble's walkers (even, at least 2 d)"},
        {"mcmc.steps", "integer", "2000", "", "the ensemble's steps"},
        {"mcmc.burn", "integer", "steps / 4", "", "steps left out of the summary and samples"},
        {"mcmc.seed", "integer", "1", "", "the seed"},
        {"mcmc.a", "number", "2", "", "the stretch move's scale (> 1)"},
        {"fit.algorithm", "string", "bobyqa", "", "the local optimiser: bobyqa, neldermead, sbplx or cobyla (NLopt)"},
        {"fit.starts", "integer", "8", "", "starts of the local optimiser at most"},
        {"fit.seed", "integer", "1", "", "the seed of the starts and the global design"},
        {"fit.global", "integer or \"auto\"", "auto", "",
         "points of the global stage's scrambled Sobol' design (0: none; auto: about a second of the law)"},
        {"fit.xtol", "number", "1e-8", "", "relative tolerance on the parameters"},
        {"fit.ftol", "number", "1e-12", "", "absolute tolerance on log p"},
        {"fit.max_evals", "integer", "0", "", "evaluations per start at most (0: 400 (d + 1)^2)"},
        {"fit.laplace", "boolean", "true", "", "the Hessian at the maximum and the Laplace covariance"},
        {"output.dir", "string", "out/NAME", "", "the output folder (a run's own)"},
        {"output.plots", "boolean", "true", "", "draw corner.png and predictive.png (comparison.png with laws)"}};
    k.insert(k.end(), rest.begin(), rest.end());
    return k;
  }();
  return docs;
}

}  // namespace impact::calibrate
