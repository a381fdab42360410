"""Exact Smith-Waterman-Gotoh protein database search with BLAST's columns.

``search(queries, database, ...)`` takes each of queries and database as a
FASTA or FASTA.gz path, a prepared database path (``trellis align makedb``),
a ``SequenceSet`` read or made once, or sequences in memory (a list of
strings, of (id, sequence) pairs, or a {id: sequence} dict). It returns the
best hits per query ranked as blastp ranks them, with BLAST's tabular
columns (qseqid sseqid pident length mismatch gapopen qstart qend sstart send
evalue bitscore, then score qlen slen and the 0-based query/subject
indices; qseq sseq cigar with ``alignments=True``): a pandas DataFrame when
pandas is installed, else a list of dicts; ``format="tabular"`` gives the
exact text ``trellis align search --outfmt`` writes. Gaps in BLAST's
convention: a gap of length k costs gap_open + k * gap_extend.
"""

from __future__ import annotations

import os
from typing import Callable, Optional

from . import _native

SequenceSet = _native.align.SequenceSet


def read_sequences(path) -> SequenceSet:
    """FASTA, FASTA.gz or a prepared database."""
    return _native.align.read_sequences(os.fspath(path))


def sequences(records) -> SequenceSet:
    """Sequences in memory: a list of letter strings (ids seq1, seq2, ...),
    of (id, letters) or (id, description, letters) tuples, or a dict
    {id: letters}."""
    if isinstance(records, dict):
        records = list(records.items())
    ids, descriptions, letters = [], [], []
    for i, record in enumerate(records):
        if isinstance(record, str):
            ids.append(f"seq{i + 1}")
            descriptions.append("")
            letters.append(record)
        elif len(record) == 2:
            ids.append(str(record[0]))
            descriptions.append("")
            letters.append(str(record[1]))
        elif len(record) == 3:
            ids.append(str(record[0]))
            descriptions.append(str(record[1]))
            letters.append(str(record[2]))
        else:
            raise ValueError(f"record {i}: expected letters, (id, letters) or (id, description, letters)")
    return _native.align.sequences(ids, descriptions, letters)


def write_database(source, path) -> None:
    """A prepared database file from sequences (anything search takes)."""
    _native.align.write_database(_as_sequences(source), os.fspath(path))


def search(queries, database, *, matrix: str = "BLOSUM62", gap_open: Optional[int] = None,
           gap_extend: Optional[int] = None, top: int = 10, evalue: float = 10.0, backend: str = "auto",
           statistics: str = "spouge", database_size: Optional[int] = None, alignments: bool = False,
           format: str = "auto", progress: Optional[Callable[[int, int], None]] = None):
    """Searches every query against the database.

    matrix: BLOSUM45/50/62/80, PAM30/70/250 or an NCBI matrix file; gap
    penalties default to BLAST's for the matrix. statistics: "spouge"
    (blastp's E-values), "karlin-altschul" or "none". format: "auto"
    (DataFrame when pandas is installed, else records), "dataframe",
    "records", or "tabular" (BLAST outfmt 6 text; "tabular:7 std qlen" and
    the like pass an outfmt). progress(done, total) is called as the
    queries are searched (every 64); an exception it raises, or Ctrl-C,
    stops the search.
    """
    hits = _native.align.search(_as_sequences(queries), _as_sequences(database), matrix,
                                -1 if gap_open is None else int(gap_open), -1 if gap_extend is None else int(gap_extend),
                                int(top), float(evalue), backend, statistics, database_size, progress)
    if format.startswith("tabular"):
        outfmt = format.partition(":")[2] or "6"
        return hits.tabular(outfmt)
    if format == "json":
        return hits.json()
    if format == "pairwise":
        return hits.pairwise()
    columns = hits.columns(alignments)
    if format == "records" or (format == "auto" and not _have_pandas()):
        names = list(columns)
        return [dict(zip(names, row)) for row in zip(*columns.values())]
    if format in ("auto", "dataframe"):
        import pandas

        frame = pandas.DataFrame(columns)
        for name in ("evalue", "bitscore"):
            frame[name] = frame[name].astype("float64")  # None (no statistics) becomes NaN
        return frame
    raise ValueError(f"format must be auto, dataframe, records, tabular[:OUTFMT], json or pairwise, got {format!r}")


def _as_sequences(source) -> SequenceSet:
    if isinstance(source, SequenceSet):
        return source
    if isinstance(source, (str, os.PathLike)):
        return read_sequences(source)
    return sequences(source)


def _have_pandas() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True
