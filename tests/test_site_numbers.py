"""Numbers quoted on the site agree with the committed results they come from.

Each test reads what a page shows (its markdown cells and the saved text and Markdown outputs of its code cells), finds
a quoted number and compares it with the value computed from the results file (nbs/results/*.csv,
benchmarks/results/*), or from the code or data set a sentence describes. A page whose outputs are stale, or prose that
quotes a number by hand, fails here.
"""
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_digits

from ikd.covariance import TRANSFORM_CHUNK
from ikd.experiments import GPLVM_MAX_POINTS
from ikd.landmarks import farthest_point_landmarks

ROOT = Path(__file__).resolve().parent.parent
NBS, RESULTS, BENCHMARKS = ROOT / "nbs", ROOT / "nbs" / "results", ROOT / "benchmarks" / "results"


def shown(page):
    "The text a reader sees on a page: markdown cells, then every text or Markdown output, in order."
    parts = []
    for cell in json.loads((NBS / f"{page}.ipynb").read_text())["cells"]:
        if cell["cell_type"] == "markdown": parts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            parts.append("".join(output.get("text", "")) + "".join(data.get("text/markdown", ""))
                         + "".join(data.get("text/plain", "")))
    return "\n".join(parts)


def shown_as(value, decimals):
    "A number as a page prints it with `decimals` digits (Python's formatting, which rounds the binary value, not numpy's round)."
    return float(f"{value:.{decimals}f}")


def quoted(page, pattern):
    "The groups of the one place `pattern` matches on `page`, as floats where they are numbers."
    found = re.findall(pattern, shown(page))
    assert len(found) == 1, f"{page}: {len(found)} matches of {pattern!r}"
    groups = found[0] if isinstance(found[0], tuple) else (found[0],)
    return [float(g) if re.fullmatch(r"-?[\d.]+", g) else g for g in groups]


@pytest.fixture(scope="module")
def real(): return pd.read_csv(RESULTS / "real.csv").set_index(["dataset", "n_components", "method"]).sort_index()


@pytest.fixture(scope="module")
def gp_r2():
    fig2 = pd.read_csv(RESULTS / "fig2.csv").query("mapping == 'gp'")
    return fig2.pivot_table(index="method", columns="n_features", values="r2")


@pytest.fixture(scope="module")
def fashion(): return pd.read_csv(BENCHMARKS / "landmark_scale.csv").query("experiment == 'images' and data == 'fashion'").set_index("method")


def test_digits_accuracy_at_two_dimensions_says_its_fold_scheme(real, structure_defaults):
    ikd = real.loc[("digits", 2, "ikd")]
    paper, shuffled = round(ikd.knn_5, 3), round(ikd.knn_5_shuffled, 3)
    assert quoted("index", r"5-NN accuracy, digits, \$M = 2\$ \(paper's folds / shuffled folds\) \| ([\d.]+) / ([\d.]+) \|") \
        == [paper, shuffled]
    assert quoted("getting_started", r"against IKD's ([\d.]+) with the\s+paper's folds") == [paper]
    # getting started quotes the structure run's IKD row here (its shuffled folds are compare's, seeded by content)
    assert quoted("getting_started", r"and\s+([\d.]+) with shuffled folds") \
        == [round(structure_defaults.loc[("digits", "ikd"), "knn_5_shuffled"], 3)]
    assert quoted("cli", r"([\d.]+) with shuffled folds, as printed above, against ([\d.]+) with the paper's folds") \
        == [shuffled, paper]
    # the live runs score with shuffled folds (metrics.knn_accuracy's default)
    assert quoted("cli", r"\$ ikd\ndigits: 1797 points x 64 features, M = 2\n  IKD  5-fold 5-NN accuracy ([\d.]+)") == [shuffled]
    estimator_tables = "".join("".join(output.get("data", {}).get("text/html", "")) for cell in
                               json.loads((NBS / "estimator.ipynb").read_text())["cells"] for output in cell.get("outputs", []))
    assert re.findall(r"<td[^>]*>correlation</td>\s*<td[^>]*>[\d.]+</td>\s*<td[^>]*>([\d.]+)</td>", estimator_tables) \
        == [f"{shuffled:.3f}"]
    assert quoted("settings", r"\| digits \| 2 \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| ([\d.]+) \|") == [shuffled]


def test_home_table_reads_the_results(real, gp_r2, fashion):
    digits = real.loc[("digits", 2)]
    others = digits.drop("ikd")
    ikd_seconds, fastest = quoted("index", r"fit time, digits, \$M = 2\$ \(s, the Fig\. 7–11 run\) \| ([\d.]+) \| ([\d.]+) "
                                           r"\(\S+, the fastest\)")
    assert ikd_seconds == round(digits.loc["ikd", "seconds"], 2)
    assert fastest == round(others.seconds.min(), 3)
    assert quoted("index", r"latent \$R\^2\$, GP mapping, \$N = 1000\$ \| ([\d.]+) \| ([\d.]+)") \
        == [round(gp_r2.loc["ikd", 1000], 3), round(gp_r2[1000].drop("ikd").max(), 3)]
    ikd, umap = fashion.loc["ikd"], fashion.loc["umap"]
    assert quoted("index", r"all 70 000 Fashion-MNIST images, \$M = 2\$ \(IKD's defaults: (\d+) landmarks over the graph of every "
                           r"row; one thread\) \| ([\d.]+), ([\d.]+) s, ([\d.]+) GiB \| ([\d.]+), ([\d.]+) s") \
        == [int(ikd.n_landmarks), shown_as(ikd.score, 3), shown_as(ikd.seconds, 0), shown_as(ikd.peak_mb / 1024, 2), shown_as(umap.score, 3),
            shown_as(umap.seconds, 0)]


def test_fashion_mnist_time_is_the_benchmarks(fashion):
    ikd = fashion.loc["ikd"]
    assert quoted("getting_started", r"all 70 000 Fashion-MNIST images embed in ([\d.]+) s and ([\d.]+) GiB") \
        == [shown_as(ikd.seconds, 0), shown_as(ikd.peak_mb / 1024, 1)]
    assert quoted("landmarks", r"\*\*Fashion-MNIST\*\*: IKD's 5-NN accuracy is ([\d.]+) \(UMAP ([\d.]+), PCA [\d.]+\), in ([\d.]+) s") \
        == [shown_as(ikd.score, 3), shown_as(fashion.loc["umap", "score"], 3), shown_as(ikd.seconds, 0)]
    # the estimator page quotes its own (Dask) run's timing of an earlier landmark design's fit, and says so
    dask_seconds = float(re.search(r"fit ([\d.]+) s", (BENCHMARKS / "dask_transform.txt").read_text()).group(1))
    assert quoted("estimator", r"The fit took ([\d.]+) s in this run") == [dask_seconds]
    assert "landmark design before issue 47's" in shown("estimator")
    for page in ("index", "getting_started", "estimator"):
        assert "about 35 s" not in shown(page), page


def test_few_features_sentence_matches_fig2(gp_r2):
    best = gp_r2.idxmax()
    ikd_from = min(N for N in best.index if (best[best.index >= N] == "ikd").all())
    assert quoted("getting_started", r"IKD recovers the latent best from \$N = (\d+)\$ features on") == [ikd_from]
    fewest = best.index.min()
    winner, theirs, ikd = quoted("getting_started", r"(\w+) does better \(\$R\^2\$ ([\d.]+) against IKD's ([\d.]+)\)")
    assert winner.lower() == best[fewest]
    assert [theirs, ikd] == [round(gp_r2.loc[best[fewest], fewest], 3), round(gp_r2.loc["ikd", fewest], 3)]


def test_kernel_spread_matches_table2():
    table2 = pd.read_csv(RESULTS / "table2.csv").query("folds == 'paper' and k == 5")
    # the spread of the three-decimal accuracies the Tab. 2 page shows, so that a reader can check it there
    spread = {M: round(table2[f"M={M}"].round(3).max() - table2[f"M={M}"].round(3).min(), 3) for M in (2, 3, 5, 10)}
    widest = max(spread, key=spread.get)
    others = max(v for M, v in spread.items() if M != widest)
    assert quoted("getting_started", r"differ in 5-NN accuracy by ([\d.]+) at \$M = (\d+)\$ and at most ([\d.]+) at the other") \
        == [spread[widest], widest, others]
    assert quoted("exp_table2", r"differ by at most ([\d.]+) at any \$M\$ \(at \$M = (\d+)\$; by at most ([\d.]+) at the other") \
        == [spread[widest], widest, others]
    assert "within 0.03" not in shown("getting_started")


def test_table2_squared_exponential_is_the_real_data_run():
    "IKD's default kernel is the squared exponential: Tab. 2's SE rows are the digits fits of Fig. 7-11, to the last digit."
    table2 = pd.read_csv(RESULTS / "table2.csv").query("kernel == 'squared_exponential'").set_index(["folds", "k"])
    real = pd.read_csv(RESULTS / "real.csv").query("dataset == 'digits' and method == 'ikd'").set_index("n_components")
    for (folds, k), row in table2.iterrows():
        column = f"knn_{k}" + ("_shuffled" if folds == "shuffled" else "")
        for M in (2, 3, 5, 10): assert row[f"M={M}"] == pytest.approx(real.loc[M, column], abs=1e-12), (folds, k, M)


def test_gpy_warm_start_says_which_qpcr_gplvm(real):
    runs = (BENCHMARKS / "gplvm_warm_start.txt").read_text()
    default, warm = [float(v) for v in re.search(r"^qPCR.*?\s{2,}\d+\s+\S+\s+\S+\s+([\d.]+)\s+([\d.]+)", runs, re.M).groups()]
    assert quoted("gpy_warm_start", r"5-NN accuracy of ([\d.]+) against the default's ([\d.]+)\.") == [warm, default]
    assert quoted("gpy_warm_start", r"fitted to the raw expression values and scores ([\d.]+) at") \
        == [round(real.loc[("qpcr", 2, "gplvm"), "knn_5"], 3)]


def test_fitting_minutes_match_the_csvs():
    def minutes(*names):
        rows = pd.concat([pd.read_csv(RESULTS / f"{name}.csv") for name in names])
        return (rows.seconds * rows.get("trials", 1)).groupby(rows.method).sum() / 60
    fig45 = minutes("fig4", "fig5")
    total, gplvm = quoted("index", r"\* Fig\. 4 and 5: (\d+) min, of which GPLVM ([\d.]+)")
    assert [total, gplvm] == [round(fig45.sum()), round(fig45["gplvm"], 1)]
    assert quoted("exp_claims", r"Fig\. 4: ([\d.]+) min: GPLVM ([\d.]+)") \
        == [round(minutes("fig4").sum(), 1), round(minutes("fig4")["gplvm"], 1)]
    assert "41 min" not in shown("index") and "41 of them" not in shown("index")


def test_readme_is_the_home_page():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_readme.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_rnet_prose_reads_the_benchmark():
    text = (BENCHMARKS / "rnet.txt").read_text()
    number = r"(\d+(?:\.\d+)?)"
    nets = {(data.split(",")[0], distance, int(L)): [float(v) for v in values]
            for data, distance, L, *values in re.findall(
                r"^\s*(GP benchmark, N = 100|Fashion-MNIST 70 000)\s+(64 PCs|exact)\s+(\d+)" + rf"\s+{number}" * 5, text, re.M)}
    share = lambda data, distance, L: nets[(data, distance, L)][0]
    assert quoted("landmarks", r"the friend lists compute ([\d.]+), ([\d.]+) and ([\d.]+) of plain Gonzalez's") \
        == [share("GP benchmark", "64 PCs", L) for L in (100, 200, 400)]
    assert quoted("landmarks", r"in\s+principal coordinates \(([\d.]+), ([\d.]+) and ([\d.]+) exactly\)") \
        == [share("GP benchmark", "exact", L) for L in (100, 200, 400)]
    assert quoted("landmarks", r"in principal coordinates \(([\d.]+)\) and nothing in the exact\s+distance \(([\d.]+)\)") \
        == [share("Fashion-MNIST 70 000", "64 PCs", 2000), share("Fashion-MNIST 70 000", "exact", 2000)]
    fashion_accuracy = {int(M): [float(farthest), float(exact)] for M, farthest, exact in re.findall(
        r"^\s*(\d+)\s+([\d.]+) \(\s*[\d.]+ s\)\s+[\d.]+ \(\s*[\d.]+ s\)\s+([\d.]+) \(", text, re.M)}
    for M in (2, 10):
        exact, farthest = quoted("landmarks", rf"([\d.]+) against ([\d.]+)(?: 5-NN accuracy)? at \$M = {M}\$")
        assert [farthest, exact] == fashion_accuracy[M]


def test_landmark_page_scale_numbers_are_the_benchmarks():
    scale = pd.read_csv(BENCHMARKS / "scale.csv").set_index(["method", "T"])
    geodesic, full = scale.loc[("geodesic", 16000)], scale.loc[("full", 16000)]
    assert quoted("landmarks", r"geodesic IKD at \$T = 16\\,000\$: ([\d.]+) GiB, .*? in (\d+) s \(full IKD at the same "
                               r"\$T\$: ([\d.]+) GiB, (\d+) s\)") \
        == [round(geodesic.peak_gb, 1), round(geodesic.seconds), round(full.peak_gb, 1), round(full.seconds)]


def test_landmark_page_quotes_the_code_and_data():
    binary = (load_digits().data > 8).astype(float)
    assert quoted("landmarks", r"tie everywhere and (\d+) rows repeat another") == [len(binary) - len(np.unique(binary, axis=0))]
    assert quoted("landmarks", r"in chunks of\s+(\d+) rows") == [TRANSFORM_CHUNK]
    directions = inspect.signature(farthest_point_landmarks).parameters["n_directions"].default
    assert quoted("landmarks", r"features:\s+(\d+) times less work for Fashion-MNIST") == [round(28 * 28 / directions)]


def test_why_pca_beats_ikd_reads_the_measurements():
    why = pd.read_csv(RESULTS / "published_why.csv").set_index("dataset")
    coil, qpcr = why.loc["coil20"], why.loc["qpcr"]
    assert quoted("exp_published", r"COIL-20:\s+([\d.]+) against ([\d.]+)\)") \
        == [round(coil["5-NN on full IKD geodesic distances"], 3), round(coil["5-NN on full Euclidean distances"], 3)]
    assert quoted("exp_published", r"([\d.]+)% of the edges of the geodesic") == [round(100 * coil["cross-class graph edges"], 1)]
    assert quoted("exp_published", r"worst object is classified at ([\d.]+) and\s+PCA's at ([\d.]+)\.") \
        == [round(coil["IKD M=10: worst class"], 2), round(coil["PCA M=10: worst class"], 2)]
    assert quoted("exp_published", r"distance ratio is ([\d.]+) against Euclidean's\s+([\d.]+),") \
        == [round(coil["within/between class distance, IKD geodesic"], 2), round(coil["within/between class distance, Euclidean"], 2)]
    assert quoted("exp_published", r"and (\d+)% of the\s+objects reach accuracy 1 at \$M = 2\$ against PCA's (\d+)%") \
        == [round(100 * coil["IKD M=2: share of classes at accuracy 1"]), round(100 * coil["PCA M=2: share of classes at accuracy 1"])]
    assert quoted("exp_published", r"milder: ([\d.]+)% cross-class edges") == [round(100 * qpcr["cross-class graph edges"], 1)]
    assert quoted("exp_published", r"worst stage at ([\d.]+) against PCA's ([\d.]+)\.") \
        == [round(qpcr["IKD M=10: worst class"], 2), round(qpcr["PCA M=10: worst class"], 2)]


def test_where_pca_beats_ikd_reads_the_published_scores():
    five = pd.read_csv(RESULTS / "published.csv").query("k == 5").set_index(["dataset", "method", "n_components"])
    schemes = ["ours (paper folds)", "ours (shuffled folds)"]
    ahead = lambda dataset: [M for M in (2, 3, 5, 10)
                             if (five.loc[(dataset, "pca", M), schemes] > five.loc[(dataset, "ikd", M), schemes]).all()]
    listed = lambda text: [int(M) for M in re.findall(r"\d+", text)]
    coil, qpcr = quoted("exp_published", r"beat IKD on COIL-20 at \$M\$ = ([\d, and]+), and PCA beats it on qPCR at \$M\$ = ([\d, and]+)\.")
    assert [listed(coil), listed(qpcr)] == [ahead("coil20"), ahead("qpcr")]


def test_gpy_fit_times_are_the_runs():
    fig2 = pd.read_csv(RESULTS / "fig2.csv").query("method == 'gplvm'")
    assert (fig2.trials == 1).all()  # one fit per cell: its mean time is the fit's time
    assert quoted("exp_fig2", r"a GPy fit takes (\d+) s to (\d+) minutes at") \
        == [round(fig2.seconds.min()), round(fig2.seconds.max() / 60)]
    fits = [row["seconds"] for line in (RESULTS / "cache" / "fig4.jsonl").read_text().splitlines()
            for row in json.loads(line)["rows"] if row["method"] == "gplvm"]
    assert quoted("exp_fig4", r"a GPy fit takes (\d+)-(\d+) s here") == [round(min(fits)), round(max(fits))]


def test_fig13_gplvm_sizes_are_the_runs():
    sizes = sorted(pd.read_csv(RESULTS / "fig13.csv").query("method == 'gplvm'").n_points.unique())
    assert quoted("exp_fig13", r"GPLVM only at\s+\$T = (\d+)\$") == sizes == [1000]
    assert max(sizes) <= GPLVM_MAX_POINTS


def test_row_order_prose_reads_the_run():
    run = pd.read_csv(RESULTS / "roworder.csv").set_index(["data set", "M"])
    gain = run["authors, stored order"] - run["authors, permuted (mean)"]
    slashed = lambda dataset, column: " / ".join(f"{v:.3f}" for v in run.loc[dataset, column])
    span = lambda values: f"{min(values):.3f}–{max(values):.3f}"
    text = " ".join(shown("exp_roworder").split())  # prose lines rewrapped
    coil, qpcr = gain.xs("coil20"), gain.xs("qpcr")
    for quote in (f"scores {slashed('coil20', 'authors, stored order')} at M = 2 / 3 / 5 / 10",
                  f"close to the published {slashed('coil20', 'published IKD')}",
                  f"the same pipeline scores {slashed('coil20', 'authors, permuted (mean)')}",
                  f"Between {coil.min():.3f} and {coil.max():.3f} of its accuracy is the row order",
                  f"stored order {slashed('qpcr', 'authors, stored order')}",
                  f"reproduces the published {slashed('qpcr', 'published IKD')}",
                  f"permuted {slashed('qpcr', 'authors, permuted (mean)')}",
                  f"accounts for {span(qpcr)} of every published qPCR",
                  f"scores {span(-gain.xs('digits'))} *below* the permuted mean",
                  f"{slashed('coil20', 'IKD defaults, stored order')} on COIL-20",
                  f"{span(run.loc['qpcr', 'IKD defaults, stored order'])} on qPCR",
                  f"{span(run.loc['digits', 'IKD defaults, stored order'])} on digits"):
        assert quote.replace("\n", " ") in text, quote
    within = (run.loc["qpcr", "authors, stored order"] - run.loc["qpcr", "published IKD"]).abs().max()
    assert f"to within {within:.3f}" in text
    claims = " ".join(shown("exp_claims").split())
    assert f"({span(coil)} of the published COIL-20 accuracy and {span(qpcr)} of qPCR's)" in claims


def test_lvm_page_reads_the_saul_lvm_benchmarks():
    "The LVM pages' prose is generated from benchmarks/results/saul_lvm*.txt: a stale output or a hand-typed number fails here."
    # the method's page and its results page (exp_lvm, split from it), prose lines rewrapped
    text = " ".join((shown("lvm") + "\n" + shown("exp_lvm")).split())
    read = lambda name: (BENCHMARKS / name).read_text()
    rows = lambda name: {line.split()[0] + (f" d={line.split()[1]}" if name == "saul_lvm_mnist.txt" else ""): line.split()[1:]
                         for line in read(name).splitlines() if re.match(r"\s*(saul_lvm\w*|umap|pca)\s", line)}
    full, test_set = rows("saul_lvm_mnist.txt"), rows("saul_lvm_mnist_test.txt")
    ablation = {line[:31].strip(): line[31:].split() for line in read("saul_lvm_ablation.txt").splitlines()[3:]}
    digits = re.search(r"^\s*saul_lvm\s+([\d.]+) \(", read("saul_lvm.txt"), re.M).group(1)
    recall = lambda name: float(re.search(r"recall against the exact search[^:]*: ([\d.]+)", read(name)).group(1))
    loads = [float(found) for name in ("saul_lvm_mnist_test.txt", "saul_lvm_mnist.txt")  # the 1-minute averages
             for found in re.findall(r"^load average ([\d.]+),", read(name), re.M)]
    new, earlier = ablation["all three (new model)"], ablation["earlier model"]
    for quote in (f"on digits it stops at iteration {new[5]} with a 9-NN accuracy of {digits}, against {new[0]} after 400",
                  f"on the MNIST test set it stops after {test_set['saul_lvm'][3]}",
                  f"the digits map ends at Procrustes disparity {earlier[3]} from its Laplacian-eigenmap start",
                  f"changes {int(earlier[6]) - int(new[6])} of {int(earlier[6]):,} far pairs".replace(",", " "),
                  f"load average was {min(loads):.1f} to {max(loads):.1f} on its 2 cores",
                  f"At $d = 2$ the LVM's test error is {full['saul_lvm d=2'][1]} against UMAP's {full['umap d=2'][1]} and "
                  f"PCA's {full['pca d=2'][1]}; with $s = 2$, the paper's setting for its 9-NN errors, {full['saul_lvm_s2 d=2'][1]}.",
                  f"recall of the exact 9 neighbours is {recall('saul_lvm_mnist.txt'):.3f} on 2000 sampled rows",
                  f"5-fold 9-NN {test_set['saul_lvm'][0]} ({test_set['saul_lvm_s2'][0]} with $s = 2$) against {test_set['umap'][0]}",
                  f"lose most of it ({test_set['saul_lvm_l2'][0]})"):
        assert quote in text, quote
    # numbers that nothing committed produces are gone from the page
    for gone in ("0.079 from the frozen start", "1049", "56 000", "about 40 minutes", "145 pairs", "0.37 s each", "(0.989)"):
        assert gone not in text, gone


def html_tables(page):
    "Every table a page shows as HTML: (caption, rows of cell texts, header rows included)."
    tables = []
    for cell in json.loads((NBS / f"{page}.ipynb").read_text())["cells"]:
        for output in cell.get("outputs", []):
            html = "".join(output.get("data", {}).get("text/html", ""))
            if "<table" not in html: continue
            caption = re.search(r"<caption>(.*?)</caption>", html, re.S)
            rows = [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
                    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)]
            tables.append((caption.group(1) if caption else "", rows))
    return tables


@pytest.fixture(scope="module")
def structure_defaults():
    "The structure page's run: each method with its own defaults."
    rows = pd.read_csv(RESULTS / "structure.csv")
    return rows[rows.variant == rows.method].set_index(["dataset", "method"])


def test_digits_umap_says_which_run(real, structure_defaults):
    "UMAP's digits map scores 0.977 in the Fig. 7–11 run and 0.976 in the structure run: each page says which it quotes."
    paper_run, structure_run = real.loc[("digits", 2, "umap")], structure_defaults.loc[("digits", "umap")]
    assert quoted("index", r"\| ([\d.]+) / ([\d.]+) \(UMAP, the most accurate of the paper's other methods\) \| \[Fig\. 7–11\]") \
        == [round(paper_run.knn_5, 3), round(paper_run.knn_5_shuffled, 3)]
    at = lambda method, key: round(structure_defaults.loc[("digits", method), key], 3)
    methods = ("tsne", "pacmap", "trimap", "umap", "ikd")
    assert quoted("getting_started", r"\$M = 2\$ in the \[structure\]\(exp_structure\.ipynb\) page's run is ([\d.]+), ([\d.]+), "
                                     r"([\d.]+)\s+and ([\d.]+) against IKD's ([\d.]+) with the paper's folds") \
        == [at(m, "knn_5") for m in methods]
    assert quoted("getting_started", r"\(([\d.]+), ([\d.]+),\s+([\d.]+), ([\d.]+) and\s+([\d.]+) with shuffled folds\)") \
        == [at(m, "knn_5_shuffled") for m in methods]
    assert quoted("getting_started", r"slightly different map, which scores ([\d.]+) /\s+([\d.]+) \(the home page's number\)") \
        == [round(paper_run.knn_5, 3), round(paper_run.knn_5_shuffled, 3)]
    assert quoted("exp_real", r"digits ([\d.]+) here, ([\d.]+) there") \
        == [round(paper_run.knn_5, 3), round(structure_run.knn_5, 3)]
    # the two runs may differ in UMAP's map (not reproducible across processes here), never in the deterministic IKD's
    assert real.loc[("digits", 2, "ikd")].knn_5 == pytest.approx(structure_defaults.loc[("digits", "ikd")].knn_5, abs=1e-12)


def test_digits_fit_time_says_which_run(real, structure_defaults):
    structure_seconds, paper_seconds = quoted("getting_started", r"the same IKD fit of digits took ([\d.]+) s there and\s+([\d.]+) s in "
                                                                 r"the \[Fig\. 7–11\]\(exp_real\.ipynb\) run")
    assert structure_seconds == shown_as(structure_defaults.loc[("digits", "ikd"), "seconds"], 1)
    assert paper_seconds == shown_as(real.loc[("digits", 2, "ikd"), "seconds"], 2)
    cost = next(rows for caption, rows in html_tables("getting_started") if caption.startswith("The best map for each kind"))
    digits_rows = [row for row in cost if row[1:2] == ["digits"]]
    assert digits_rows and all(row[-1] == f"{structure_seconds:.1f} s" for row in digits_rows)


def test_gp_benchmark_r2_says_which_trials(gp_r2, structure_defaults):
    "The GP benchmark's R² at N = 100: one draw in the structure run, the mean of Fig. 2's draws in the other table."
    fig2 = pd.read_csv(RESULTS / "fig2.csv").query("mapping == 'gp'")
    draws = int(fig2.trials.max())
    (caption, rows), = [t for t in html_tables("getting_started") if t[0].startswith("Affine-fit")]
    assert f"mean of the Fig. 2 run's {draws} draws; the table above has one draw" in caption
    column = rows[0].index("N = 100")
    for method, label_ in (("ikd", "IKD"), ("isomap", "Isomap"), ("pca", "PCA")):
        row = next(r for r in rows if r[0] == label_)
        assert float(row[column]) == round(gp_r2.loc[method, 100], 3), method
    cost = next(rows for caption, rows in html_tables("getting_started") if caption.startswith("The best map for each kind"))
    latent = next(row for row in cost if row[1] == "GP benchmark" and row[0].startswith("the latent"))
    assert float(latent[5]) == round(structure_defaults.loc[("gp", "ikd"), "r2"], 3)
    assert "one draw of the GP benchmark, $N = 100$ features, seed 0" in shown("getting_started")


def test_single_cell_rows_read_the_single_cell_run():
    read = lambda name, index: pd.read_csv(RESULTS / f"singlecell_{name}.csv", index_col=index)
    ordering = read("guo_ordering", "method")["|Spearman| with log2(stage)"]
    split, why = read("guo_split", "map")["PE vs EPI, 5-NN (64-cell ICM)"], read("guo_why", "measure")["IKD"]
    pbmc, krumsiek = read("pbmc_pca", "method"), read("krumsiek", "method")
    three = lambda value: round(value, 3)
    assert quoted("getting_started", r"pseudotime reaches \$\|\$Spearman\$\|\$ ([\d.]+) and PCA ([\d.]+), IKD\s+([\d.]+):") \
        == [three(ordering[m]) for m in ("diffusion pseudotime", "PCA", "IKD")]
    assert quoted("getting_started", r"TE against ICM, AUC\s+([\d.]+)\)") == [three(why["TE vs ICM AUC of the 1-D map (32-64 cells)"])]
    assert quoted("getting_started", r"accuracy ([\d.]+), PCA's map ([\d.]+)\)") == [three(split["IKD"]), three(split["PCA"])]
    assert quoted("getting_started", r"orders the stages\s+\(\$\|\$Spearman\$\|\$ ([\d.]+)\)") \
        == [three(why["|Spearman| of the 2-D map's second coordinate"])]
    best = lambda t, score: t.loc[t[score].idxmax()]
    assert quoted("getting_started", r"(\S+) keeps the cell types best \(5-NN accuracy ([\d.]+),\s+IKD ([\d.]+)\)") \
        == [best(pbmc, "knn_accuracy")["name"], three(pbmc.knn_accuracy.max()), three(pbmc.loc["ikd", "knn_accuracy"])]
    assert quoted("getting_started", r"and (\S+) the distances \(Spearman's ρ\s+([\d.]+), IKD ([\d.]+)\)") \
        == [best(pbmc, "spearman_rho")["name"], three(pbmc.spearman_rho.max()), three(pbmc.loc["ikd", "spearman_rho"])]
    assert quoted("getting_started", r"embeddings \(5-NN accuracy ([\d.]+), (\S+)\s+([\d.]+)\)") \
        == [three(krumsiek.loc["ikd", "knn_accuracy"]), best(krumsiek, "knn_accuracy")["name"], three(krumsiek.knn_accuracy.max())]
    assert quoted("getting_started", r"\(Spearman's ρ\s+([\d.]+), the best of them ([\d.]+)\)") \
        == [three(krumsiek.loc["ikd", "spearman_rho"]), three(krumsiek.loc[["tsne", "umap", "pacmap"], "spearman_rho"].max())]


def test_getting_started_installs_from_the_clone():
    "The install lines name the repository settings.ini names and only extras setup.py defines; nothing claims PyPI."
    from configparser import ConfigParser
    config = ConfigParser(delimiters=["="])
    config.read(ROOT / "settings.ini")
    url = config["DEFAULT"]["git_url"]
    extras = set(re.findall(r"'(\w+)':", re.search(r"extras_require=\{(.*?)\},\n", (ROOT / "setup.py").read_text(), re.S).group(1)))
    page = shown("getting_started")
    assert f"git clone {url} && cd ikd" in page and f"git clone {url} && cd ikd" in shown("index")
    extras_table = page.split("| extra | installs | for |")[1].split("\n\n")[0]
    listed = set(re.findall(r"^\| `(\w+)` \|", extras_table, re.M))
    assert listed == extras, listed ^ extras
    for page_name in ("getting_started", "index"):
        text = shown(page_name)
        for line in re.findall(r"pip install[^\n`]*", text):
            assert "-e ." in line or '-e ".[' in line, (page_name, line)


def test_intrinsic_dimensions_are_the_benchmarks():
    "m-hat of each real data set: the settings page's evidence table and getting started's printed settings agree with the dimension benchmark."
    estimates = {data.strip(): float(m_hat) for data, m_hat in re.findall(
        r"^\s*(digits|COIL-20|qPCR|F-MNIST 3000)\s+M = \d+\s+([\d.]+)", (BENCHMARKS / "doubling_dimension.txt").read_text(), re.M)}
    assert set(estimates) == {"digits", "COIL-20", "qPCR", "F-MNIST 3000"}
    evidence = {data: float(m_hat) for data, m_hat in re.findall(
        r"^\| (digits|COIL-20|qPCR|F-MNIST 3000) \| \d+ \|(?: [\d.]+ \|){5} ([\d.]+) \|", shown("settings"), re.M)}
    assert evidence == estimates
    assert quoted("getting_started", r"not refined, intrinsic dimension ([\d.]+)") == [estimates["digits"]]
