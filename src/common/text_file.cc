#include "common/text_file.h"

#include <fstream>

namespace pfio {

std::string ReadFirstLine(const std::string &path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

}  // namespace pfio
