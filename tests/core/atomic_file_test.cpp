#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "trellis/core/atomic_file.hpp"
#include "trellis/core/error.hpp"

namespace trellis {
namespace {

namespace fs = std::filesystem;

class AtomicOutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("trellis-atomic-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::size_t files_in_dir() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(AtomicOutputFileTest, CommitPutsTheWholeFileInPlace) {
  const fs::path target = dir_ / "out.txt";
  {
    AtomicOutputFile file(target);
    file.stream() << "line 1\n";
    EXPECT_FALSE(fs::exists(target)) << "nothing visible before commit";
    file.stream() << "line 2\n";
    file.commit();
  }
  EXPECT_EQ(read(target), "line 1\nline 2\n");
  EXPECT_EQ(files_in_dir(), 1u) << "no temporary left behind";
}

TEST_F(AtomicOutputFileTest, AbandonedFileLeavesNothingAndKeepsTheOldTarget) {
  const fs::path target = dir_ / "out.txt";
  write_file_atomically(target, "old\n");
  try {
    AtomicOutputFile file(target);
    file.stream() << "partial";
    throw Error("simulated failure while writing");
  } catch (const Error&) {
  }
  EXPECT_EQ(read(target), "old\n");
  EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(AtomicOutputFileTest, UnwritableFolderIsAClearError) {
  EXPECT_THROW(AtomicOutputFile(dir_ / "missing" / "out.txt"), Error);
}

}  // namespace
}  // namespace trellis
