// The calibration config (calibrate/config.hpp) from TOML text: parse_config_text,
// resolve_calibrate_config, and the round trip of its resolved form: to_json (what metadata.json
// holds, every key explicit) parses and resolves to the same config (the same to_json).
//
// Findings: any exception but io::ConfigError (every config error is one, located and naming its
// key: docs/calibration.md), a crash or a sanitizer report, a round trip that changes the config or
// fails. Nothing is read from disk: data.file is only resolved beside fuzz.toml, never opened (the
// data are read when a run starts, calibrate::read_experiments).
#include <string>

#include "calibrate/config.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace impact;
  if (size > io::kMaxConfigBytes) return 0;  // load_config_file refuses it before parsing
  const std::string text(reinterpret_cast<const char*>(data), size);
  calibrate::CalibrateConfig c;
  try {
    c = calibrate::resolve_calibrate_config(io::parse_config_text(text, "fuzz.toml", true));
  } catch (const io::ConfigError&) {
    return 0;  // the documented error of a bad config
  } catch (const std::exception& e) { fuzz::unexpected_exception("calibrate config", e); }
  std::string canon;
  try {
    canon = calibrate::to_json(c).dump(2);
    const calibrate::CalibrateConfig back =
        calibrate::resolve_calibrate_config(io::parse_config_text(canon, "canonical.json", false));
    const std::string again = calibrate::to_json(back).dump(2);
    if (again != canon)
      fuzz::fuzz_fail("the resolved config's JSON resolves to another config:\n%s\n---\n%s", canon.c_str(), again.c_str());
  } catch (const std::exception& e) {
    fuzz::fuzz_fail("the resolved config's JSON fails (%s: %s):\n%s", typeid(e).name(), e.what(), canon.c_str());
  }
  return 0;
}
