"""Metamorphic relations (issue 33, item 15): transformations of the input that must not change the answer, applied to
every estimator and option: IKD over solver x covariance x landmarks, `SNE` and `TractableLVM`.

Relations checked (each a test below, parametrized over the estimators it applies to):

* permuting the rows permutes the embedding, on the GP data and on binary data full of ties;
* a landmark list covering every row gives the plain fit (a permutation in disguise);
* X * c (c > 0) gives the same embedding, and for covariance="correlation" so does per-row positive scaling;
* a CSR copy gives the dense fit, on both data (IKD is the estimator that accepts sparse input);
* duplicated rows are handled: no crash, and every copy gets its original's coordinates (the LVM may instead refuse
  duplicates by name, which issue 33 item 6 allows);
* `transform` of the training rows gives back `embedding_`, for every solver x kernel x covariance input (dense rows,
  sparse rows, a precomputed covariance), on data with some covariances <= 0 and on data with none (issue 44 item 1);
* 1 and many BLAS threads agree, and so do n_jobs=1 and n_jobs=-1 (IKD; forked shortest paths forced on small T);
* a pickle round trip and `sklearn.base.clone` then refit reproduce the embedding exactly (bit for bit);
* `metrics.structure_scores` is unchanged by X * 3, reordered or rotated columns, and permuted rows (issue 44, items 5-6).

Embeddings are compared up to rotation, reflection and scale by the Procrustes disparity (scipy); `deviation` is its
square root, the relative RMS difference of the two point sets. The relations hold exactly in exact arithmetic, so what
separates them is rounding; see `ROUNDING` and `tolerance` for how much is allowed and why.
Data are small (T = 150 for IKD, 80 for SNE, the LVM and the transform grid; N = 60) so that the whole file runs in
minutes on 2 cores (324 tests took about 70 s; the 96 of the transform grid add about 30 s, timed under load).
"""
import functools
import inspect
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, Phase, example, given, settings, strategies as st
from scipy.spatial import procrustes
from sklearn.base import clone
from threadpoolctl import threadpool_limits

import ikd.shortest_paths
from ikd import IKD
from ikd.blockwise import BlockwiseSolver
from ikd.covariance import sample_covariance
from ikd.datasets import gp_observations, ou_latent
from ikd.kernels import KERNELS
from ikd.lvm import TractableLVM
from ikd.refine import refine_embedding
from ikd.sne import SNE

T, N, T_NEW, M = 150, 60, 20, 2
T_SMALL = 80  # rows for SNE and the LVM, whose fits are 10-30 times slower than IKD's
N_LANDMARKS = 112  # 3T/4: blockwise IKD's clique cover needs landmarks this dense on N = 60 features to place them all

# An exactly invariant relation changes only rounding (summation order, the magnitude of intermediate values): a
# relative perturbation of about 1e-15 of the covariances. We allow 1e-9 -- a million times that, room for f^{-1}
# amplifying rounding near s = 1, for shortest paths and for the refinement's iterations -- and, by Davis-Kahan, divide
# it by the relative eigengap (lambda_M - lambda_{M+1}) / lambda_1 of g(D) that the embedding's axes come from. An
# estimator without an eigengap (SNE, the LVM) divides it by its measured sensitivity instead (`sensitivity`). A
# discontinuous choice (ties broken by position, landmarks chosen by position, a stopping test on a rounding-level
# difference) moves the embedding by 1e-4 or more and fails, as it should.
ROUNDING = 1e-9
PROBE = 1e-10  # relative perturbation of X used to measure the sensitivity of an estimator without an eigengap

HYPOTHESIS = dict(deadline=None, database=None, derandomize=True, phases=(Phase.explicit, Phase.generate),
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@functools.cache
def data():
    "T training rows and T_NEW new rows of GP observations of a 2-D Ornstein-Uhlenbeck latent."
    Z = ou_latent(T + T_NEW, M, random_state=0)
    X = gp_observations(Z, N, random_state=0)
    return X[:T], X[T:]


LIST = np.random.default_rng(2).permutation(T)  # a shuffled landmark list covering every row

SOLVERS = {"auto": "auto", "full": "full", "blockwise": "blockwise",
           "blockwise-neighbourhoods": BlockwiseSolver(cover="neighbourhoods")}
# random landmarks leave gaps that blockwise IKD's clique cover cannot bridge on these 150 points (it refuses by name:
# "places only 57 of 112 points"); its neighbourhood cover takes them
IKD_CONFIGS = [f"ikd-{solver}-{covariance}-{landmarks}" for solver in SOLVERS for covariance in ("correlation", "covariance")
               for landmarks in ("none", "farthest", "rnet", "random", "list") if (solver, landmarks) != ("blockwise", "random")]
CORRELATION_CONFIGS = [name for name in IKD_CONFIGS if "-correlation-" in name]
ESTIMATORS = IKD_CONFIGS + ["sne", "lvm"]


def make(name, n_rows=T, landmark_list=None):
    """The unfitted estimator `name`, for data of `n_rows` rows; `landmark_list` replaces `LIST` (which must cover
    every row) for data whose rows are not the training rows in their order."""
    if name == "sne": return SNE(max_iter=200, annealing_steps=50, random_state=0)
    if name == "lvm": return TractableLVM(max_iter=50, random_state=0)
    solver, covariance, landmarks = _split(name)
    solver = SOLVERS[solver] if isinstance(SOLVERS[solver], str) else clone(SOLVERS[solver])
    params = dict(solver=solver, covariance=covariance, random_state=0)
    if landmarks in ("farthest", "rnet", "random"): params.update(n_landmarks=N_LANDMARKS, landmarks=landmarks)
    if landmarks == "list":
        chosen = LIST if landmark_list is None else landmark_list
        assert len(chosen) == n_rows and len(np.unique(chosen)) == n_rows, "the landmark list must cover every row"
        params.update(landmarks=chosen)
    return IKD(M, **params)


def _split(name):
    "'ikd-blockwise-neighbourhoods-correlation-none' -> ('blockwise-neighbourhoods', 'correlation', 'none')"
    head, covariance, landmarks = name.rsplit("-", 2)
    return head.removeprefix("ikd-"), covariance, landmarks


def train(name, kind="gp"):
    """The training rows of estimator `name`: the GP observations, or ("binary") their signs as 0/1, whose many equal
    correlations and distances make ties that a rule breaking them by position turns into a dependence on row order
    (issue 33 item 3)."""
    X = data()[0][:T_SMALL] if name in ("sne", "lvm") else data()[0]
    return (X > 0).astype(float) if kind == "binary" else X


def fit(estimator, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the full solver's weak-covariance warning, blockwise notes: not at issue here
        return estimator.fit(X)


def deviation(A, B):
    "Relative RMS difference of two embeddings of the same points after the best rotation, reflection and scaling."
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    assert A.shape == B.shape and np.isfinite(A).all() and np.isfinite(B).all()
    return float(np.sqrt(procrustes(A, B)[2]))


@functools.cache
def reference(name, kind="gp"):
    "The fit on the training rows, which every relation compares with."
    return fit(make(name), train(name, kind))


@functools.cache
def relative_eigengap(name, kind="gp"):
    """(lambda_M - lambda_{M+1}) / lambda_1 from the same fit with one more component (refinement off, the resolved
    solver and reference pinned). Where blockwise IKD cannot place M + 1 dimensions, the geodesic solver's gap on the
    same covariance and landmarks stands in for it."""
    model = reference(name, kind)
    params = make(name).get_params(deep=False)
    params.update(n_components=M + 1, solver=clone(model.settings_.solver), refine=False,
                  reference=model.settings_.reference or "auto")
    try: values = fit(IKD(**params), train(name, kind)).eigenvalues_
    except ValueError:
        params.update(solver="geodesic", reference="auto")
        values = fit(IKD(**params), train(name, kind)).eigenvalues_
    return float((values[M - 1] - values[M]) / values[0])


@functools.cache
def sensitivity(name, kind="gp"):
    "Relative movement of the embedding per relative perturbation PROBE of X (at least 1)."
    X = train(name, kind)
    moved = fit(make(name), X * (1 + PROBE * np.random.default_rng(5).standard_normal(X.shape))).embedding_
    return max(1.0, deviation(moved, reference(name, kind).embedding_) / PROBE)


def tolerance(name, kind="gp"):
    "The deviation an exactly invariant relation may cause on estimator `name` fitted to data `kind`."
    condition = 1 / relative_eigengap(name, kind) if name.startswith("ikd") else sensitivity(name, kind)
    return ROUNDING * condition


def check_same(name, embedding, what, kind="gp"):
    found, allowed = deviation(embedding, reference(name, kind).embedding_), tolerance(name, kind)
    assert found <= allowed, f"{name}: {what} moves the embedding by {found:.2e} (allowed {allowed:.1e})"


# --- permutation -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["gp", "binary"])
@pytest.mark.parametrize("name", ESTIMATORS)
@settings(max_examples=1, **HYPOTHESIS)
@given(seed=st.integers(0, 2**32 - 1))
@example(seed=0)
def test_permuting_rows_permutes_the_embedding(name, kind, seed):
    X = train(name, kind)
    order = np.random.default_rng(seed).permutation(len(X))
    position = np.argsort(order)  # row i of X is row position[i] of X[order]
    permuted = make(name, landmark_list=position[LIST] if len(X) == T else None)
    if kind == "binary":  # GP data must be embedded; on binary data a refusal is an outcome, the same in any row order
        try: reference(name, kind)
        except ValueError as refusal:
            with pytest.raises(ValueError) as permuted_refusal: fit(permuted, X[order])
            assert type(permuted_refusal.value) is type(refusal)
            return
    check_same(name, fit(permuted, X[order]).embedding_[position], f"permuting the {kind} rows (seed {seed})", kind)


@pytest.mark.parametrize("name", [name for name in IKD_CONFIGS if name.endswith("-list")])
def test_landmark_list_covering_every_row_is_the_plain_fit(name):
    plain = reference(name.removesuffix("-list") + "-none").embedding_
    check_same(name, plain, "a landmark list covering every row (against the plain fit)")


# --- scaling ---------------------------------------------------------------------------------------------------------

def in_squared_units(name):
    "Whether fitted attributes carry X's squared units: IKD's `variance_` with covariance='covariance', the LVM's `variances_`."
    return name == "lvm" or "-covariance-" in name


@pytest.mark.parametrize("name", ESTIMATORS)
@settings(max_examples=1, **HYPOTHESIS)
@given(exponent=st.floats(-150, 150))  # |x| c and its square stay normal doubles: no overflow or underflow is forced
@example(exponent=-3.0)
@example(exponent=100.0)  # issue 33 item 6: the LVM on X * 1e100
@example(exponent=160.0)  # issue 33 item 10: SNE on X * 1e160 (squares overflow unless the data are rescaled first)
def test_positive_scaling_changes_nothing(name, exponent):
    X = train(name)
    try: scaled = fit(make(name), X * 10.0 ** exponent).embedding_
    except ValueError as error:
        # The one refusal allowed: an estimator whose fitted attributes are in X's squared units may refuse, saying so,
        # a scale at which those attributes are not float64 numbers (c^2 mean(x^2) beyond 1e308 or below 1e-307).
        square = np.log10(np.mean(X ** 2)) + 2 * exponent
        message = str(error).lower()
        if in_squared_units(name) and not -307 < square < 308 and any(
                word in message for word in ("float64", "overflow", "underflow")): return
        raise
    check_same(name, scaled, f"X * 1e{exponent:g}")


@pytest.mark.parametrize("name", CORRELATION_CONFIGS)
@settings(max_examples=1, **HYPOTHESIS)
@given(seed=st.integers(0, 2**32 - 1))
@example(seed=0)
def test_correlation_ignores_positive_row_scaling(name, seed):
    X = train(name)
    scales = 10.0 ** np.random.default_rng(seed).uniform(-6, 6, size=(len(X), 1))
    check_same(name, fit(make(name), X * scales).embedding_, f"per-row scaling 1e-6..1e6 (seed {seed})")


# --- sparse input ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["gp", "binary"])
@pytest.mark.parametrize("name", IKD_CONFIGS)
def test_sparse_equals_dense(name, kind):
    X = train(name, kind)
    if kind == "gp": X = np.where(np.abs(X) > 0.5, X, 0.0)  # about 60% zeros (the binary rows have about 50%)
    try: dense = fit(make(name), X).embedding_
    except ValueError as refusal:  # then the sparse copy must be refused the same way
        with pytest.raises(ValueError) as sparse_refusal: fit(make(name), sp.csr_array(X))
        assert str(sparse_refusal.value) == str(refusal)
        return
    sparse = fit(make(name), sp.csr_array(X)).embedding_
    found, allowed = deviation(sparse, dense), tolerance(name, kind)
    assert found <= allowed, f"{name}: CSR against dense ({kind}) differ by {found:.2e} (allowed {allowed:.1e})"


# --- duplicated rows -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ESTIMATORS)
@settings(max_examples=1, **HYPOTHESIS)
@given(rows=st.lists(st.integers(0, T_SMALL - 1), min_size=1, max_size=6, unique=True), copies=st.integers(1, 3))
@example(rows=[5], copies=10)  # more copies of one row than any k-NN graph here has neighbours (issue 33 item 6)
@example(rows=[0, 20, 40, 60, 79], copies=1)
def test_duplicated_rows_get_the_same_coordinates(name, rows, copies):
    X = train(name)
    n = len(X)
    originals = np.repeat(rows, copies)
    X = np.r_[X, X[originals]]
    extended = np.r_[LIST, np.random.default_rng(3).permutation(np.arange(n, len(X)))] if n == T else None
    try: embedding = fit(make(name, n_rows=len(X), landmark_list=extended), X).embedding_
    except ValueError as error:
        if name == "lvm" and any(word in str(error).lower() for word in ("duplicate", "identical")): return  # refused by name
        raise
    assert np.isfinite(embedding).all()
    spread = np.sqrt(np.mean(np.sum((embedding - embedding.mean(0)) ** 2, axis=1)))
    apart = np.linalg.norm(embedding[n:] - embedding[originals], axis=1).max() / spread
    allowed = tolerance(name)
    assert apart <= allowed, (f"{name}: copies of rows {rows} ({copies} each) lie up to {apart:.2e} (relative to the "
                              f"spread) from their originals (allowed {allowed:.1e})")


@pytest.mark.parametrize("name", [name for name in IKD_CONFIGS if name.endswith(("-none", "-list"))])
def test_copies_up_to_rounding_are_fitted_once(name):
    """Every row given twice, the second time with its last digits changed (a relative 1e-15): no bit-for-bit copies,
    but each pair correlated to within rounding of 1. Each pair is one point: the rows get the plain fit's coordinates,
    and their twins the same ones (before, the twins took each other's places among the strongest correlations)."""
    X = train(name)
    twins = X * (1 + 1e-15 * np.random.default_rng(4).standard_normal(X.shape))
    both = np.r_[X, twins]
    doubled = np.r_[LIST, LIST + T] if name.endswith("-list") else None
    embedding = fit(make(name, n_rows=2 * T, landmark_list=doubled), both).embedding_
    check_same(name, embedding[:T], "giving every row twice, up to rounding")
    check_same(name, embedding[T:], "giving every row twice, up to rounding (the twins)")


# --- transform of the training rows ---------------------------------------------------------------------------------

T_TRANSFORM = 80  # rows of the transform grid: 4 solvers x 4 kernels x 3 inputs x 2 regimes of fits
# GP lengthscales on the same latent: at 3 some covariances are <= 0 and full IKD floors its weakest 0.1%; at 8 every
# covariance is positive and it floors none (issue 44 item 1: then `transform` floored and the fit did not)
REGIMES = {"weak": 3.0, "positive": 8.0}
INPUTS = ("dense", "sparse", "precomputed")
# a refined fit stops when an iteration lowers the stress by less than this fraction of it, so its points sit off the
# optimum that `transform` refines each one to by up to about that fraction of the map (measured: 1.1e-7 at most here)
REFINE_STOP = inspect.signature(refine_embedding).parameters["tol"].default


@functools.cache
def transform_data(kernel, regime):
    "T_TRANSFORM GP observations drawn with `kernel` at the lengthscale of `regime`."
    return gp_observations(ou_latent(T_TRANSFORM, M, random_state=0), N, kernel=kernel, lengthscale=REGIMES[regime],
                           random_state=0)


def transform_solver(name):
    """The solver `name` of SOLVERS; blockwise with threshold 0.2, at which its clique cover places every point of this
    grid ('auto', derived from N, cannot be used on a precomputed covariance)."""
    if name == "blockwise": return BlockwiseSolver(threshold=0.2)
    if name == "blockwise-neighbourhoods": return BlockwiseSolver(cover="neighbourhoods", threshold=0.2)
    return SOLVERS[name]


@pytest.mark.parametrize("regime", REGIMES)
@pytest.mark.parametrize("given", INPUTS)
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("solver", SOLVERS)
def test_transform_of_the_training_rows_is_the_embedding(solver, kernel, given, regime):
    X = transform_data(kernel, regime)
    S = sample_covariance(X)
    assert (S.min() > 0) == (regime == "positive")  # each regime is what it claims to be
    data = {"dense": X, "sparse": sp.csr_array(X), "precomputed": S}[given]
    model = fit(IKD(M, solver=transform_solver(solver), kernel=kernel, random_state=0,
                    covariance="precomputed" if given == "precomputed" else "correlation"), data)
    gap = np.abs(model.transform(data) - model.embedding_).max() / np.abs(model.embedding_).max()
    # triangulation divides by the eigenvalues of g(D): rounding moves a coordinate by up to lambda_1 / lambda_M times it
    allowed = ROUNDING * model.eigenvalues_[0] / model.eigenvalues_[-1] + (REFINE_STOP if model.settings_.refine else 0.0)
    assert gap <= allowed, (f"{solver} / {kernel} / {given} / {regime}: transform(X_train) lies {gap:.2e} of the map's "
                            f"extent from embedding_ (allowed {allowed:.1e})")


# --- threads and processes -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ESTIMATORS)
def test_one_and_many_blas_threads_agree(name):
    X = train(name)
    with threadpool_limits(limits=1): one = fit(make(name), X).embedding_
    with threadpool_limits(limits=4): many = fit(make(name), X).embedding_
    found, allowed = deviation(one, many), tolerance(name)
    assert found <= allowed, f"{name}: 1 and 4 BLAS threads differ by {found:.2e} (allowed {allowed:.1e})"


@pytest.mark.parametrize("name", IKD_CONFIGS)
def test_one_and_all_jobs_agree(name, monkeypatch):
    monkeypatch.setattr(ikd.shortest_paths, "MIN_SOURCES", 20)  # fork shortest-path workers even at T = 150
    X = train(name)
    serial = fit(make(name).set_params(n_jobs=1), X).embedding_
    parallel = fit(make(name).set_params(n_jobs=-1), X).embedding_
    found, allowed = deviation(serial, parallel), tolerance(name)
    assert found <= allowed, f"{name}: n_jobs=1 and n_jobs=-1 differ by {found:.2e} (allowed {allowed:.1e})"


# --- pickle and clone ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ESTIMATORS)
def test_pickle_and_clone_reproduce_exactly(name):
    X, new = train(name), data()[1]
    model = reference(name)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.embedding_, model.embedding_)
    if hasattr(model, "transform"):
        np.testing.assert_array_equal(restored.transform(new), model.transform(new), err_msg=f"{name}: transform after pickle")
    np.testing.assert_array_equal(fit(clone(model), X).embedding_, model.embedding_, err_msg=f"{name}: clone then refit")
    np.testing.assert_array_equal(fit(restored, X).embedding_, model.embedding_, err_msg=f"{name}: unpickled then refit")


@functools.lru_cache(maxsize=None)
def _scored_digits():
    "300 digits, their 2-D PCA map and classes, and the map's structure scores on a seeded subset of 150 points."
    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA
    from ikd.metrics import structure_scores
    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    Z = PCA(2).fit_transform(X)
    return X, Z, y, structure_scores(X, Z, y, max_points=150, random_state=0)


@pytest.mark.parametrize("relation", ["times 3", "columns reordered", "rotated", "rows permuted"])
def test_structure_scores_are_invariant(relation):
    """The structure scores (issue 44, items 5 and 6) read only distances and classes: X * 3, X's columns reordered, X
    rotated, and every row permuted together with its map point and class change none of them (their subset and walks
    were seeded from X's bytes, and rounding broke tied distances one way in X and another in its rotation)."""
    from ikd.metrics import structure_scores
    X, Z, y, scores = _scored_digits()
    rng = np.random.default_rng(6)
    if relation == "times 3": X = X * 3
    if relation == "columns reordered": X = X[:, rng.permutation(X.shape[1])]
    if relation == "rotated": X = X @ np.linalg.qr(rng.normal(size=(X.shape[1], X.shape[1])))[0]
    if relation == "rows permuted":
        order = rng.permutation(len(X))
        X, Z, y = X[order], Z[order], y[order]
    changed = structure_scores(X, Z, y, max_points=150, random_state=0)
    for name, value in scores.items():
        assert changed[name] == pytest.approx(value, abs=1e-9), name
