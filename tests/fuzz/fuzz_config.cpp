// The study config (study/config.hpp) from text: parse_config_text (TOML with
// -DIMPACT_FUZZ_TOML=1: fuzz_config_toml; JSON with 0: fuzz_config_json), resolve_config, and the
// documented round trip: the canonical JSON form (to_json) parses and resolves to the same study.
//
// Findings: any exception but io::ConfigError (every config error is one, with FILE:LINE:COL and
// the key: docs/study.md), a crash or a sanitizer report, a round trip that changes the study or
// fails. The config is named fuzz.toml / fuzz.json in messages; nothing is read from disk (a
// relative design.file is only resolved against the current folder, never opened).
#include <string>

#include "fuzz_common.hpp"
#include "study/config.hpp"

#ifndef IMPACT_FUZZ_TOML
#error "compile with -DIMPACT_FUZZ_TOML=1 (TOML) or 0 (JSON)"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace impact;
  if (size > io::kMaxConfigBytes) return 0;  // load_config_file refuses it before parsing
  const std::string text(reinterpret_cast<const char*>(data), size);
  const bool toml = IMPACT_FUZZ_TOML;
  study::StudyConfig c;
  try {
    const io::ConfigTree tree = io::parse_config_text(text, toml ? "fuzz.toml" : "fuzz.json", toml);
    c = study::resolve_config(tree);
  } catch (const io::ConfigError&) {
    return 0;  // the documented error of a bad config
  } catch (const std::exception& e) { fuzz::unexpected_exception(toml ? "config (toml)" : "config (json)", e); }
  // a resolved study: its canonical form must come back as the same study
  std::string canon;
  try {
    canon = study::to_json(c).dump(2);
    const study::StudyConfig back = study::resolve_config(io::parse_config_text(canon, "canonical.json", false));
    if (!study::same_study(c, back)) fuzz::fuzz_fail("the canonical JSON resolves to another study:\n%s", canon.c_str());
  } catch (const std::exception& e) {
    fuzz::fuzz_fail("the canonical JSON of a resolved study fails (%s: %s):\n%s", typeid(e).name(), e.what(), canon.c_str());
  }
  return 0;
}
