// Assembly: the matrix is the form (v^T A u = a(u, v) computed independently
// with operator applies and inner products), refills on every backend equal
// the reference, constraints and symmetrisation behave as documented, and
// the matrix-free apply equals SpMV with the assembled matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/backends.hpp"
#include "trellis/core/error.hpp"
#include "trellis/grid/assembly.hpp"
#include "trellis/grid/matrix_free.hpp"
#include "trellis/grid/norms.hpp"
#include "trellis/grid/operators.hpp"
#include "trellis/grid/spmv.hpp"

namespace trellis::grid {
namespace {

std::vector<double> random_values(std::size_t n, std::uint64_t seed, double lo = -1, double hi = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(lo, hi);
  std::vector<double> v(n);
  for (double& e : v) e = value(rng);
  return v;
}

Mesh random_mesh(int dim, std::int32_t cells, std::uint64_t seed) {
  std::vector<Mesh1D> axes;
  for (int a = 0; a < dim; ++a)
    axes.push_back(Mesh1D::random(0.0, 1.0 + a, cells + a, seed + static_cast<std::uint64_t>(a)));
  return Mesh(axes);
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double e : v) m = std::max(m, std::abs(e));
  return m;
}

// a(u, v) for a form given as terms, evaluated with operator applies and the
// inner products: the definition, independent of the assembly tables.
double evaluate_form(const Mesh& mesh, const std::vector<FormTerm>& terms,
                     const std::vector<std::vector<double>>& slots, const std::vector<double>& u,
                     const std::vector<double>& v) {
  const auto n = static_cast<std::size_t>(mesh.nodes());
  double total = 0;
  for (const FormTerm& term : terms) {
    std::vector<double> tu(n), sv(n);
    apply<double>(term.trial, mesh, u, tu, Backend::reference);
    apply<double>(term.test, mesh, v, sv, Backend::reference);
    if (term.coefficient >= 0) {
      for (std::size_t i = 0; i < n; ++i) tu[i] *= slots[static_cast<std::size_t>(term.coefficient)][i];
    }
    const double inner = term.weight == InnerProduct::h
                             ? inner_h<double>(mesh, tu, sv, nullptr, Backend::reference)
                             : inner_plus<double>(mesh, tu, sv, term.axis, nullptr, Backend::reference);
    total += term.scale * inner;
  }
  return total;
}

double v_a_u(const CsrMatrix<double>& a, const std::vector<double>& u, const std::vector<double>& v) {
  double total = 0;
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (RowOffset k = a.row_offsets[static_cast<std::size_t>(row)];
         k < a.row_offsets[static_cast<std::size_t>(row) + 1]; ++k) {
      total += v[static_cast<std::size_t>(row)] * a.values[static_cast<std::size_t>(k)] *
               u[static_cast<std::size_t>(a.col_indices[static_cast<std::size_t>(k)])];
    }
  }
  return total;
}

struct NamedForm {
  std::string name;
  BilinearForm form;
  std::int32_t slots;
};

std::vector<NamedForm> forms() {
  TrialFunction u;
  TestFunction v;
  const Coefficient k{0}, c{1}, b{2};
  std::vector<NamedForm> all;
  all.push_back({"laplacian", inner_plus(grad_minus(u), grad_minus(v)), 0});
  all.push_back({"reaction only", inner_h(k * u, v), 1});
  all.push_back(
      {"variable diffusion and reaction", inner_plus(k * grad_minus(u), grad_minus(v)) + inner_h(c * u, v), 2});
  all.push_back({"convection diffusion",
                 inner_plus(grad_minus(u), grad_minus(v)) + inner_h(b * backward_difference(0)(u), v) +
                     inner_h(2.5 * forward_difference(0)(u), v),
                 3});
  all.push_back({"averages jumps and shifts",
                 inner_h(backward_average(0)(u), forward_jump(0)(v)) + inner_h(forward_shift(0)(u), v) -
                     inner_h(u, backward_shift(0)(v)),
                 0});
  all.push_back({"chained operators",
                 inner_h(k * compose(forward_average(0), backward_difference(0))(u), backward_average(0)(v)) +
                     inner_plus(grad_plus(u), grad_plus(v)),
                 1});
  return all;
}

std::vector<std::vector<double>> coefficient_values(const Mesh& mesh, std::int32_t slots, std::uint64_t seed) {
  std::vector<std::vector<double>> values;
  for (std::int32_t s = 0; s < slots; ++s) {
    values.push_back(
        random_values(static_cast<std::size_t>(mesh.nodes()), seed + static_cast<std::uint64_t>(s), 0.5, 2.0));
  }
  return values;
}

template <typename T>
Coefficients<T> pack(const Mesh& mesh, std::int32_t slots, const std::vector<std::vector<double>>& values) {
  Coefficients<T> c(mesh, slots);
  for (std::int32_t s = 0; s < slots; ++s) {
    std::vector<T> converted(values[static_cast<std::size_t>(s)].begin(), values[static_cast<std::size_t>(s)].end());
    c.set(s, std::span<const T>(converted));
  }
  return c;
}

TEST(Assembly, OneDimensionalLaplacianHasTheTextbookEntries) {
  const Mesh mesh({Mesh1D::uniform(0.0, 1.0, 4)});
  TrialFunction u;
  TestFunction v;
  Assembly<double> assembly(mesh, inner_plus(grad_minus(u), grad_minus(v)), LinearForm(), {});
  AssembledMatrix<double> a = assembly.new_matrix();
  assembly.refill(Coefficients<double>(mesh, 0), a, Backend::reference);
  // (1/h) * tridiag(-1, 2, -1) with 1 at the two ends, h = 1/4.
  const std::vector<double> expected = {4, -4, -4, 8, -4, -4, 8, -4, -4, 8, -4, -4, 4};
  ASSERT_EQ(a.matrix.values.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_NEAR(a.matrix.values[k], expected[k], 1e-12) << k;
  EXPECT_EQ(a.matrix.row_offsets, (std::vector<RowOffset>{0, 2, 5, 8, 11, 13}));
  EXPECT_EQ(a.lift.nnz(), 0);
}

TEST(Assembly, MatrixIsTheFormOnRandomMeshes) {
  for (int dim = 1; dim <= 3; ++dim) {
    const Mesh mesh = random_mesh(dim, dim == 3 ? 5 : 9, 40 + static_cast<std::uint64_t>(dim));
    for (const NamedForm& named : forms()) {
      SCOPED_TRACE(named.name + " in " + std::to_string(dim) + "-D");
      const auto slots = coefficient_values(mesh, named.slots, 7);
      Assembly<double> assembly(mesh, named.form, LinearForm(), {});
      AssembledMatrix<double> a = assembly.new_matrix();
      assembly.refill(pack<double>(mesh, named.slots, slots), a, Backend::reference);
      a.matrix.validate();
      for (std::uint64_t trial = 0; trial < 3; ++trial) {
        const auto u = random_values(static_cast<std::size_t>(mesh.nodes()), 100 + trial);
        const auto v = random_values(static_cast<std::size_t>(mesh.nodes()), 200 + trial);
        const double expected = evaluate_form(mesh, named.form.terms(dim), slots, u, v);
        EXPECT_NEAR(v_a_u(a.matrix, u, v), expected, 1e-11 * std::max(1.0, std::abs(expected)));
      }
    }
  }
}

TEST(Assembly, LinearFormIsTheInnerProduct) {
  const Mesh mesh = random_mesh(2, 7, 3);
  TestFunction v;
  const LinearForm l = inner_h(Coefficient{0}, v) + inner_h(0.5, backward_difference(1)(v));
  Assembly<double> assembly(mesh, inner_h(TrialFunction{}, v), l, {});
  const auto f = random_values(static_cast<std::size_t>(mesh.nodes()), 5);
  Coefficients<double> c(mesh, 1);
  c.set(0, std::span<const double>(f));
  AssembledMatrix<double> a = assembly.new_matrix();
  assembly.refill(c, a, Backend::reference);
  std::vector<double> b(static_cast<std::size_t>(mesh.nodes()));
  const std::vector<double> g(b.size(), 0.0);
  assembly.assemble_rhs(c, g, a, b, Backend::reference);
  const auto w = random_values(b.size(), 6);
  std::vector<double> dw(b.size());
  apply<double>(backward_difference(1), mesh, w, dw, Backend::reference);
  const std::vector<double> half(b.size(), 0.5);
  const double expected = inner_h<double>(mesh, f, w, nullptr, Backend::reference) +
                          inner_h<double>(mesh, half, dw, nullptr, Backend::reference);
  double got = 0;
  for (std::size_t i = 0; i < b.size(); ++i) got += b[i] * w[i];
  EXPECT_NEAR(got, expected, 1e-12 * std::max(1.0, std::abs(expected)));
}

TEST(Assembly, ConstrainedRowsAreIdentityAndSymmetrisationLiftsColumns) {
  const Mesh mesh = random_mesh(2, 8, 11);
  TrialFunction u;
  TestFunction v;
  const Coefficient k{0};
  const BilinearForm form = inner_plus(k * grad_minus(u), grad_minus(v)) + inner_h(u, v);
  const LinearForm l = inner_h(Coefficient{1}, v);
  const std::vector<Marker> dirichlet = {boundary_marker(mesh)};
  const auto slots = coefficient_values(mesh, 2, 9);
  const Coefficients<double> c = pack<double>(mesh, 2, slots);
  const auto n = static_cast<std::size_t>(mesh.nodes());
  const auto g = random_values(n, 12);

  Assembly<double> plain(mesh, form, l, dirichlet);
  Assembly<double> symmetric(mesh, form, l, dirichlet, {.symmetrize = true});
  AssembledMatrix<double> a = plain.new_matrix();
  AssembledMatrix<double> s = symmetric.new_matrix();
  plain.refill(c, a, Backend::reference);
  symmetric.refill(c, s, Backend::reference);
  std::vector<double> b_plain(n), b_symmetric(n);
  plain.assemble_rhs(c, g, a, b_plain, Backend::reference);
  symmetric.assemble_rhs(c, g, s, b_symmetric, Backend::reference);

  std::size_t constrained = 0;
  for (std::size_t row = 0; row < n; ++row) {
    if (!plain.constrained()[row]) continue;
    ++constrained;
    ASSERT_EQ(a.matrix.row_offsets[row + 1] - a.matrix.row_offsets[row], 1);
    EXPECT_EQ(a.matrix.col_indices[static_cast<std::size_t>(a.matrix.row_offsets[row])], static_cast<ColumnIndex>(row));
    EXPECT_EQ(a.matrix.values[static_cast<std::size_t>(a.matrix.row_offsets[row])], 1.0);
    EXPECT_EQ(b_plain[row], g[row]);
    EXPECT_EQ(b_symmetric[row], g[row]);
  }
  EXPECT_EQ(constrained, boundary_marker(mesh).nodes.size());
  EXPECT_GT(s.lift.nnz(), 0);
  EXPECT_EQ(a.lift.nnz(), 0);

  // The symmetrised matrix is symmetric.
  std::vector<std::vector<double>> dense(n, std::vector<double>(n, 0.0));
  for (std::size_t row = 0; row < n; ++row) {
    for (auto k2 = s.matrix.row_offsets[row]; k2 < s.matrix.row_offsets[row + 1]; ++k2) {
      dense[row][static_cast<std::size_t>(s.matrix.col_indices[static_cast<std::size_t>(k2)])] +=
          s.matrix.values[static_cast<std::size_t>(k2)];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_NEAR(dense[i][j], dense[j][i], 1e-12 * std::max(1.0, std::abs(dense[i][j])));
  }

  // For x equal to g on the boundary, both systems' residuals agree.
  auto x = random_values(n, 13);
  for (std::size_t i = 0; i < n; ++i)
    if (plain.constrained()[i]) x[i] = g[i];
  std::vector<double> ax(n), sx(n);
  spmv<double>(1.0, a.matrix, x, 0.0, ax, Backend::reference);
  spmv<double>(1.0, s.matrix, x, 0.0, sx, Backend::reference);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_NEAR(ax[i] - b_plain[i], sx[i] - b_symmetric[i], 1e-11 * std::max(1.0, std::abs(ax[i]))) << i;
  }
}

TEST(Assembly, BadInputIsRefused) {
  const Mesh mesh = random_mesh(2, 4, 1);
  TrialFunction u;
  TestFunction v;
  const BilinearForm form = inner_plus(Coefficient{0} * grad_minus(u), grad_minus(v));
  EXPECT_THROW(Assembly<double>(mesh, form, LinearForm(), {Marker{"inlet", {}}}), UsageError);
  EXPECT_THROW(Assembly<double>(mesh, form, LinearForm(), {Marker{"far", {mesh.nodes()}}}), UsageError);
  Operator deep =
      compose(compose(backward_difference(0), forward_difference(0)), compose(backward_average(1), forward_average(1)));
  EXPECT_THROW(Assembly<double>(mesh, inner_h(compose(deep, backward_shift(0))(u), v), LinearForm(), {}), UsageError);
  EXPECT_THROW(Assembly<double>(mesh, inner_h(backward_difference(2)(u), v), LinearForm(), {}), UsageError);

  Assembly<double> assembly(mesh, form, LinearForm(), {});
  AssembledMatrix<double> a = assembly.new_matrix();
  Coefficients<double> none(mesh, 0);
  EXPECT_THROW(assembly.refill(none, a, Backend::reference), UsageError);  // too few slots
  Coefficients<double> c(mesh, 1);
  std::vector<double> bad(static_cast<std::size_t>(mesh.nodes()), 1.0);
  bad[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(c.set(0, std::span<const double>(bad)), UsageError);
  const Mesh other = random_mesh(2, 4, 2);
  EXPECT_THROW(assembly.refill(Coefficients<double>(other, 1), a, Backend::reference), UsageError);
}

class AssemblyBackends : public ::testing::TestWithParam<Backend> {};

TEST_P(AssemblyBackends, RefillEqualsReference) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  for (int dim = 1; dim <= 3; ++dim) {
    const Mesh mesh = random_mesh(dim, dim == 3 ? 6 : 11, 70 + static_cast<std::uint64_t>(dim));
    for (const NamedForm& named : forms()) {
      for (bool symmetrize : {false, true}) {
        SCOPED_TRACE(named.name + " in " + std::to_string(dim) + "-D" + (symmetrize ? ", symmetrised" : ""));
        const auto slots = coefficient_values(mesh, named.slots + 1, 17);
        const Coefficients<double> c = pack<double>(mesh, named.slots + 1, slots);
        const LinearForm l = inner_h(Coefficient{named.slots}, TestFunction{});
        Assembly<double> assembly(mesh, named.form, l, {boundary_marker(mesh)}, {.symmetrize = symmetrize});
        AssembledMatrix<double> expected = assembly.new_matrix();
        AssembledMatrix<double> got = assembly.new_matrix();
        assembly.refill(c, expected, Backend::reference);
        assembly.refill(c, got, GetParam());
        const double scale = std::max(1.0, max_abs(expected.matrix.values));
        for (std::size_t k = 0; k < got.matrix.values.size(); ++k) {
          ASSERT_NEAR(got.matrix.values[k], expected.matrix.values[k], 1e-12 * scale) << k;
        }
        for (std::size_t k = 0; k < got.lift.values.size(); ++k) {
          ASSERT_NEAR(got.lift.values[k], expected.lift.values[k], 1e-12 * scale) << k;
        }
        const auto n = static_cast<std::size_t>(mesh.nodes());
        const auto g = random_values(n, 19);
        std::vector<double> b_expected(n), b_got(n);
        assembly.assemble_rhs(c, g, expected, b_expected, Backend::reference);
        assembly.assemble_rhs(c, g, got, b_got, GetParam());
        const double b_scale = std::max(1.0, max_abs(b_expected));
        for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(b_got[i], b_expected[i], 1e-12 * b_scale) << i;
      }
    }
  }
}

// The setup on the device builds the host setup's pattern and tables bit
// for bit (compared through their host copies and through fills with them,
// host and device), on 1- to 3-D random meshes, every form, symmetrised or not.
TEST(AssemblyCuda, DeviceSetupEqualsHostSetupBitwise) {
  TRELLIS_SKIP_UNLESS_CUDA();
  for (int dim = 1; dim <= 3; ++dim) {
    const Mesh mesh = random_mesh(dim, dim == 3 ? 7 : 13, 90 + static_cast<std::uint64_t>(dim));
    for (const NamedForm& named : forms()) {
      for (bool symmetrize : {false, true}) {
        SCOPED_TRACE(named.name + " in " + std::to_string(dim) + "-D" + (symmetrize ? ", symmetrised" : ""));
        const auto slots = coefficient_values(mesh, named.slots + 1, 23);
        const Coefficients<double> c = pack<double>(mesh, named.slots + 1, slots);
        const LinearForm l = inner_h(Coefficient{named.slots}, TestFunction{}) +
                             inner_h(Coefficient{named.slots}, backward_average(0)(TestFunction{}));
        const std::vector<Marker> dirichlet = {boundary_marker(mesh)};
        const Assembly<double> host(mesh, named.form, l, dirichlet, {.symmetrize = symmetrize});
        const Assembly<double> device(mesh, named.form, l, dirichlet,
                                      {.symmetrize = symmetrize, .setup = Backend::cuda});
        // Device fills first, while the device setup's tables are the only ones.
        const DeviceCoefficients<double> device_c(c);
        DeviceAssembledMatrix<double> from_device = device.new_device_matrix();
        DeviceAssembledMatrix<double> from_host = host.new_device_matrix();
        device.refill(device_c, from_device);
        host.refill(device_c, from_host);
        const auto n = static_cast<std::size_t>(mesh.nodes());
        const auto g = DeviceArray<double>::from_host(random_values(n, 29));
        DeviceArray<double> b_device(n), b_host(n);
        device.assemble_rhs(device_c, g, from_device, b_device);
        host.assemble_rhs(device_c, g, from_host, b_host);
        ASSERT_EQ(from_device.matrix.values().to_host(), from_host.matrix.values().to_host());
        ASSERT_EQ(from_device.lift.values().to_host(), from_host.lift.values().to_host());
        ASSERT_EQ(b_device.to_host(), b_host.to_host());

        EXPECT_EQ(device.contributions(), host.contributions());
        AssembledMatrix<double> expected = host.new_matrix();
        AssembledMatrix<double> got = device.new_matrix();
        ASSERT_EQ(got.matrix.row_offsets, expected.matrix.row_offsets);
        ASSERT_EQ(got.matrix.col_indices, expected.matrix.col_indices);
        ASSERT_EQ(got.lift.row_offsets, expected.lift.row_offsets);
        ASSERT_EQ(got.lift.col_indices, expected.lift.col_indices);
        host.refill(c, expected, Backend::cpu);
        device.refill(c, got, Backend::cpu);
        ASSERT_EQ(got.matrix.values, expected.matrix.values);
        ASSERT_EQ(got.lift.values, expected.lift.values);
        EXPECT_EQ(device.table_bytes(), host.table_bytes());
      }
    }
  }
}

TEST_P(AssemblyBackends, AtomicRefillEqualsGather) {
  if (GetParam() != Backend::cuda) GTEST_SKIP() << "the atomic fill is a cuda method";
  TRELLIS_SKIP_UNLESS_CUDA();
  const Mesh mesh = random_mesh(3, 9, 5);
  const NamedForm named = forms()[1];
  const auto slots = coefficient_values(mesh, named.slots, 23);
  const Coefficients<double> c = pack<double>(mesh, named.slots, slots);
  Assembly<double> assembly(mesh, named.form, LinearForm(), {boundary_marker(mesh)}, {.symmetrize = true});
  DeviceCoefficients<double> device_c(c);
  DeviceAssembledMatrix<double> gathered = assembly.new_device_matrix();
  DeviceAssembledMatrix<double> scattered = assembly.new_device_matrix();
  assembly.refill(device_c, gathered, nullptr, RefillMethod::gather);
  assembly.refill(device_c, scattered, nullptr, RefillMethod::atomic);
  const auto a = gathered.matrix.values().to_host();
  const auto b = scattered.matrix.values().to_host();
  const double scale = std::max(1.0, max_abs(a));
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_NEAR(a[k], b[k], 1e-12 * scale) << k;
  const auto la = gathered.lift.values().to_host();
  const auto lb = scattered.lift.values().to_host();
  for (std::size_t k = 0; k < la.size(); ++k) ASSERT_NEAR(la[k], lb[k], 1e-12 * scale) << k;
}

// Constraint sets: the boundary, none (every run of rows takes the fast
// path of the separable apply), and a few scattered interior nodes.
std::vector<std::pair<std::string, std::vector<Marker>>> constraint_sets(const Mesh& mesh) {
  Marker scattered{"scattered", {}};
  for (std::int32_t node = 5; node < mesh.nodes(); node += 37) scattered.nodes.push_back(node);
  return {{"boundary", {boundary_marker(mesh)}}, {"none", {}}, {"scattered", {scattered}}};
}

template <typename T>
void expect_matrix_free_equals_spmv(Backend backend, double tolerance) {
  for (int dim = 1; dim <= 3; ++dim) {
    const Mesh mesh = random_mesh(dim, dim == 3 ? 9 : dim == 2 ? 37 : 150, 90 + static_cast<std::uint64_t>(dim));
    for (const NamedForm& named : forms()) {
      for (const auto& [constraint_name, dirichlet] : constraint_sets(mesh)) {
        for (bool symmetrize : {false, true}) {
          SCOPED_TRACE(named.name + " in " + std::to_string(dim) + "-D" + (symmetrize ? ", symmetrised" : "") +
                       ", constraints: " + constraint_name);
          const auto slots = coefficient_values(mesh, named.slots, 29);
          const Coefficients<T> c = pack<T>(mesh, named.slots, slots);
          Assembly<T> assembly(mesh, named.form, LinearForm(), dirichlet, {.symmetrize = symmetrize});
          AssembledMatrix<T> a = assembly.new_matrix();
          assembly.refill(c, a, Backend::reference);
          const auto n = static_cast<std::size_t>(mesh.nodes());
          const auto xd = random_values(n, 31);
          const std::vector<T> x(xd.begin(), xd.end());
          std::vector<T> expected(n), got(n);
          spmv<T>(T(1), a.matrix, x, T(0), expected, Backend::reference);
          MatrixFreeOperator<T> op(mesh, named.form, dirichlet, {.symmetrize = symmetrize});
          EXPECT_EQ(op.separable(), named.name != "chained operators");
          if (backend == Backend::vulkan && !op.separable()) {
            EXPECT_THROW(op.apply(c, x, got, backend), BackendUnavailable);  // separable forms only
            continue;
          }
          op.apply(c, x, got, backend);
          double scale = 1;
          for (T e : expected) scale = std::max(scale, static_cast<double>(std::abs(e)));
          for (std::size_t i = 0; i < n; ++i) {
            ASSERT_NEAR(static_cast<double>(got[i]), static_cast<double>(expected[i]), tolerance * scale) << i;
          }
          const std::vector<T> diagonal = op.diagonal(c);
          for (std::size_t row = 0; row < n; ++row) {
            T d = 0;
            for (auto k = a.matrix.row_offsets[row]; k < a.matrix.row_offsets[row + 1]; ++k) {
              if (static_cast<std::size_t>(a.matrix.col_indices[static_cast<std::size_t>(k)]) == row)
                d += a.matrix.values[static_cast<std::size_t>(k)];
            }
            ASSERT_NEAR(static_cast<double>(diagonal[row]), static_cast<double>(d), tolerance * scale) << row;
          }
        }
      }
    }
  }
}

TEST_P(AssemblyBackends, MatrixFreeApplyEqualsSpmvDouble) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  expect_matrix_free_equals_spmv<double>(GetParam(), 1e-12);
}

TEST_P(AssemblyBackends, MatrixFreeApplyEqualsSpmvFloat) {
  TRELLIS_SKIP_UNLESS_AVAILABLE(GetParam());
  expect_matrix_free_equals_spmv<float>(GetParam(), 1e-5);
}

// The vulkan backend has the matrix-free apply of separable forms (and not
// the fills): the same cases, the other forms refused; in fp64 only, to keep
// the lavapipe run short (tests/grid/matrix_free_test.cpp covers fp32).
TEST(AssemblyVulkan, MatrixFreeApplyEqualsSpmvDouble) {
  TRELLIS_SKIP_UNLESS_FLOAT64(Backend::vulkan);
  expect_matrix_free_equals_spmv<double>(Backend::vulkan, 1e-12);
}

TEST(AssemblyReference, MatrixFreeReferenceEqualsSpmv) {
  expect_matrix_free_equals_spmv<double>(Backend::reference, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Backends, AssemblyBackends, ::testing::ValuesIn(testing::backends_under_test()),
                         testing::backend_test_name);

}  // namespace
}  // namespace trellis::grid
