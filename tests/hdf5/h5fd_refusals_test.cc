// What the HDF5 driver refuses, each time by name and without harm: a SWMR reader, bad configs
// (magic, version, keys, values), declarations on another driver's file or of selections that do
// not fit the dataset; and the driver's own settings (engine_min, predict) as pfio keys.
#include "hdf5/h5fd_test_util.h"

namespace {

using namespace h5fdtest;

// SWMR readers are refused: data fetched ahead could be older than what a writer appends.
TEST_F(H5FDPrefetchTest, SwmrReadIsRefused) {
  hid_t fapl = PrefetchFapl();
  hid_t file =
      Quietly([&] { return H5Fopen(path_.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl); });
  EXPECT_LT(file, 0);
  std::string errors = ErrorStack();
  EXPECT_NE(errors.find("SWMR"), std::string::npos) << errors;
  if (file >= 0) H5Fclose(file);
  H5Pclose(fapl);
}

// Bad configs are refused with a message that names the field and its value.
TEST(H5FDPrefetchConfig, BadConfigsAreRefusedByName) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5FD_prefetch_config_t config;
  ASSERT_GE(H5FD_prefetch_config_init(&config), 0);
  config.magic = 0x1234;
  EXPECT_LT(Quietly([&] { return H5Pset_fapl_prefetch(fapl, &config); }), 0);
  EXPECT_NE(ErrorStack().find("config magic = 0x00001234"), std::string::npos);

  H5FD_prefetch_config_init(&config);
  config.version = 99;
  EXPECT_LT(Quietly([&] { return H5Pset_fapl_prefetch(fapl, &config); }), 0);
  EXPECT_NE(ErrorStack().find("config version = 99: expected 1"), std::string::npos);

  H5FD_prefetch_config_init(&config);
  EXPECT_LT(Quietly([&] { return H5FD_prefetch_config_set(&config, "budget", "lots"); }), 0);
  std::string e = ErrorStack();
  EXPECT_NE(e.find("budget"), std::string::npos) << e;
  EXPECT_NE(e.find("lots"), std::string::npos) << e;
  EXPECT_EQ(config.nsettings, 0);

  EXPECT_LT(Quietly([&] { return H5FD_prefetch_config_set(&config, "budgte", "1G"); }), 0);
  e = ErrorStack();
  EXPECT_NE(e.find("budget"), std::string::npos) << "the nearest key is named: " << e;

  H5FD_prefetch_config_init(&config);
  config.nsettings = 1;
  std::strcpy(config.settings[0].key, "queue_depth");
  std::strcpy(config.settings[0].value, "0");
  EXPECT_LT(Quietly([&] { return H5Pset_fapl_prefetch(fapl, &config); }), 0);
  e = ErrorStack();
  EXPECT_NE(e.find("settings[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("queue_depth"), std::string::npos) << e;

  // Two names of one setting (the buffer kind) with different values: refused, both named.
  H5FD_prefetch_config_init(&config);
  ASSERT_GE(H5FD_prefetch_config_set(&config, "read_path", "engine"), 0);
  ASSERT_GE(H5FD_prefetch_config_set(&config, "buffer", "cache"), 0);
  EXPECT_LT(Quietly([&] { return H5Pset_fapl_prefetch(fapl, &config); }), 0);
  e = ErrorStack();
  EXPECT_NE(e.find("config settings[1] buffer = \"cache\" and settings[0] read_path = \"engine\" "
                   "name one setting (buffer)"),
            std::string::npos)
      << e;
  std::strcpy(config.settings[0].value, "Cache");  // the same kind: accepted
  EXPECT_GE(H5Pset_fapl_prefetch(fapl, &config), 0) << ErrorStack();

  H5FD_prefetch_config_init(&config);
  config.predict = 2;
  EXPECT_LT(Quietly([&] { return H5Pset_fapl_prefetch(fapl, &config); }), 0);
  EXPECT_NE(ErrorStack().find("config predict = 2: expected 0 or 1"), std::string::npos);

  // A good one round-trips through the fapl.
  H5FD_prefetch_config_init(&config);
  ASSERT_GE(H5FD_prefetch_config_set(&config, "budget", "64M"), 0);
  ASSERT_GE(H5FD_prefetch_config_set(&config, "budget", "48M"), 0);
  ASSERT_GE(H5Pset_fapl_prefetch(fapl, &config), 0);
  H5FD_prefetch_config_t back;
  ASSERT_GE(H5Pget_fapl_prefetch(fapl, &back), 0);
  EXPECT_EQ(back.nsettings, 1);
  EXPECT_STREQ(back.settings[0].value, "48M");
  H5Pclose(fapl);
}

// Declaring on a file another driver opened fails and says which driver is needed.
TEST_F(H5FDPrefetchTest, DeclareOnAnotherDriversFileIsRefused) {
  hid_t file = Open(H5P_DEFAULT);
  hid_t dset = H5Dopen2(file, "c8k", H5P_DEFAULT);
  EXPECT_LT(Quietly([&] { return H5FD_prefetch_declare(dset, H5S_ALL); }), 0);
  std::string e = ErrorStack();
  EXPECT_NE(e.find("not open with the prefetch driver"), std::string::npos) << e;
  H5Dclose(dset);
  H5Fclose(file);
}

// engine_min and predict as keys (one settings path): set with H5FD_prefetch_config_set, a
// declared dataset of 128 KiB chunks is read by pfio at "64K" and by the driver from the page
// cache at "never"; a field set in the struct (a program written for 0.3) wins over the key.
TEST_F(H5FDPrefetchTest, EngineMinAndPredictAreKeys) {
  const DatasetSpec &d = kDatasets[2];  // c128k
  for (const char *engine_min : {"64K", "never", "field"}) {
    SCOPED_TRACE(engine_min);
    H5FD_prefetch_config_t config;
    ASSERT_GE(H5FD_prefetch_config_init(&config), 0);
    ASSERT_GE(H5FD_prefetch_config_set(&config, "budget", "32M"), 0) << ErrorStack();
    ASSERT_GE(H5FD_prefetch_config_set(&config, "predict", "off"), 0) << ErrorStack();
    if (std::string(engine_min) == "field") {
      ASSERT_GE(H5FD_prefetch_config_set(&config, "engine_min", "64K"), 0) << ErrorStack();
      config.engine_min = H5FD_PREFETCH_ENGINE_NEVER - 1;  // nothing is that large
    } else {
      ASSERT_GE(H5FD_prefetch_config_set(&config, "engine_min", engine_min), 0) << ErrorStack();
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    ASSERT_GE(H5Pset_fapl_prefetch(fapl, &config), 0) << ErrorStack();
    hid_t file = Open(fapl);
    hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
    ASSERT_GE(H5FD_prefetch_declare(dset, H5S_ALL), 0) << ErrorStack();
    std::vector<Slab> slabs = Pattern("rows", d);
    size_t bad = 0;
    for (const Slab &s : slabs) bad += ReadAndCheck(dset, d, s);
    EXPECT_EQ(bad, 0u);
    H5FD_prefetch_stats_t st = Stats(dset);
    EXPECT_GT(st.engine.reads, 0u) << "every declared chunk in pfio's plan";
    if (std::string(engine_min) == "64K") {
      EXPECT_EQ(st.advised_reads, 0u) << "engine_min = 64K: 128 KiB chunks read by pfio";
    } else {
      EXPECT_EQ(st.advised_reads, st.engine.reads) << "read by the driver from the page cache";
    }
    EXPECT_EQ(st.predicted_extents, 0u) << "predict = off";
    H5Dclose(dset);
    H5Fclose(file);
    H5Pclose(fapl);
  }
  H5FD_prefetch_config_t config;
  ASSERT_GE(H5FD_prefetch_config_init(&config), 0);
  EXPECT_LT(Quietly([&] { return H5FD_prefetch_config_set(&config, "engine_min", "sometimes"); }),
            0);
  const std::string e = ErrorStack();
  EXPECT_NE(e.find("engine_min = \"sometimes\": expected never or 0 .. 1024T (sizes take K, "
                   "M, G, T: powers of 1024)"),
            std::string::npos)
      << e;
}

// A selection in a dataspace of another rank, or reaching past the dataset's extent, is refused
// naming both (H5Dread refuses it too); before, a 2-D selection on a 1-D dataset was accepted.
TEST_F(H5FDPrefetchTest, DeclareOfASelectionThatDoesNotFitTheDatasetIsRefused) {
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, "contig", H5P_DEFAULT);
  hsize_t flat[1] = {kRows * kCols}, wide[2] = {kRows, kCols + 10};
  hid_t one = H5Screate_simple(1, flat, nullptr);
  EXPECT_LT(Quietly([&] { return H5FD_prefetch_declare(dset, one); }), 0);
  std::string e = ErrorStack();
  EXPECT_NE(e.find("rank 1"), std::string::npos) << e;
  EXPECT_NE(e.find("rank 2"), std::string::npos) << e;
  hid_t two = H5Screate_simple(2, wide, nullptr);
  hsize_t start[2] = {0, kCols}, count[2] = {1, 5};
  ASSERT_GE(H5Sselect_hyperslab(two, H5S_SELECT_SET, start, nullptr, count, nullptr), 0);
  EXPECT_LT(Quietly([&] { return H5FD_prefetch_declare(dset, two); }), 0);
  e = ErrorStack();
  EXPECT_NE(e.find("dimension 1"), std::string::npos) << e;
  H5Sclose(one);
  H5Sclose(two);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

}  // namespace
