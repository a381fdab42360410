"""trellis.align against `trellis align search` on the same small FASTA
files: the tabular text byte for byte, the columns value for value."""

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import trellis
from trellis import align

LETTERS = np.array(list("ARNDCQEGHILKMFPSTWYV"))


def random_protein(rng, length):
    return "".join(rng.choice(LETTERS, length))


def mutate(rng, protein, rate):
    return "".join(rng.choice(LETTERS) if rng.random() < rate else c for c in protein)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Six queries and 60 subjects, some subjects related to queries."""
    rng = np.random.default_rng(2024)
    queries = [(f"q{i}", random_protein(rng, int(rng.integers(30, 120)))) for i in range(6)]
    subjects = []
    for i in range(60):
        if i % 5 == 0:
            base = queries[(i // 5) % len(queries)][1]
            subjects.append((f"s{i}", mutate(rng, base, 0.25 + 0.05 * (i % 3))))
        else:
            subjects.append((f"s{i}", random_protein(rng, int(rng.integers(20, 200)))))
    subjects.append(("empty", ""))
    folder = tmp_path_factory.mktemp("align")
    qpath, dpath = folder / "queries.fasta", folder / "db.fasta.gz"
    qpath.write_text("".join(f">{i} query {i}\n{s}\n" for i, s in queries))
    with gzip.open(dpath, "wt") as out:
        out.write("".join(f">{i}\n{s[:50]}\n{s[50:]}\n" for i, s in subjects))
    return {"queries": queries, "subjects": subjects, "qpath": qpath, "dpath": dpath, "folder": folder}


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_tabular_text_equals_cli(cli, data, backend):
    want = cli("--backend", backend, "align", "search", "-q", data["qpath"], "-d", data["dpath"], "--top", 5).stdout
    got = align.search(data["qpath"], data["dpath"], top=5, backend=backend, format="tabular")
    assert got == want
    assert len(want.splitlines()) >= 6


def test_columns_equal_cli(cli, data):
    fields = "qseqid sseqid score qlen slen qstart qend sstart send length mismatch gapopen"
    text = cli("align", "search", "-q", data["qpath"], "-d", data["dpath"], "--top", 5, "--evalue", 100,
               "--outfmt", f"6 {fields}").stdout
    rows = [line.split("\t") for line in text.splitlines()]
    hits = align.search(data["qpath"], data["dpath"], top=5, evalue=100, format="records")
    assert len(hits) == len(rows) > 0
    for hit, row in zip(hits, rows):
        assert [str(hit[name]) for name in fields.split()] == row


def test_dataframe_and_alignments(data):
    pandas = pytest.importorskip("pandas")
    frame = align.search(data["qpath"], data["dpath"], top=3, alignments=True)
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns[:12]) == ["qseqid", "sseqid", "pident", "length", "mismatch", "gapopen", "qstart",
                                        "qend", "sstart", "send", "evalue", "bitscore"]
    assert (frame.groupby("qseqid").size() <= 3).all()
    best = frame.iloc[0]
    assert len(best.qseq) == len(best.sseq) == best.length
    assert best.evalue < 1e-5  # a planted relative


def test_inputs_in_memory_and_prepared_give_the_same_hits(data):
    from_files = align.search(data["qpath"], data["dpath"], format="tabular")
    in_memory = align.search(data["queries"], dict(data["subjects"]), format="tabular")
    assert in_memory == from_files
    prepared = data["folder"] / "db.trellisdb"
    align.write_database(data["dpath"], prepared)
    db = align.read_sequences(prepared)
    assert len(db) == len(data["subjects"]) and db.ids[0] == "s0"
    assert align.search(data["qpath"], db, format="tabular") == from_files


def test_statistics_none_leaves_evalues_empty(data):
    records = align.search(data["qpath"], data["dpath"], statistics="none", top=2, format="records")
    assert records and all(r["evalue"] is None and r["bitscore"] is None for r in records)


def test_bad_input(data, tmp_path):
    bad = tmp_path / "bad.fasta"
    bad.write_text(">ok\nACDE\n>two\nAC1D\n")
    with pytest.raises(trellis.InputError) as caught:
        align.search(bad, data["dpath"])
    assert caught.value.line == 4 and caught.value.file == str(bad)
    with pytest.raises(trellis.UsageError, match="seq2.*position 3"):
        align.search(["ACD", "AC#D"], data["dpath"])
    with pytest.raises(trellis.UsageError, match="matrix"):
        align.search(data["qpath"], data["dpath"], matrix="BLOSUM99")
    with pytest.raises(trellis.UsageError, match="hits per query"):
        align.search(data["qpath"], data["dpath"], top=0)
    with pytest.raises(trellis.UsageError, match="no sequences"):
        align.search(data["qpath"], [])


def test_top_hits_example(data):
    example = Path(__file__).resolve().parents[2] / "examples" / "python" / "top_hits.py"
    done = subprocess.run([sys.executable, str(example), str(data["qpath"]), str(data["dpath"]), "--top", "1"],
                          capture_output=True, text=True, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    best = align.search(data["qpath"], data["dpath"], top=1, format="records")
    assert all(hit["sseqid"] in done.stdout for hit in best)


def test_many_queries_in_chunks_with_progress(cli, data):
    # 150 queries are searched 64 at a time between progress reports; the
    # hits equal the CLI's single search of them all.
    rng = np.random.default_rng(5)
    queries = [(f"m{i}", mutate(rng, data["subjects"][i % 60][1] or "ACD", 0.3)) for i in range(150)]
    path = data["folder"] / "many.fasta"
    path.write_text("".join(f">{i}\n{s}\n" for i, s in queries))
    calls = []
    got = align.search(path, data["dpath"], top=2, backend="cpu", format="tabular",
                       progress=lambda done, total: calls.append((done, total)))
    assert calls == [(64, 150), (128, 150), (150, 150)]
    assert got == cli("--backend", "cpu", "align", "search", "-q", path, "-d", data["dpath"], "--top", 2).stdout

    def stop(done, total):
        raise RuntimeError(f"stopped at {done}")

    with pytest.raises(RuntimeError, match="stopped at 64"):
        align.search(path, data["dpath"], progress=stop)
