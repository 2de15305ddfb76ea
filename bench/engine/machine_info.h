// What the benchmark ran on: CPU, memory, kernel, and the block device and file system under the
// data file, so a table in docs/ says which machine its numbers come from.
#pragma once

#include <string>

namespace pfio::bench {

struct MachineInfo {
  std::string cpu, kernel, device, device_rotational, scheduler, filesystem;
  unsigned cores = 0;
  unsigned long long mem_total = 0;
};

MachineInfo DescribeMachine(const std::string &data_path);

}  // namespace pfio::bench
