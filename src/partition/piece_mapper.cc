#include "partition/piece_mapper.h"

#include <algorithm>

namespace pfio {

void MapPieces(const RangesByFile &ranges, const Layout *layout, uint64_t max_request,
               const std::function<uint64_t(int32_t)> &file_size, ReorderBuffer *buffer,
               std::vector<Piece *> *fresh, bool by_range) {
  std::vector<Placement> placements;
  for (const auto &[file, file_ranges] : ranges) {
    const uint64_t size = file_size(file);
    for (const auto &[pos, end] : file_ranges) {
      placements.clear();
      if (layout) {
        layout->Map(pos, end - pos, &placements);
      } else {
        placements.push_back(Placement{pos, end - pos, 0, 0, pos});
      }
      for (const Placement &pl : placements) {
        for (uint64_t at = pl.file_offset; at < pl.file_offset + pl.length;) {
          const uint64_t len = std::min(pl.file_offset + pl.length - at, max_request);
          const PieceSite site{pl.target, pl.bus, pl.target_offset + (at - pl.file_offset)};
          fresh->push_back(buffer->Create(file, at, len, std::min(len, size - at), site, by_range));
          at += len;
        }
      }
    }
  }
}

}  // namespace pfio
