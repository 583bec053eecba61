// The basins of a log density seen in a space-filling design (the fit's global stage,
// docs/calibration.md): nearest-better clustering (Preuss 2010). The design's best points are taken in
// order of log p; each is linked to its nearest better point, and a point whose link is longer than
// `factor` times the links' mean is the best point of a basin of its own (no better point lies near
// it, so the density falls between it and every better one). The best point of all is the first
// basin. A smooth single basin covered by the design links every point to a neighbour one spacing
// away; a second maximum links across the valley, many spacings.
//
// Nearest-better links alone split a ridge narrower than the design's spacing into several basins
// (its points are few, and the better ones lie along it, many spacings apart). merge_by_valleys then
// applies the hill-valley test (Ursem 1999): log p is evaluated at interior points of the segment
// between two basins' best points, and a basin with no valley between it and a better one is part of
// that one.
//
// A design resolves a basin only where it holds a point better than the valley around it: a basin
// narrower than the design's spacing can be missed, which is why the design is sized to the budget
// and its best points are then climbed by a local optimiser.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

namespace impact::infer {

struct Basin {
  std::size_t point;  // index of its best design point
  double logp;        // log p there
  double link;        // the distance to the nearest better design point (infinite for the first)
};

struct BasinOptions {
  std::size_t candidates = 0;  // the best points clustered; 0: max(64, points / 16)
  double factor = 2.0;         // a basin's link exceeds factor x the mean link
};

// u: points x dim coordinates in the unit cube (distances are taken there: a prior's CDF space);
// logp: one value per point (points without a finite value take no part). Basins in decreasing log p;
// empty when no point has a finite value. Deterministic (ties by index).
std::vector<Basin> find_basins(const std::vector<double>& u, std::size_t dim, const std::vector<double>& logp,
                               const BasinOptions& o = {});

// Evaluates log p at points x dim coordinates of the unit cube, as one batch.
using UnitLogp = std::function<std::vector<double>(const std::vector<double>& u)>;

// The basins of find_basins (in decreasing log p) less those that join a better one: basin b joins
// when, against some better basin a, log p at `probes` evenly spaced interior points of the segment
// from a's best point to b's is never below b's log p (an interior point without a finite value is a
// valley). All the probes form one call of f. The first `max_basins` are tested; later ones
// are dropped.
std::vector<Basin> merge_by_valleys(const std::vector<Basin>& basins, const std::vector<double>& u, std::size_t dim,
                                    const UnitLogp& f, std::size_t probes = 3, std::size_t max_basins = 32);

}  // namespace impact::infer
