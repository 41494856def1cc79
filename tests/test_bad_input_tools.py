"""Bad input to the tools around the estimators (issue 33): `python -m ikd` run as a user runs it, in its own process.
Each refusal is one line on stderr and exit status 2, and nothing is written."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPOSITORY = Path(__file__).resolve().parents[1]


def command_line(*argv, folder):
    "Run `python -m ikd` in `folder` with this checkout's ikd; its exit status and stderr."
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-m", "ikd", *map(str, argv)], cwd=folder, env=environment,
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stderr


@pytest.mark.parametrize("outputs", [
    ["--save-embedding", "d.npy", "--no-baseline"],  # overwrote the data and exited 0
    ["--save-embedding", "./sub/../d.npy", "--no-baseline"],
    ["--output", "d.npy"],
])
def test_an_output_that_is_the_input_is_refused(tmp_path, outputs):
    data = np.random.default_rng(0).normal(size=(40, 5))
    np.save(tmp_path / "d.npy", data)
    (tmp_path / "sub").mkdir()
    status, stderr = command_line("d.npy", *outputs, folder=tmp_path)
    assert status == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert "is the same file as the data file" in stderr
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), data)
    assert not (tmp_path / "ikd_embedding.png").exists()


def test_labels_too_few_to_score_are_refused_before_the_fit(tmp_path):
    "6 points in classes of 5 and 1 printed '5-NN accuracy nan' after 27 lines of tracebacks, and exited 0."
    np.save(tmp_path / "d.npy", np.random.default_rng(0).normal(size=(6, 5)))
    np.save(tmp_path / "y.npy", np.array([0, 0, 0, 0, 0, 1]))
    status, stderr = command_line("d.npy", "--labels", "y.npy", folder=tmp_path)
    assert status == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert "class 1 has 1 point(s)" in stderr and "at least 5 in every class" in stderr
    assert not (tmp_path / "ikd_embedding.png").exists()


# --- issue 44 item 10: Excel's UTF-8 byte-order mark is not data ------------------------------------------------------

POINTS = np.random.default_rng(3).normal(size=(60, 5))
CLASSES = np.array(["ant", "bee", "cat"])[np.arange(60) % 3]


def table_text(header):
    "The points with their class names in a first column `type`, floats written exactly, as Excel would order them."
    lines = [",".join(["type", *(f"x{k}" for k in range(POINTS.shape[1]))])] if header else []
    lines += [",".join([c, *map(repr, row)]) for c, row in zip(CLASSES, POINTS.tolist())]
    return "\r\n".join(lines) + "\r\n"


@pytest.mark.parametrize("header", [True, False])
def test_a_byte_order_mark_is_not_data(tmp_path, header):
    """A file saved as Excel's "CSV UTF-8" lost its first data row without a header (59 of 60 points), and with one,
    `--label-column type` failed listing the column as '\\ufefftype'. Every point and class is read as written, and the
    command embeds all of them, as IKD embeds the points themselves."""
    from ikd import IKD
    from ikd.__main__ import load_table
    (tmp_path / "t.csv").write_text(table_text(header), encoding="utf-8-sig", newline="")
    column = "type" if header else "0"
    X, y, _ = load_table(tmp_path / "t.csv", label_column=column)
    np.testing.assert_array_equal(X, POINTS)
    np.testing.assert_array_equal(y, CLASSES)
    status, stderr = command_line("t.csv", "--label-column", column, "--no-baseline", "--save-embedding", "z.csv",
                                  folder=tmp_path)
    assert status == 0, stderr
    saved = np.loadtxt(tmp_path / "z.csv", delimiter=",", skiprows=1)
    direct = IKD(n_components=2).fit_transform(POINTS)
    np.testing.assert_allclose(saved, direct, rtol=0, atol=1e-9 * np.abs(direct).max())


def test_a_csv_that_is_not_utf8_is_named(tmp_path):
    (tmp_path / "t.csv").write_text(table_text(True), encoding="utf-16")
    status, stderr = command_line("t.csv", "--no-baseline", folder=tmp_path)
    assert status == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert "t.csv is not UTF-8 text" in stderr
    assert not (tmp_path / "ikd_embedding.png").exists()


# --- issue 44 item 11: a label option that does not fit the data file is refused, not ignored --------------------------

@pytest.mark.parametrize("argv, words", [
    (["t.csv", "--labels", "y.npy"], "--labels is for a .npy data file; the labels of t.csv are one of its columns"),
    (["d.npy", "--label-column", "type"], "--label-column is for a .csv data file"),
    (["d.npy", "--label-column", "0"], "--label-column is for a .csv data file"),
    (["--labels", "y.npy"], "--labels labels a data file, and none is given"),  # the digits, which bring their own classes
    (["--label-column", "type"], "--label-column labels a data file, and none is given"),
    (["d.npy", "--labels", "y.csv"], "--labels must name a .npy file, got y.csv"),  # was numpy's 'pickled data' message
])
def test_a_label_option_that_does_not_fit_the_data_is_refused(tmp_path, argv, words):
    "Each ran, exited 0 and printed no accuracy: the labels were silently not used."
    np.save(tmp_path / "d.npy", POINTS)
    np.save(tmp_path / "y.npy", np.arange(60) % 3)
    (tmp_path / "t.csv").write_text(table_text(True))
    (tmp_path / "y.csv").write_text("\n".join(CLASSES) + "\n")
    status, stderr = command_line(*argv, "--no-baseline", "--save-embedding", "z.npy", folder=tmp_path)
    assert status == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert words in stderr
    assert not (tmp_path / "z.npy").exists() and not (tmp_path / "ikd_embedding.png").exists()


def test_compare_takes_random_state_and_exits_2_when_a_method_fails(tmp_path):
    "--compare --random-state 3 printed a failed IKD row (the seed reached IKD twice) and exited 0."
    np.save(tmp_path / "d.npy", np.random.default_rng(0).normal(size=(80, 6)))
    status, stderr = command_line("d.npy", "--compare", "ikd,pca", "--random-state", "3", folder=tmp_path)
    assert status == 0 and stderr == "", stderr
    assert (tmp_path / "ikd_embedding.png").exists()
    status, stderr = command_line("d.npy", "--compare", "ikd,pca", "--n-landmarks", "2", "--output", "two.png", folder=tmp_path)
    assert status == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert "failed (ikd)" in stderr and "n_landmarks must be at least n_components + 2" in stderr, stderr
    assert (tmp_path / "two.png").exists()  # the methods that ran are still drawn


@pytest.mark.parametrize("output, words", [("plot.txt", "needs a figure suffix"), ("no/such/folder/plot.png", "does not exist")])
@pytest.mark.parametrize("job", [[], ["--compare", "pca"]])
def test_an_output_that_cannot_be_written_is_refused_before_the_fit(tmp_path, output, words, job):
    np.save(tmp_path / "d.npy", np.random.default_rng(0).normal(size=(40, 5)))
    status, stderr = command_line("d.npy", *job, "--output", output, folder=tmp_path)
    assert status == 2 and len(stderr.strip().splitlines()) == 1 and words in stderr, stderr
