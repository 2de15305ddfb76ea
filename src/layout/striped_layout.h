// StripedLayout: round-robin striping, as RAID 0, Lustre and ROMIO's striping hints describe it.
// Stripe i of the file lives on target i mod T at target offset (i div T) * stripe; targets are
// assigned to bus groups round-robin (target t on bus t mod B).
//
// Built from an explicit string, e.g. "stripe=1MiB,targets=8,buses=2" (keys in any order;
// buses defaults to 1), or from the MPI-IO hints striping_unit / striping_factor. Every
// rejected value is named with the field, its value and the allowed range.
#pragma once

#include <memory>
#include <string>

#include "common/page.h"
#include "common/status.h"
#include "layout/layout.h"

namespace pfio {

class StripedLayout : public Layout {
 public:
  static constexpr uint64_t kMinStripe = kPage;
  static constexpr uint64_t kMaxStripe = 4ull << 30;
  static constexpr uint32_t kMaxTargets = 65536;

  static Status Parse(const std::string &spec, std::unique_ptr<StripedLayout> *out);
  static Status FromHints(const std::string &striping_unit, const std::string &striping_factor,
                          std::unique_ptr<StripedLayout> *out);
  static Status Make(uint64_t stripe, uint32_t targets, uint32_t buses, std::string source,
                     std::unique_ptr<StripedLayout> *out);

  uint32_t targets() const override { return targets_; }
  uint32_t buses() const override { return buses_; }
  uint64_t stripe() const { return stripe_; }
  void Map(uint64_t offset, uint64_t length, std::vector<Placement> *out) const override;
  std::string Describe() const override;

 private:
  StripedLayout(uint64_t stripe, uint32_t targets, uint32_t buses, std::string source)
      : stripe_(stripe), targets_(targets), buses_(buses), source_(std::move(source)) {}

  uint64_t stripe_;
  uint32_t targets_, buses_;
  std::string source_;
};

}  // namespace pfio
