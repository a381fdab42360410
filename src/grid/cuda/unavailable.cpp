// The cuda grid kernels in a build without CUDA: each says how to get them.
#include "../kernels.hpp"
#include "../multigrid_device.hpp"
#include "trellis/core/error.hpp"

namespace trellis::grid::cuda {
namespace {

[[noreturn]] void unavailable() {
  throw BackendUnavailable("this build of trellis has no CUDA support (rebuild with -DTRELLIS_CUDA=ON)");
}

}  // namespace

void spmv(float, const CsrView<float>&, const float*, float, float*, Stream) { unavailable(); }
void spmv(double, const CsrView<double>&, const double*, double, double*, Stream) { unavailable(); }
SolveResult cg(const DeviceLinearOperator<float>&, const float*, float*, const SolverOptions&, Stream) {
  unavailable();
}
SolveResult cg(const DeviceLinearOperator<double>&, const double*, double*, const SolverOptions&, Stream) {
  unavailable();
}
SolveResult bicgstab(const DeviceLinearOperator<float>&, const float*, float*, const SolverOptions&, Stream) {
  unavailable();
}
SolveResult bicgstab(const DeviceLinearOperator<double>&, const double*, double*, const SolverOptions&, Stream) {
  unavailable();
}
SolveResult stationary(const DeviceLinearOperator<float>&, const std::function<void(float*, Stream)>&, const float*,
                       float*, const SolverOptions&, Stream) {
  unavailable();
}
SolveResult stationary(const DeviceLinearOperator<double>&, const std::function<void(double*, Stream)>&, const double*,
                       double*, const SolverOptions&, Stream) {
  unavailable();
}
SolveResult flexible_cg(const DeviceLinearOperator<float>&, const std::function<void(const float*, float*, Stream)>&,
                        const float*, float*, const SolverOptions&, Stream) {
  unavailable();
}
SolveResult flexible_cg(const DeviceLinearOperator<double>&, const std::function<void(const double*, double*, Stream)>&,
                        const double*, double*, const SolverOptions&, Stream) {
  unavailable();
}
void csr_diagonal(const CsrView<float>&, float*, Stream) { unavailable(); }
void csr_diagonal(const CsrView<double>&, double*, Stream) { unavailable(); }
void apply_atom(AtomKind, const float*, std::int32_t, std::int32_t, std::int32_t, const float*, float*, Stream) {
  unavailable();
}
void apply_atom(AtomKind, const double*, std::int32_t, std::int32_t, std::int32_t, const double*, double*, Stream) {
  unavailable();
}
double weighted_dot(const NodeWeights<float>&, const float*, const float*, const std::int32_t*, std::int32_t, Stream) {
  unavailable();
}
double weighted_dot(const NodeWeights<double>&, const double*, const double*, const std::int32_t*, std::int32_t,
                    Stream) {
  unavailable();
}
double max_abs(const float*, const std::int32_t*, std::int32_t, Stream) { unavailable(); }
double max_abs(const double*, const std::int32_t*, std::int32_t, Stream) { unavailable(); }
void spmm(float, const CsrView<float>&, const float*, std::int32_t, float, float*, Stream) { unavailable(); }
void spmm(double, const CsrView<double>&, const double*, std::int32_t, double, double*, Stream) { unavailable(); }
void dia_spmv(float, const DiaView<float>&, const float*, float, float*, Stream) { unavailable(); }
void dia_spmv(double, const DiaView<double>&, const double*, double, double*, Stream) { unavailable(); }

// The multigrid setup and cycle: each says how to get them.
template <typename T>
DeviceCsr<T> interpolation(const detail::DeviceTransfer&, bool) {
  unavailable();
}
template <typename T>
std::optional<DeviceCsr<T>> galerkin_product(const CsrView<T>&, const CsrView<T>&, const CsrView<T>&,
                                             const detail::LevelExtents&, const std::uint8_t*) {
  unavailable();
}
template <typename T>
void inverse_diagonal(const CsrView<T>&, const std::uint8_t*, T*, int*) {
  unavailable();
}
template <typename T>
std::optional<T> interior_value(const T*, std::int32_t, const detail::LevelExtents&) {
  unavailable();
}
template <typename T>
DeviceArray<T> diagonal_at(const CsrView<T>&, const DeviceArray<std::int32_t>&) {
  unavailable();
}
DeviceArray<std::uint8_t> flags_at(std::int32_t, std::span<const std::int32_t>) { unavailable(); }
template <typename T>
detail::DeviceLineFactors<T> line_factors(const CsrView<T>&, const std::uint8_t*, std::int32_t, std::int32_t,
                                          std::int32_t&) {
  unavailable();
}
template <typename T>
struct LanczosQueue<T>::Lane {};
template <typename T>
LanczosQueue<T>::LanczosQueue(std::int32_t, std::int32_t, std::int32_t, std::size_t) {
  unavailable();
}
template <typename T>
LanczosQueue<T>::~LanczosQueue() = default;
template <typename T>
void LanczosQueue<T>::add(const CsrView<T>&, const T*) {
  unavailable();
}
template <typename T>
void LanczosQueue<T>::add(const detail::DeviceKronecker<T>&, const T*) {
  unavailable();
}
template <typename T>
std::vector<LanczosTridiagonal> LanczosQueue<T>::tridiagonals() const {
  unavailable();
}
TRELLIS_GRID_MULTIGRID_SETUP(float)
TRELLIS_GRID_MULTIGRID_SETUP(double)

template <typename T>
void kronecker_apply(const detail::DeviceKronecker<T>&, const T*, T*, Stream) {
  unavailable();
}
template <typename T>
void kronecker_residual(const detail::DeviceKronecker<T>&, const T*, const T*, bool, T*, Stream) {
  unavailable();
}
template <typename T>
void kronecker_inverse_diagonal(const detail::DeviceKronecker<T>&, T*, int*) {
  unavailable();
}
template <typename T>
void kronecker_smoothing_step(const detail::DeviceKronecker<T>&, const T*, const T*, bool, T, T, const T*, T*, T*,
                              Stream) {
  unavailable();
}
template <typename T>
std::int64_t kronecker_lanczos_product(const detail::DeviceKronecker<T>&, const T*, const T*, const double*, const T*,
                                       const T*, T*, double*, std::int64_t, Stream) {
  unavailable();
}
template <typename T>
KroneckerMatch kronecker_describes(const detail::DeviceKronecker<T>&, const CsrView<T>&) {
  unavailable();
}
TRELLIS_GRID_KRONECKER(float)
TRELLIS_GRID_KRONECKER(double)

template <typename T>
struct MultigridCycle<T>::Impl {};
template <typename T>
MultigridCycle<T>::MultigridCycle(std::vector<detail::DeviceLevelParts<T>>, Cycle) {
  unavailable();
}
template <typename T>
MultigridCycle<T>::~MultigridCycle() = default;
template <typename T>
void MultigridCycle<T>::set_coarse_solve(const detail::BandedLu*, bool) {
  unavailable();
}
template <typename T>
void MultigridCycle<T>::cycle(const T*, T*, Stream, const DeviceLinearOperator<T>*) const {
  unavailable();
}
template <typename T>
const DeviceLinearOperator<T>& MultigridCycle<T>::finest_operator() const {
  unavailable();
}
template <typename T>
const DeviceCsr<T>& MultigridCycle<T>::level_matrix(std::size_t) const {
  unavailable();
}
template class MultigridCycle<float>;
template class MultigridCycle<double>;

}  // namespace trellis::grid::cuda

namespace trellis::grid {
// Device meshes need the device; the constructor says how to get one.
template <typename T>
DeviceMesh<T>::DeviceMesh(const Mesh& mesh, Stream) : mesh_(mesh) {
  cuda::unavailable();
}
template class DeviceMesh<float>;
template class DeviceMesh<double>;
}  // namespace trellis::grid

namespace trellis::grid::detail {

DeviceTransfer::DeviceTransfer(const DeviceTransferInput&) { cuda::unavailable(); }
std::int32_t DeviceTransfer::fine_nodes() const { cuda::unavailable(); }
std::int32_t DeviceTransfer::coarse_nodes() const { cuda::unavailable(); }
template <typename T>
void DeviceTransfer::prolong_add(const T*, T*, Stream) const {
  cuda::unavailable();
}
template <typename T>
void DeviceTransfer::restrict_to(const T*, T*, Stream) const {
  cuda::unavailable();
}
template void DeviceTransfer::prolong_add<float>(const float*, float*, Stream) const;
template void DeviceTransfer::prolong_add<double>(const double*, double*, Stream) const;
template void DeviceTransfer::restrict_to<float>(const float*, float*, Stream) const;
template void DeviceTransfer::restrict_to<double>(const double*, double*, Stream) const;

}  // namespace trellis::grid::detail
