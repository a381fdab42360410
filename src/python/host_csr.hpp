// A SciPy CSR matrix's arrays (the package hands them over as int64 row
// offsets, int32 columns and float64 values) copied into the library's CSR.
#pragma once

#include <cstdint>

#include "arrays.hpp"
#include "trellis/core/csr.hpp"

namespace trellis::python {

// Throws UsageError describing what is wrong with the arrays (CsrMatrix::validate).
CsrMatrix<double> csr_from(std::int32_t rows, std::int32_t cols, const HostInput<std::int64_t>& indptr,
                           const HostInput<std::int32_t>& indices, const HostInput<double>& data);

}  // namespace trellis::python
