// FileTable: ids, closing through the backend, and the checks of file ids and plan extents.
#include "engine/file_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/backend_wrapper.h"
#include "io/sync_backend.h"

namespace pfio {
namespace {

FileHandle Handle(const std::string &path, uint64_t size) {
  FileHandle h;
  h.path = path;
  h.size = size;
  return h;
}

// Counts Close calls and does nothing else.
class ClosingBackend : public SyncBackend {
 public:
  ClosingBackend() : SyncBackend(1) {}
  void Close(FileHandle *) override { ++closed; }
  int closed = 0;
};

TEST(FileTable, IdsAreNeverReusedAndClosedIdsAreNamed) {
  FileTable t;
  ClosingBackend backend;
  EXPECT_TRUE(t.empty());
  const int32_t a = t.Add(Handle("/a", 100));
  const int32_t b = t.Add(Handle("/b", 200));
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 1);
  EXPECT_EQ(t.size(b), 200u);
  EXPECT_EQ(t.handles().size(), 2u);
  t.Close(a, &backend);
  EXPECT_EQ(backend.closed, 1);
  Status s = t.Check(a, "file");
  EXPECT_EQ(s.code(), PFIO_EBADF);
  EXPECT_EQ(s.message(), "file = 0: not a file open in this context (2 opened so far)");
  EXPECT_EQ(t.Add(Handle("/c", 1)), 2);  // not 0 again
  EXPECT_EQ(t.Check(-1, "file").code(), PFIO_EBADF);
  EXPECT_EQ(t.Check(9, "file").code(), PFIO_EBADF);
  EXPECT_TRUE(t.Check(b, "file").ok());
  t.CloseAll(&backend);
  EXPECT_EQ(backend.closed, 3);
  EXPECT_EQ(t.handles().size(), 0u);
}

// A context kept from file to file opens many: its walks over the files (revalidation) visit
// the open ones only, in the order they opened, not every id it ever gave.
TEST(FileTable, TheOpenIdsAreTheFilesStillOpen) {
  FileTable t;
  ClosingBackend backend;
  for (int k = 0; k < 1000; ++k) t.Close(t.Add(Handle("/closed", 1)), &backend);
  const int32_t a = t.Add(Handle("/a", 1));
  const int32_t b = t.Add(Handle("/b", 1));
  const int32_t c = t.Add(Handle("/c", 1));
  t.Close(b, &backend);
  EXPECT_EQ(t.open_ids(), (std::vector<int32_t>{a, c}));
  t.CloseAll(&backend);
  EXPECT_TRUE(t.open_ids().empty());
  EXPECT_EQ(backend.closed, 1003);
}

TEST(FileTable, ReadsInFlightAreCountedPerFile) {
  FileTable t;
  const int32_t a = t.Add(Handle("/a", 100));
  t.ReadIssued(a);
  t.ReadIssued(a);
  t.ReadLanded(a);
  EXPECT_EQ(t.in_flight(a), 1u);
}

TEST(FileTable, ExtentChecksNameTheExtentItsValueAndTheLimit) {
  FileTable t;
  const int32_t f = t.Add(Handle("/data/f", 100000));
  std::vector<Extent> out;
  const pfio_extent good[] = {{f, 1, 0, 10}, {f, 0, 99990, 10}};
  ASSERT_TRUE(t.CheckExtents(good, 2, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].marked);
  EXPECT_EQ(out[1].offset, 99990u);

  const pfio_extent past[] = {{f, 0, 0, 10}, {f, 0, 99990, 20}};
  out.clear();
  Status s = t.CheckExtents(past, 2, &out);
  EXPECT_EQ(s.code(), PFIO_ERANGE);
  EXPECT_EQ(s.message(),
            "extent 1: [99990, 99990 + 20) ends past the end of /data/f (size 100000): expected "
            "offset + length <= size");
  const pfio_extent empty[] = {{f, 0, 5, 0}};
  s = t.CheckExtents(empty, 1, &out);
  EXPECT_EQ(s.message(), "extent 0: length = 0: expected at least 1 byte");
  const pfio_extent closed[] = {{f + 3, 0, 0, 1}};
  s = t.CheckExtents(closed, 1, &out);
  EXPECT_EQ(s.code(), PFIO_EBADF);
  EXPECT_NE(s.message().find("extent 0: file = 3"), std::string::npos) << s.message();
  s = t.CheckExtents(nullptr, 4, &out);
  EXPECT_EQ(s.message(), "extents = NULL with count = 4: expected an array");
  s = t.CheckExtents(good, SIZE_MAX, &out);
  EXPECT_EQ(s.code(), PFIO_ENOMEM);
  EXPECT_NE(s.message().find("more than MemTotal"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace pfio
