// cuSPARSE's CSR SpMV as the external anchor for the SpMV benchmark.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "trellis/core/csr.hpp"

namespace trellis::bench {

// Whether cuSPARSE was linked into this build.
bool cusparse_available() noexcept;

// Holds cuSPARSE's copy of A (32-bit row offsets when they fit, as a cuSPARSE
// user would store it), x, y and its workspace. run() is y = A x (alpha 1,
// beta 0), timed with CUDA events.
template <typename T>
class CusparseSpmv {
 public:
  explicit CusparseSpmv(const CsrMatrix<T>& a, const std::vector<T>& x);
  ~CusparseSpmv();
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;

  double run_ms();                  // one product, its device time
  std::vector<T> result() const;    // y after the last run
  std::size_t bytes_moved() const;  // A once, x once, y written once
  bool uses_32bit_offsets() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace trellis::bench
