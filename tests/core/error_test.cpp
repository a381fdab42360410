#include <gtest/gtest.h>

#include "trellis/core/error.hpp"

namespace trellis {
namespace {

TEST(InputError, NamesFileLineAndProblem) {
  InputError error("boards/a.dsn", 42, "expected ')'");
  EXPECT_STREQ(error.what(), "boards/a.dsn:42: expected ')'");
  EXPECT_EQ(error.file(), "boards/a.dsn");
  EXPECT_EQ(error.line(), 42u);
  EXPECT_EQ(error.problem(), "expected ')'");
}

TEST(InputError, OmitsLineZero) {
  EXPECT_STREQ(InputError("db.fasta", 0, "empty database").what(), "db.fasta: empty database");
  EXPECT_STREQ(InputError("", 3, "bad").what(), "<input>:3: bad");
}

TEST(ExitCodes, FollowTheDocumentedMapping) {
  EXPECT_EQ(exit_code_for(InputError("f", 1, "x")), ExitCode::usage_or_input);
  EXPECT_EQ(exit_code_for(UsageError("x")), ExitCode::usage_or_input);
  EXPECT_EQ(exit_code_for(BackendUnavailable("x")), ExitCode::usage_or_input);
  EXPECT_EQ(exit_code_for(DeviceError("x")), ExitCode::runtime_failure);
  EXPECT_EQ(exit_code_for(Error("x")), ExitCode::runtime_failure);
  EXPECT_EQ(exit_code_for(std::runtime_error("x")), ExitCode::runtime_failure);
  EXPECT_EQ(static_cast<int>(ExitCode::ok), 0);
  EXPECT_EQ(static_cast<int>(ExitCode::runtime_failure), 1);
  EXPECT_EQ(static_cast<int>(ExitCode::usage_or_input), 2);
}

}  // namespace
}  // namespace trellis
