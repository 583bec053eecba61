// A calibration's checkpoint (`impact calibrate --checkpoint DIR [--resume]`,
// impactbatch.calibrate(checkpoint=DIR, resume=True); docs/calibration.md, "Checkpoints"): the
// sampler's whole state between two of its steps (ensemble) or stages (SMC), so that a run killed
// at any point (a cluster's wall-time limit, kill -9) goes on from its last checkpoint and writes the
// files the uninterrupted run writes, byte for byte (but for metadata.json's timings).
//
// DIR is a folder of its own kind under the folder rule (resume/owned_folder.hpp): it holds
// checkpoint.bin and the manifest, written whole through a temporary renamed onto it (io::OutFile),
// never through a link. The file starts with its magic and a fingerprint of the run: the method,
// the resolved config (less its output keys), the sampler's sizes, the data file's CRC-32 and the
// backend's kind (a GPU's integrators round differently from the CPU's). --resume goes on only from
// a checkpoint of the same fingerprint (else an error names what differs); a run without --resume
// refuses a folder that holds a checkpoint (it would overwrite the state another run could go on
// from). A finished run removes its checkpoint and the manifest.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "resume/owned_folder.hpp"

#include "infer/ensemble.hpp"
#include "infer/smc.hpp"

namespace impact::resume {

struct CheckpointOptions {
  std::string dir;        // empty: no checkpoint
  bool resume = false;    // go on from DIR/checkpoint.bin
  double every_s = 60.0;  // the least wall time between two checkpoints (0: after every step or stage)
};

// What a checkpoint holds besides the sampler: the model's rows evaluated so far.
struct CheckpointCounters {
  std::uint64_t rows = 0;
};

class SamplerCheckpoint {
 public:
  // When resuming, reads DIR/checkpoint.bin (std::invalid_argument when there is none, for another
  // run's, or a damaged file); else refuses a DIR that holds one. `fingerprint`: the run's, above.
  // Only the `writer` (rank 0 of a group) saves and removes; every process reads. The folder is
  // claimed by the caller (checkpoint_request), before the first save.
  SamplerCheckpoint(CheckpointOptions o, const nlohmann::ordered_json& fingerprint, bool writer);

  bool resuming() const { return resuming_; }
  const infer::EnsembleState& ensemble() const { return ens_; }
  const infer::SmcState& smc() const { return smc_; }
  const CheckpointCounters& counters() const { return counters_; }
  // Where the run goes on from, for its progress line: "step K of the ensemble" or "stage K of SMC
  // (the least beta B)".
  std::string where() const;

  // Saves the state when every_s has passed since the last save (always when it is 0).
  void save(const infer::EnsembleChain& c, std::uint64_t steps_done, const CheckpointCounters& k);
  void save(const infer::SmcState& s, const CheckpointCounters& k);

  // The run is complete: its checkpoint and manifest go.
  void finish();

 private:
  bool due();
  void write(const std::string& body);

  CheckpointOptions o_;
  std::string fingerprint_;
  bool writer_ = true;
  bool resuming_ = false;
  double last_ = 0;  // when the last checkpoint was saved (the run's start before the first)
  infer::EnsembleState ens_;
  infer::SmcState smc_;
  CheckpointCounters counters_;
};

// The claim of DIR for a run that checkpoints there (resume::claim_folder's request).
FolderRequest checkpoint_request(const CheckpointOptions& o);

// The file's name in DIR, and the folder's kind under the folder rule.
constexpr const char* kCheckpointFile = "checkpoint.bin";
constexpr const char* kCheckpointKind = "calibration-checkpoint";

}  // namespace impact::resume
