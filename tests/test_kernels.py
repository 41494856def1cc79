"""Property and agreement tests for ikd.kernels across the parameter space."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.gaussian_process import kernels as skk

from ikd.kernels import GammaExponential, Matern, RationalQuadratic, SquaredExponential, get_kernel

distances = st.floats(min_value=0.0, max_value=200.0, allow_nan=False)
variances = st.floats(min_value=1e-3, max_value=1e3)
# A fixed set of nu values keeps the Matérn tables cached between examples; it covers nu < 1, nu = 1, half-integers and large nu.
NUS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.5, 3.7, 8.0]
kernel_strategy = st.one_of(
    st.builds(SquaredExponential, variance=variances),
    st.builds(RationalQuadratic, alpha=st.floats(0.05, 50.0), variance=variances),
    st.builds(GammaExponential, gamma=st.floats(0.1, 2.0), variance=variances),
    st.builds(Matern, nu=st.sampled_from(NUS), variance=variances),
)


def assert_roundtrip(kernel, d):
    k = kernel.f(d)
    back = kernel.inverse(k)
    assert np.all(np.abs(back - d) <= 1e-9 * np.maximum(1.0, d)), (kernel, d[np.argmax(np.abs(back - d))])


@settings(max_examples=200, deadline=None)
@given(kernel=kernel_strategy, d=st.lists(distances, min_size=1, max_size=50))
def test_inverse_undoes_profile(kernel, d):
    assert_roundtrip(kernel, np.array(d))


@settings(max_examples=50, deadline=None)
@given(kernel=kernel_strategy, exponent=st.floats(-15, -1))
def test_inverse_near_zero_distance(kernel, exponent):
    assert_roundtrip(kernel, np.array([10.0**exponent, 0.0]))


@pytest.mark.parametrize("kernel", [SquaredExponential(), RationalQuadratic(alpha=2.0), GammaExponential(gamma=0.7)]
                         + [Matern(nu=nu) for nu in NUS])
def test_inverse_of_tiny_covariances(kernel):
    k = np.array([1e-300, 1e-200, 1e-100])
    d = kernel.inverse(k)
    assert np.all(np.isfinite(d)) and np.all(np.diff(d) < 0)
    np.testing.assert_allclose(np.log(kernel.f(d)), np.log(k), rtol=1e-9)


@pytest.mark.parametrize("kernel", [SquaredExponential(variance=2.0), RationalQuadratic(variance=2.0),
                                    GammaExponential(variance=2.0), Matern(nu=2.5, variance=2.0)])
def test_domain_policy(kernel):
    k = np.array([2.0, 2.5, 0.0, -0.3, np.nan, np.inf])
    np.testing.assert_array_equal(kernel.inverse(k), [0.0, 0.0, np.inf, np.inf, np.nan, 0.0])


@pytest.mark.parametrize("kernel", [SquaredExponential(), Matern(nu=0.8)])
def test_dtype_and_shape_are_kept(kernel):
    d = np.linspace(0, 5, 24, dtype=np.float32).reshape(2, 3, 4)
    k = kernel.f(d)
    assert k.dtype == np.float32 and k.shape == d.shape
    back = kernel.inverse(k)
    assert back.dtype == np.float32 and back.shape == d.shape
    np.testing.assert_allclose(back, d, atol=1e-4)
    assert kernel.derivative(d).dtype == np.float32


@pytest.mark.parametrize("kernel", [SquaredExponential(), RationalQuadratic(alpha=0.7), GammaExponential(gamma=1.3)]
                         + [Matern(nu=nu) for nu in NUS])
def test_derivative_matches_finite_difference(kernel):
    d = np.array([0.05, 0.5, 3.0, 20.0])
    h = 1e-6 * np.maximum(1.0, d)
    numeric = (kernel.f(d + h) - kernel.f(d - h)) / (2 * h)
    np.testing.assert_allclose(kernel.derivative(d), numeric, rtol=1e-5)


@pytest.mark.parametrize("params, message", [
    (("rational_quadratic", {"alpha": 0.0}), "alpha"), (("rational_quadratic", {"alpha": -1.0}), "alpha"),
    (("gamma_exponential", {"gamma": 0.0}), "gamma"), (("gamma_exponential", {"gamma": 2.01}), "gamma"),
    (("matern", {"nu": 0.0}), "nu"), (("matern", {"nu": np.nan}), "nu"),
    (("squared_exponential", {"variance": 0.0}), "variance"), (("matern", {"variance": -2.0}), "variance"),
    (("cosine", {}), "unknown kernel"),
])
def test_invalid_parameters_name_the_problem(params, message):
    name, kwargs = params
    with pytest.raises(ValueError, match=message):
        get_kernel(name, **kwargs)


def test_complex_input_is_rejected():
    with pytest.raises(TypeError, match="complex"):
        SquaredExponential().inverse(np.array([0.5 + 0.1j]))


@pytest.mark.parametrize("ours, theirs", [
    (SquaredExponential(), skk.RBF(length_scale=1.7)),
    (RationalQuadratic(alpha=0.6), skk.RationalQuadratic(length_scale=1.7, alpha=0.6)),
    (Matern(nu=0.5), skk.Matern(length_scale=1.7, nu=0.5)),
    (Matern(nu=1.5), skk.Matern(length_scale=1.7, nu=1.5)),
    (Matern(nu=2.5), skk.Matern(length_scale=1.7, nu=2.5)),
    (Matern(nu=0.8), skk.Matern(length_scale=1.7, nu=0.8)),
    (Matern(nu=3.7), skk.Matern(length_scale=1.7, nu=3.7)),
])
def test_covariance_matches_sklearn(ours, theirs):
    rng = np.random.default_rng(1)
    Z, Z2 = rng.normal(size=(30, 3)), rng.normal(size=(20, 3))
    np.testing.assert_allclose(ours.covariance(Z, Z2, lengthscale=1.7), theirs(Z, Z2), rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours.covariance(Z, lengthscale=1.7), theirs(Z), rtol=0, atol=1e-10)


@pytest.mark.parametrize("kernel", [SquaredExponential(), RationalQuadratic(), GammaExponential(gamma=0.5), Matern(nu=0.5),
                                    Matern(nu=2.5)])
def test_scalars_give_scalars(kernel):
    k = kernel.f(0.7)
    assert np.ndim(k) == 0 and np.ndim(kernel.inverse(k)) == 0 and np.ndim(kernel.derivative(0.7)) == 0
    assert abs(kernel.inverse(k) - 0.7) < 1e-9
