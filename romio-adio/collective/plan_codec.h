// PlanCodec: one rank's extents of a collective call as bytes on the wire, and back.
//
// Contract. Encode keeps the order and every extent exactly (repeats, overlaps and unsorted
// extents included); runs of equal-length extents at a constant stride collapse to one record,
// so ior-hard's 100 interleaved blocks or a subarray's rows cost a few bytes, and a random
// permutation costs about 4-6 bytes per extent. Format (all integers LEB128 varints, signed
// ones zigzag-coded): the number of records, then per record: count, start - previous record's
// start (signed), length, and when count > 1 the stride (signed). Decode refuses, with a
// message naming what is wrong, truncated or trailing bytes, a record that overflows 64 bits,
// and more extents than `max_extents` (a bound the caller sets, so a corrupt message cannot
// make it allocate without limit).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collective/file_range.h"
#include "common/status.h"

namespace pfio::collective {

std::vector<uint8_t> EncodePlan(const FileRanges &ranges);

// The LEB128 varints of the format, for the messages and files that carry plans.
void PutVarint(std::vector<uint8_t> *out, uint64_t v);
// Reads one at *pos (advanced); false when the bytes end first or it passes 64 bits.
bool GetVarint(const uint8_t *data, size_t size, size_t *pos, uint64_t *v);

// Appends the decoded extents to *out: OK, or PFIO_EIO and the reason (out unchanged).
Status DecodePlan(const uint8_t *data, size_t size, uint64_t max_extents, FileRanges *out);

}  // namespace pfio::collective
