// The DIA format: validation, conversion from CSR, and the resident device copy.
#include "trellis/grid/dia.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trellis/core/error.hpp"

namespace trellis::grid {
namespace {

std::size_t slot_count(std::int32_t diagonals, std::int32_t rows) {
  return static_cast<std::size_t>(diagonals) * static_cast<std::size_t>(rows);
}

}  // namespace

template <typename T>
void DiaMatrix<T>::validate() const {
  if (rows < 0 || cols < 0) throw UsageError(fmt::format("DIA matrix has negative dimensions {}x{}", rows, cols));
  for (std::size_t d = 1; d < offsets.size(); ++d) {
    if (offsets[d] <= offsets[d - 1]) {
      throw UsageError(fmt::format("DIA offsets must be strictly ascending, but offset {} is {} after {}", d,
                                   offsets[d], offsets[d - 1]));
    }
  }
  if (values.size() != slot_count(diagonals(), rows)) {
    throw UsageError(fmt::format("DIA matrix with {} diagonals of {} rows needs {} values, has {}", offsets.size(),
                                 rows, slot_count(diagonals(), rows), values.size()));
  }
}

template <typename T>
DiaMatrix<T> dia_from_csr(const CsrMatrix<T>& a, std::int32_t max_diagonals) {
  if (max_diagonals < 0) throw UsageError(fmt::format("dia_from_csr: max_diagonals is {}", max_diagonals));
  a.validate();

  // The distinct offsets, sorted; the search stops as soon as there are too
  // many, so it stays a short vector however large the matrix.
  std::vector<std::int32_t> offsets;
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      const auto offset = static_cast<std::int32_t>(static_cast<std::int64_t>(a.col_indices[k]) - row);
      auto at = std::lower_bound(offsets.begin(), offsets.end(), offset);
      if (at != offsets.end() && *at == offset) continue;
      offsets.insert(at, offset);
      if (offsets.size() > static_cast<std::size_t>(max_diagonals)) {
        // Finish the count so the message says how many the matrix needs.
        std::vector<std::int32_t> all;
        all.reserve(static_cast<std::size_t>(a.nnz()));
        for (std::int32_t r = 0; r < a.rows; ++r) {
          for (RowOffset e = a.row_offsets[r]; e < a.row_offsets[r + 1]; ++e) {
            all.push_back(static_cast<std::int32_t>(static_cast<std::int64_t>(a.col_indices[e]) - r));
          }
        }
        std::sort(all.begin(), all.end());
        const auto distinct = std::unique(all.begin(), all.end()) - all.begin();
        throw UsageError(
            fmt::format("dia_from_csr: the {}x{} matrix has {} distinct diagonals, more than the {} "
                        "allowed",
                        a.rows, a.cols, distinct, max_diagonals));
      }
    }
  }

  DiaMatrix<T> dia;
  dia.rows = a.rows;
  dia.cols = a.cols;
  dia.offsets = offsets;
  dia.values.assign(slot_count(dia.diagonals(), a.rows), T(0));
  // A slot is assigned by its row's first entry and added to by duplicates,
  // so a lone value (a negative zero too) is kept bit for bit.
  std::vector<std::int32_t> last_row_written(offsets.size(), -1);
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (RowOffset k = a.row_offsets[row]; k < a.row_offsets[row + 1]; ++k) {
      const auto offset = static_cast<std::int32_t>(static_cast<std::int64_t>(a.col_indices[k]) - row);
      const auto d =
          static_cast<std::size_t>(std::lower_bound(offsets.begin(), offsets.end(), offset) - offsets.begin());
      T& slot = dia.values[d * static_cast<std::size_t>(a.rows) + static_cast<std::size_t>(row)];
      if (last_row_written[d] == row) {
        slot += a.values[k];
      } else {
        slot = a.values[k];
        last_row_written[d] = row;
      }
    }
  }
  return dia;
}

template <typename T>
DeviceDia<T>::DeviceDia(const DiaMatrix<T>& host, Stream stream)
    : rows_(host.rows), cols_(host.cols), host_offsets_(host.offsets) {
  host.validate();
  offsets_ = DeviceArray<std::int32_t>::from_host(host_offsets_, stream);
  values_ = DeviceArray<T>::from_host(host.values, stream);
  // The caller's host vector may die once we return; the upload must have read it.
  device::synchronize(stream);
}

template <typename T>
void DeviceDia<T>::refill(const DiaMatrix<T>& host, Stream stream) {
  host.validate();
  if (host.rows != rows_ || host.cols != cols_ || host.offsets != host_offsets_) {
    throw UsageError(
        fmt::format("DeviceDia::refill: a {}x{} matrix with {} diagonals cannot refill a {}x{} one with "
                    "{} (the shape and offsets must stay)",
                    host.rows, host.cols, host.offsets.size(), rows_, cols_, host_offsets_.size()));
  }
  values_.copy_from_host(host.values, stream);
}

template <typename T>
DiaMatrix<T> DeviceDia<T>::to_host(Stream stream) const {
  DiaMatrix<T> host;
  host.rows = rows_;
  host.cols = cols_;
  host.offsets = host_offsets_;
  host.values = values_.to_host(stream);
  return host;
}

template struct DiaMatrix<float>;
template struct DiaMatrix<double>;
template class DeviceDia<float>;
template class DeviceDia<double>;
template DiaMatrix<float> dia_from_csr<float>(const CsrMatrix<float>&, std::int32_t);
template DiaMatrix<double> dia_from_csr<double>(const CsrMatrix<double>&, std::int32_t);

}  // namespace trellis::grid
