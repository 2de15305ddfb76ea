// PieceMapper: a window's new byte ranges -> pieces in the reorder buffer. A piece never
// straddles a stripe (each lies on one target of the layout, with its bus group and its offset
// on the target) and is never longer than max_request; the last piece of a file is short in
// `expected` bytes only.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "buffer/reorder_buffer.h"
#include "layout/layout.h"

namespace pfio {

// Byte ranges [begin, end) per file: page aligned, merged, sorted.
using RangesByFile = std::unordered_map<int32_t, std::vector<std::pair<uint64_t, uint64_t>>>;

// layout: null for one target. file_size: the size of a file id. New pieces are appended to
// *fresh, in each file's offset order. by_range: pieces of the page-cache kind, one advice each
// (ReorderBuffer::Create).
void MapPieces(const RangesByFile &ranges, const Layout *layout, uint64_t max_request,
               const std::function<uint64_t(int32_t)> &file_size, ReorderBuffer *buffer,
               std::vector<Piece *> *fresh, bool by_range = false);

}  // namespace pfio
