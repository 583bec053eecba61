// The property test of the rule of a run's folder (resume/owned_folder.hpp): random sandboxes
// (tests/support/folder_rule.hpp), each with an earlier run of either kind or none and random
// entries, then a real run into its out/ folder: a study, a calibration (the sampler or the fit),
// a study in pieces with a checkpoint (resumed or not, its parts kept or merged), or `--merge` of
// a study's parts (parts.json as written, or with its last part dropped, its row count changed, a
// part beyond the listed ones or a part replaced by a link). Whether the run succeeds or is refused,
// the rule must hold: nothing outside the folder changed, nothing in it that the run may not take,
// no link followed.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>

#include "calibrate/config.hpp"
#include "calibrate/run.hpp"
#include "files.hpp"
#include "folder_rule.hpp"
#include "io/folder_names.hpp"
#include "resume/owned_folder.hpp"
#include "resume/parts.hpp"
#include "study/output_folder.hpp"
#include "study/pieces.hpp"
#include "study/run.hpp"
#include "study/session.hpp"
#include "systems/scenarios.hpp"
#include "text_study.hpp"

namespace impact {
namespace {

namespace fr = test::folder_rule;
namespace fs = std::filesystem;

constexpr std::uint64_t kRows = 200;  // pieces of 64 rows: 4 parts

std::string study_toml(fr::Choices& c) {
  std::string formats =
      c.pick(std::vector<std::string>{R"(["csv"])", R"(["csv", "npy"])", R"(["csv", "npy", "salib"])", R"(["npy", "salib"])"});
  return "[study]\nname = \"prop\"\nscenario = \"contact\"\nlaws = [\"newton\"]\n[run]\nbackend = \"serial\"\n"
         "[design]\nkind = \"mc\"\nn = " +
         std::to_string(kRows) +
         "\n[params]\nmu = \"uniform:0.1:0.9\"\n"
         "[output]\nformats = " +
         formats + "\n";
}

std::string calibrate_toml(fr::Choices& c, const std::string& data, const std::string& out) {
  std::string t = "[calibrate]\nname = \"prop\"\nscenario = \"ball\"\nlaw = \"chatterjee-ruina\"\n";
  if (c.coin(3)) t += "method = \"fit\"\n[fit]\nstarts = 2\nglobal = 16\n";
  else if (c.coin(2)) t += "method = \"ensemble\"\n";
  else t += "[smc]\nparticles = 32\nruns = 2\nmax_stages = 4\n";  // the default method
  return t + "[data]\nfile = \"" + data +
         "\"\nobserved = [\"Vx\", \"Vz\"]\nsigma = { Vx = 0.02, Vz = 0.02 }\n"
         "ignore = [\"shot\"]\n[params]\nV0z = -3.0\nmu = \"uniform:0:1\"\ne = \"uniform:0:1\"\n"
         "[mcmc]\nwalkers = 8\nsteps = 12\nburn = 4\n[output]\nplots = false\ndir = \"" +
         out + "\"\n";
}

// What a run writes in out/, for the checker: a study's files, and for one in pieces the parts of its
// tables (0..K-1) too.
std::vector<std::string> study_files(const study::LoadedStudy& s, const study::PieceOptions* po) {
  const systems::ScenarioInfo& sc = *systems::find_scenario(s.config.scenario);
  const study::RunResult lay = study::run_layout(s.config, sc, *s.design, engine::Backend::serial);
  std::vector<std::string> files = study::study_output_files(s.config, lay.files);
  if (po) {
    const std::uint64_t rows = s.design->rows(), B = study::stat_block_rows(rows);
    const std::uint64_t per = po->piece ? (std::min(po->piece, rows) + B - 1) / B * B : study::piece_rows(rows);
    for (std::uint64_t k = 0; k * per < rows; ++k)
      for (const std::string& f : lay.files) files.push_back(io::part_file_name(f, static_cast<int>(k)));
  }
  return files;
}

// A run prepared: what it writes in out/ (for the checker, read before it runs) and the run itself.
struct PreparedRun {
  std::string kind;                // "study" or "calibration"
  std::vector<std::string> files;  // its names in out/
  std::string skip;                // its own folder beside out/ (a checkpoint), relative to the sandbox
  std::string what;
  std::function<void()> go;  // refusals and failures are outcomes: it throws
};

// A study (which 0), a study in pieces with a checkpoint (1) or a calibration (2) into root/out.
PreparedRun prepare(fr::Choices& c, const std::string& root, int which, bool force, bool keep_parts = false,
                    const std::string& out_spelled = "") {
  const std::string out = out_spelled.empty() ? root + "/out" : out_spelled;
  PreparedRun r;
  if (which <= 1) {
    auto q = std::make_shared<study::StudyRequest>(test::text_study("", out));
    q->text = study_toml(c);
    q->force = force;
    r.kind = "study";
    r.what = "study";
    std::shared_ptr<study::LoadedStudy> s;
    try {
      s = std::make_shared<study::LoadedStudy>(study::load_study(*q));
    } catch (const std::exception&) {
      r.go = [] { throw std::runtime_error("the config"); };
      return r;
    }
    if (which == 0) {
      r.files = study_files(*s, nullptr);
      r.go = [s, q] { study::run_study(*s, *q, std::chrono::steady_clock::now(), nullptr); };
      return r;
    }
    auto po = std::make_shared<study::PieceOptions>();
    po->checkpoint = root + "/ck";
    po->resume = c.coin();
    po->keep_parts = keep_parts || c.coin();
    po->piece = c.coin(4) ? 0 : 64;
    r.what = std::string("pieces") + (po->resume ? " --resume" : "") + (po->keep_parts ? " --keep-parts" : "");
    r.files = study_files(*s, po.get());
    r.skip = "ck";
    r.go = [s, q, po] {
      resume::OneProcess one;
      if (!study::run_in_pieces(*s, *q, one, *po, std::chrono::steady_clock::now(), nullptr).ok)
        throw std::runtime_error("failed");
    };
    return r;
  }
  calibrate::CalibrateRequest q;
  q.config = "prop.toml";
  q.text = calibrate_toml(c, root + "/data.csv", out);
  q.toml = true;
  r.kind = "calibration";
  const auto cfg = std::make_shared<calibrate::CalibrateConfig>(calibrate::load_calibrate_config(q));
  r.files = cfg->method == "fit"
                ? std::vector<std::string>{"estimate.csv", "starts.csv", "predictive.csv", "summary.md", "metadata.json"}
                : std::vector<std::string>{"samples.csv", "samples.npy", "predictive.csv", "summary.md", "metadata.json"};
  r.what = "calibration (" + cfg->method + ")";
  r.go = [cfg, force] { calibrate::run_calibration(*cfg, force, nullptr, nullptr); };
  return r;
}

// `impact study --merge out` after an earlier study in kept parts, parts.json perhaps damaged.
PreparedRun prepare_merge(fr::Choices& c, const std::string& root, const std::string& spelled) {
  const std::string out = root + "/out";
  PreparedRun r;
  r.kind = "study";
  r.what = "merge";
  r.go = [spelled] { study::merge_folder(spelled); };
  try {
    resume::PartsManifest m = resume::read_parts_manifest(out);
    for (const std::string& f : m.files) r.files.push_back(f);
    for (const std::string& p : resume::part_files(m)) r.files.push_back(p);
    r.files.push_back("parts.json");
    switch (c.below(5)) {
      case 0: break;
      case 1:  // its last part dropped from parts.json
        if (m.rows.size() > 1) m.first.pop_back(), m.rows.pop_back(), m.sums.pop_back(), r.what += " (last part dropped)";
        break;
      case 2: m.total += 1 + c.below(100), r.what += " (row count changed)"; break;
      case 3:
        fr::put_file(out + "/" + io::part_file_name(m.files[0], 9), "a part beyond the listed\n");
        r.what += " (a part beyond)";
        break;
      default: {  // a part replaced by a link to its bytes outside
        const std::string p = out + "/" + io::part_file_name(m.files[0], 0);
        std::error_code ec;
        fs::rename(p, root + "/outside/moved-part", ec);
        fs::create_symlink(root + "/outside/moved-part", p, ec);
        r.what += " (a part is a link)";
      }
    }
    resume::write_parts_manifest(out, m);
  } catch (const std::exception&) { r.what += " (no parts)"; }
  return r;
}

TEST(FolderRule, EveryRunIntoARandomTreeTakesOnlyWhatItMay) {
  const test::ScratchDir scratch("folder_rule");
  const std::string data = test::slurp(std::string(IMPACT_SOURCE_DIR) + "/examples/calibration/ball-synthetic.csv");
  ASSERT_FALSE(data.empty());
  constexpr int kTrees = 240;
  int runs = 0, failed = 0, violations = 0, spelled = 0, linked = 0;
  std::map<std::string, int> by_what;
  for (int t = 0; t < kTrees; ++t) {
    fr::Choices c(0x5eed0000u + static_cast<std::uint64_t>(t));
    const std::string root = scratch.path() + "/t" + std::to_string(t);
    fs::create_directories(root);
    fr::put_file(root + "/data.csv", data);
    fr::make_sandbox(c, root);
    // the run under test: a study, a study in pieces, a calibration, or a merge of kept parts
    const int which = static_cast<int>(c.below(4));
    // an earlier run of either kind, or a study in kept parts (always before a merge), or none; then
    // the user's entries
    if (fs::exists(root + "/out")) {
      const std::uint32_t earlier = which == 3 && !c.coin(4) ? 2 : c.below(5);  // 0 study, 1 calibration, 2 parts
      if (earlier < 3) {
        PreparedRun e = prepare(c, root, earlier == 0 ? 0 : earlier == 1 ? 2 : 1, true, true);
        try {
          e.go();
        } catch (const std::exception&) {}
      }
      fs::remove_all(root + "/ck");
      fr::scatter(c, root, c.below(7));
    }
    // the run, read by the rule before it runs, into its folder spelled one way or another
    const std::string out = fr::spelled(c, root);
    PreparedRun r = which == 3 ? prepare_merge(c, root, out) : prepare(c, root, which, c.coin(), false, out);
    spelled += out != root + "/out";
    linked += fs::is_symlink(root + "/out");
    const fr::Snapshot before = fr::snapshot(root);
    const fr::Allowed allowed = fr::allowed(root + "/out", r.kind, r.files, before, "out");
    bool ok = true;
    try {
      r.go();
    } catch (const std::exception&) {
      ok = false;
      ++failed;
    }
    const fr::Snapshot after = fr::snapshot(root);
    ++runs;
    ++by_what[r.what + (ok ? "" : ", refused or failed")];
    const std::vector<std::string> v = fr::violations(before, after, "out", allowed, r.skip);
    violations += static_cast<int>(v.size());
    for (const std::string& s : v) ADD_FAILURE() << "tree " << t << ", " << r.what << ": " << s;
  }
  std::string kinds;
  for (const auto& [k, n] : by_what) kinds += "\n  " + std::to_string(n) + " " + k;
  std::printf(
      "folder rule: %d trees, %d runs under test (%d refused or failed; %d into out/ spelled with a trailing "
      "/ or /., %d into an out that is a link), %d violations:%s\n",
      kTrees, runs, failed, spelled, linked, violations, kinds.c_str());
}

}  // namespace
}  // namespace impact
