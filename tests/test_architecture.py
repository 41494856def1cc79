"""The architecture: pluggable solvers, one record of resolved settings, a scikit-learn estimator, modules in data-flow order."""
import ast
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from ikd import IKD
from ikd.blockwise import BlockwiseSolver
from ikd.datasets import gp_observations, ou_latent
from ikd.geodesic import GeodesicSolver
from ikd.metrics import affine_r2
from ikd.solvers import FullSolver, NewPoints, Solution, Solver

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def gp_data():
    Z = ou_latent(300, 2, random_state=5)
    return gp_observations(Z, 60, lengthscale=3.0, noise=0.05, random_state=5), Z


class NearestOnly(Solver):
    "A new solver in a few lines: every covariance floored at its row's k-th largest, then inverted."
    def __init__(self, *, k=10): self.k = k
    def solve(self, S, kernel, n_components):
        self.kernel_, self.floor_ = kernel, np.sort(S, axis=1)[:, -self.k].min()
        return Solution(distances=self._distances(S) * (1 - np.eye(len(S))))
    def relate(self, S_new, embedding, for_refinement=False, new_variances=None):
        return NewPoints(distances=self._distances(S_new))
    def _distances(self, S): return self.kernel_.inverse(np.maximum(S, self.floor_))


def test_a_new_solver_plugs_in_without_changing_the_estimator(gp_data):
    X, Z = gp_data
    model = IKD(solver=NearestOnly(k=10)).fit(X)
    assert isinstance(model.solver_, NearestOnly) and model.solver_ is not model.solver  # a fitted clone
    assert model.settings_.reference == "min_max" and not model.settings_.refine
    # the estimator decomposed exactly the distances the new solver made
    from ikd.covariance import sample_covariance
    from ikd.decompose import decompose_distances
    S = sample_covariance(X)
    distances = NearestOnly(k=10).solve(S, model.kernel_, 2).distances
    np.testing.assert_allclose(model.embedding_, decompose_distances(distances, 2, reference="min_max").embedding, atol=1e-10)
    assert affine_r2(model.embedding_, Z) > 0.1
    np.testing.assert_allclose(model.transform(X[:10]), model.embedding_[:10], atol=1e-6)
    assert not hasattr(model.solver, "floor_")  # the parameter object is never fitted


@pytest.mark.parametrize("name, params, solver", [
    ("geodesic", {"path": "product", "n_neighbors": 9}, GeodesicSolver(path="product", n_neighbors=9)),
    ("geodesic", {"threshold": 0.3}, GeodesicSolver(threshold=0.3)),
    ("full", {}, FullSolver()),
    ("blockwise", {"threshold": 0.3}, BlockwiseSolver(threshold=0.3, cover="cliques")),
])
def test_named_solver_and_solver_object_agree(gp_data, name, params, solver):
    X, _ = gp_data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        by_name = IKD(solver=name, **params).fit_transform(X)
        by_object = IKD(solver=solver).fit_transform(X)
    np.testing.assert_array_equal(by_name, by_object)


def test_graph_options_belong_to_the_solver_object(gp_data):
    with pytest.raises(ValueError, match="on the solver object"):
        IKD(solver=GeodesicSolver(), path="product").fit(gp_data[0])
    with pytest.raises(ValueError, match="no path option"):
        IKD(solver="full", path="product").fit(gp_data[0])
    with pytest.raises(ValueError, match="takes no reference"):
        IKD(solver="blockwise", reference="min_max").fit(gp_data[0])


def test_solver_parameters_can_be_searched(gp_data):
    X, _ = gp_data
    model = IKD(solver=GeodesicSolver(n_neighbors=7))
    assert model.get_params()["solver__n_neighbors"] == 7
    assert clone(model).solver is not model.solver
    search = GridSearchCV(model, {"solver__path": ["distance", "product"]}, cv=2,
                          scoring=lambda estimator, X, y=None: -np.var(estimator.transform(X))).fit(X)
    assert search.best_params_["solver__path"] in ("distance", "product")


def test_no_fitted_attribute_survives_a_refit(gp_data):
    """The refit of the architecture issue: a landmark fit, then a full fit of every point."""
    X, _ = gp_data
    model = IKD(n_landmarks=40).fit(X)
    assert hasattr(model, "landmark_indices_") and model.settings_.intrinsic_dimension is not None
    model.set_params(solver="full", n_landmarks=None).fit(X)
    fresh = IKD(solver="full").fit(X)
    fitted = lambda m: {name for name in vars(m) if name.endswith("_") and not name.startswith("__")}
    assert fitted(model) == fitted(fresh)
    assert model.settings_.intrinsic_dimension is None and isinstance(model.solver_, FullSolver)
    np.testing.assert_array_equal(model.embedding_, fresh.embedding_)
    np.testing.assert_array_equal(model.transform(X[:5]), fresh.transform(X[:5]))


def test_pandas_output_has_named_columns(gp_data):
    X, _ = gp_data
    frame = IKD(n_components=2).set_output(transform="pandas").fit_transform(X)
    assert list(frame.columns) == ["ikd0", "ikd1"] and frame.shape == (len(X), 2)
    assert list(IKD(3).fit(X).get_feature_names_out()) == ["ikd0", "ikd1", "ikd2"]


def test_fitted_attributes_are_documented(gp_data):
    doc = IKD.__doc__
    for name in ("embedding_", "n_features_in_", "variance_", "kernel_", "settings_", "solver_", "eigenvalues_",
                 "explained_variance_ratio_", "reference_index_", "landmark_indices_"):
        assert re.search(rf"^\s+{name} :", doc, re.M), name
    model = IKD(n_landmarks=100).fit(gp_data[0])
    public = {name for name in vars(model) if name.endswith("_") and not name.startswith("_")}
    undocumented = {name for name in public if not re.search(rf"^\s+{name} :", doc, re.M)}
    assert not undocumented, undocumented


# ikd's modules in data-flow order: each may import only modules before it (the layers of the architecture)
MODULE_ORDER = ["logs", "validation", "kernels", "covariance", "estimation_error", "solvers", "shortest_paths",
                "geodesic", "dimension", "reference", "gram", "alignment", "decompose", "blockwise", "refine", "landmarks",
                "settings", "decoder", "estimator", "gpy_warm_start", "sne", "lvm", "datasets", "metrics", "baselines", "experiments",
                "style", "plot", "anndata", "comparison", "__main__"]


def _module_order():
    "The modules of `MODULE_ORDER`, checked against the notebooks that export them."
    exported = set()
    for notebook in (ROOT / "nbs").glob("*.ipynb"):
        match = re.search(r"#\| default_exp (\w+)", notebook.read_text())
        if match: exported.add(match.group(1))
    assert exported == set(MODULE_ORDER), (sorted(exported - set(MODULE_ORDER)), sorted(set(MODULE_ORDER) - exported))
    return MODULE_ORDER


def _imports(module):
    "(module imported, names imported) for every `from ikd... import` / `from . import` in an ikd module."
    tree = ast.parse((ROOT / "ikd" / f"{module}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and (node.level == 1 or node.module.startswith("ikd.")):
            yield node.module.split(".")[-1], [alias.name for alias in node.names]


def test_modules_import_only_earlier_modules_and_no_private_names():
    order = _module_order()
    assert set(order) - {"__main__"} == {p.stem for p in (ROOT / "ikd").glob("*.py")} - {"__init__", "__main__", "_modidx"}
    for position, module in enumerate(order):
        for imported, names in _imports(module):
            assert imported in order[:position], f"{module} imports {imported}, which comes later"
            assert not [n for n in names if n.startswith("_")], f"{module} imports private names from {imported}"


def _code_lines(source, node):
    "Lines of `node` that hold code: not blank, not a comment, not a docstring."
    docstrings = set()
    for inner in ast.walk(node):
        if isinstance(inner, (ast.ClassDef, ast.FunctionDef)) and inner.body and isinstance(inner.body[0], ast.Expr) \
                and isinstance(inner.body[0].value, ast.Constant) and isinstance(inner.body[0].value.value, str):
            docstrings |= set(range(inner.body[0].lineno, inner.body[0].end_lineno + 1))
    lines = source.splitlines()
    return sum(1 for number in range(node.lineno, node.end_lineno + 1)
               if number not in docstrings and lines[number - 1].strip() and not lines[number - 1].strip().startswith("#"))


def test_the_estimator_class_is_short_and_whole():
    "IKD's own code fits in 120 lines, every method written where the class is: nothing attached from outside it."
    source = (ROOT / "ikd" / "estimator.py").read_text()
    tree = ast.parse(source)
    (ikd_class,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "IKD"]
    assert _code_lines(source, ikd_class) <= 120
    for module in (ROOT / "ikd").glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            targets = [inner for target in node.targets for inner in ast.walk(target)] if isinstance(node, ast.Assign) else []
            assert not any(isinstance(t, ast.Attribute) and getattr(t.value, "id", "") == "IKD" for t in targets), module.name
            decorators = node.decorator_list if isinstance(node, ast.FunctionDef) else []
            assert not any(getattr(d, "id", "") == "patch" for d in decorators), f"{module.name}: @patch on {node.name}"


def test_importing_a_benchmark_leaves_the_thread_settings_alone():
    "Notebooks and tests import benchmark helpers in a shared process: numba fails once its thread count changes under it."
    modules = sorted(path.stem for path in (ROOT / "benchmarks").glob("*.py"))
    probe = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'benchmarks')!r})\n"
        "names = [n for n in os.environ if n.endswith('_NUM_THREADS')]\n"
        "before = {n: os.environ[n] for n in names}\n"
        f"for module in {modules!r}: __import__(module)\n"
        "after = {n: v for n, v in os.environ.items() if n.endswith('_NUM_THREADS')}\n"
        "print(sorted(set(after.items()) ^ set(before.items())))\n")
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]", f"a benchmark sets thread variables on import: {result.stdout.strip()}"
