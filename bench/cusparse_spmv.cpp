#include "cusparse_spmv.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <limits>
#include <string>
#include <type_traits>

#include "trellis/core/cuda_check.hpp"
#include "trellis/core/device_array.hpp"
#include "trellis/core/timer.hpp"

namespace trellis::bench {
namespace {

void check(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    throw DeviceError(std::string(what) + " failed: " + cusparseGetErrorString(status));
  }
}

}  // namespace

bool cusparse_available() noexcept { return true; }

template <typename T>
struct CusparseSpmv<T>::State {
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t matrix = nullptr;
  cusparseDnVecDescr_t x_desc = nullptr;
  cusparseDnVecDescr_t y_desc = nullptr;
  bool offsets32 = false;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  DeviceArray<std::int32_t> offsets_32;
  DeviceArray<std::int64_t> offsets_64;
  DeviceArray<std::int64_t> columns_64;  // cuSPARSE wants one index type when offsets are 64-bit
  DeviceArray<std::int32_t> columns_32;
  DeviceArray<T> values;
  DeviceArray<T> x;
  DeviceArray<T> y;
  DeviceArray<unsigned char> workspace;
  EventTimer timer;
};

template <typename T>
CusparseSpmv<T>::CusparseSpmv(const CsrMatrix<T>& a, const std::vector<T>& x) : state_(std::make_unique<State>()) {
  State& s = *state_;
  constexpr cudaDataType value_type = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
  s.rows = a.rows;
  s.cols = a.cols;
  s.nnz = a.nnz();
  s.offsets32 = a.nnz() <= std::numeric_limits<std::int32_t>::max();
  s.values = DeviceArray<T>::from_host(a.values);
  s.x = DeviceArray<T>::from_host(x);
  s.y = DeviceArray<T>(static_cast<std::size_t>(a.rows));
  check(cusparseCreate(&s.handle), "cusparseCreate");
  if (s.offsets32) {
    std::vector<std::int32_t> offsets(a.row_offsets.begin(), a.row_offsets.end());
    s.offsets_32 = DeviceArray<std::int32_t>::from_host(offsets);
    s.columns_32 = DeviceArray<std::int32_t>::from_host(a.col_indices);
    TRELLIS_CUDA_CHECK(cudaDeviceSynchronize());  // host copies die at scope end
    check(cusparseCreateCsr(&s.matrix, s.rows, s.cols, s.nnz, s.offsets_32.data(), s.columns_32.data(), s.values.data(),
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type),
          "cusparseCreateCsr");
  } else {
    std::vector<std::int64_t> columns(a.col_indices.begin(), a.col_indices.end());
    s.offsets_64 = DeviceArray<std::int64_t>::from_host(a.row_offsets);
    s.columns_64 = DeviceArray<std::int64_t>::from_host(columns);
    TRELLIS_CUDA_CHECK(cudaDeviceSynchronize());
    check(cusparseCreateCsr(&s.matrix, s.rows, s.cols, s.nnz, s.offsets_64.data(), s.columns_64.data(), s.values.data(),
                            CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, value_type),
          "cusparseCreateCsr");
  }
  check(cusparseCreateDnVec(&s.x_desc, s.cols, s.x.data(), value_type), "cusparseCreateDnVec");
  check(cusparseCreateDnVec(&s.y_desc, s.rows, s.y.data(), value_type), "cusparseCreateDnVec");
  T alpha = 1;
  T beta = 0;
  std::size_t workspace_bytes = 0;
  check(cusparseSpMV_bufferSize(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.matrix, s.x_desc, &beta, s.y_desc,
                                value_type, CUSPARSE_SPMV_ALG_DEFAULT, &workspace_bytes),
        "cusparseSpMV_bufferSize");
  s.workspace = DeviceArray<unsigned char>(workspace_bytes);
}

template <typename T>
CusparseSpmv<T>::~CusparseSpmv() {
  if (state_->y_desc != nullptr) cusparseDestroyDnVec(state_->y_desc);
  if (state_->x_desc != nullptr) cusparseDestroyDnVec(state_->x_desc);
  if (state_->matrix != nullptr) cusparseDestroySpMat(state_->matrix);
  if (state_->handle != nullptr) cusparseDestroy(state_->handle);
}

template <typename T>
double CusparseSpmv<T>::run_ms() {
  State& s = *state_;
  constexpr cudaDataType value_type = std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
  T alpha = 1;
  T beta = 0;
  s.timer.start();
  check(cusparseSpMV(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.matrix, s.x_desc, &beta, s.y_desc,
                     value_type, CUSPARSE_SPMV_ALG_DEFAULT, s.workspace.data()),
        "cusparseSpMV");
  s.timer.stop();
  return s.timer.elapsed_ms();
}

template <typename T>
std::vector<T> CusparseSpmv<T>::result() const {
  return state_->y.to_host();
}

template <typename T>
std::size_t CusparseSpmv<T>::bytes_moved() const {
  const State& s = *state_;
  const std::size_t offset_bytes = s.offsets32 ? 4 : 8;
  const std::size_t column_bytes = s.offsets32 ? 4 : 8;
  return static_cast<std::size_t>(s.nnz) * (sizeof(T) + column_bytes) +
         static_cast<std::size_t>(s.rows + 1) * offset_bytes + static_cast<std::size_t>(s.cols) * sizeof(T) +
         static_cast<std::size_t>(s.rows) * sizeof(T);
}

template <typename T>
bool CusparseSpmv<T>::uses_32bit_offsets() const {
  return state_->offsets32;
}

template class CusparseSpmv<float>;
template class CusparseSpmv<double>;

}  // namespace trellis::bench
