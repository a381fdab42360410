"""A table of the best hits of a protein search (a pandas DataFrame when
pandas is installed).

Usage: python top_hits.py QUERIES.fasta DATABASE.fasta[.gz] [--top N] [--backend B]
e.g. with Debian's mmseqs2-examples:
  zcat /usr/share/doc/mmseqs2/example-data/QUERY.fasta.gz | head -20 > q.fasta
  python top_hits.py q.fasta /usr/share/doc/mmseqs2/example-data/DB.fasta.gz
"""
import argparse

import trellis


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("queries")
    parser.add_argument("database")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()
    hits = trellis.align.search(args.queries, args.database, top=args.top, backend=args.backend)
    try:
        import pandas

        with pandas.option_context("display.width", 160, "display.max_columns", 14):
            print(hits[["qseqid", "sseqid", "pident", "length", "qstart", "qend", "sstart", "send", "evalue",
                        "bitscore"]].to_string(index=False))
    except ImportError:
        for hit in hits:
            print(hit["qseqid"], hit["sseqid"], f"{hit['pident']:.1f}", hit["evalue"], hit["bitscore"], sep="\t")


if __name__ == "__main__":
    main()
