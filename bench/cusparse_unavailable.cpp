// Without CUDA there is no cuSPARSE; the benchmark leaves its row out.
#include "cusparse_spmv.hpp"
#include "trellis/core/error.hpp"

namespace trellis::bench {

bool cusparse_available() noexcept { return false; }

template <typename T>
struct CusparseSpmv<T>::State {};

template <typename T>
CusparseSpmv<T>::CusparseSpmv(const CsrMatrix<T>&, const std::vector<T>&) {
  throw BackendUnavailable("cuSPARSE is not part of a build without CUDA");
}
template <typename T>
CusparseSpmv<T>::~CusparseSpmv() = default;
template <typename T>
double CusparseSpmv<T>::run_ms() {
  return 0;
}
template <typename T>
std::vector<T> CusparseSpmv<T>::result() const {
  return {};
}
template <typename T>
std::size_t CusparseSpmv<T>::bytes_moved() const {
  return 0;
}
template <typename T>
bool CusparseSpmv<T>::uses_32bit_offsets() const {
  return false;
}

template class CusparseSpmv<float>;
template class CusparseSpmv<double>;

}  // namespace trellis::bench
