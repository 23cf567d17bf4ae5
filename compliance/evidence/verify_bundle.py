#!/usr/bin/env python3
"""Verify an evidence bundle of the table games compliance system, on your own, against the heads you hold.

    python3 verify_bundle.py evidence-keystone-2026-11-01-2026-11-07.zip --anchors anchor-keystone-41.json

Standard library only (Python 3.9 or later); it needs nothing from the casino but the bundle. The anchors
(``--anchors``, repeatable) are the JSON files the system e-mailed to you as each gaming day ended and each
report was produced or filed: the casino cannot change what you received. Without them the bundle's own
``anchors.json`` is used, which proves only that the bundle agrees with itself.

What it checks, and prints each mismatch naming the record:

* every file against the SHA-256 the manifest gives;
* every chain: each link follows the one before (sequence, previous hash) and its hash is the SHA-256 of its
  chain, sequence, previous hash, ids and its rows' digests; every row the links cover is there, and its
  digest (SHA-256 of its canonical content and seal) is the one its link holds; no row is there twice or
  without a link;
* every anchored head you hold for the bundle's chains: the link at that sequence is in the bundle and has
  that hash (a rewrite, a reordering or a deletion before it changes it; a bundle that stops short does not
  reach it);
* every regulated record: the SHA-256 of its content is the content hash each of its signatures holds, and
  each signature is a row of the signatures' chain, for that record.

Exit status 0 when everything holds, 1 when anything does not, 2 when the bundle cannot be read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import zipfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FORMAT = "pa-table-games-evidence/1"


def canonical(content: Any) -> bytes:
    return json.dumps(content, sort_keys=True, separators=(",", ":"), default=str).encode()


def row_digest(content: Any, seal: str) -> bytes:
    return hashlib.sha256(canonical(content) + b"\n" + (seal or "").encode()).digest()


def link_hash(chain: str, sequence: int, previous: str, ids: str, digests: bytes) -> str:
    digest = hashlib.sha256(f"{chain}\n{sequence}\n{previous}\n{ids}\n".encode())
    digest.update(digests)
    return digest.hexdigest()


def decode_ids(text: str) -> Iterator[int]:
    for run in filter(None, text.split(",")):
        first, _, last = run.partition("-")
        yield from range(int(first), int(last or first) + 1)


class Result:
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.notes: list[str] = []
        self.counts: dict[str, int] = defaultdict(int)

    def problem(self, text: str) -> None:
        self.problems.append(text)


def _lines(archive: zipfile.ZipFile, name: str) -> Iterator[dict[str, Any]]:
    with archive.open(name) as handle:
        for raw in handle:
            if raw.strip():
                yield json.loads(raw)


def check_files(archive: zipfile.ZipFile, manifest: dict[str, Any], result: Result) -> None:
    listed = manifest.get("files", {})
    present = {info.filename for info in archive.infolist()} - {"manifest.json"}
    for name in sorted(present - set(listed)):
        result.problem(f"{name}: in the bundle but not in its manifest")
    for name, expected in sorted(listed.items()):
        if name not in present:
            result.problem(f"{name}: listed in the manifest but missing from the bundle")
            continue
        digest = hashlib.sha256()
        with archive.open(name) as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() != expected:
            result.problem(f"{name}: its SHA-256 is not the one the manifest gives (the file was changed)")
        result.counts["files"] += 1


def _row_name(chain: str, row: dict[str, Any]) -> str:
    model = chain.split("@", 1)[0]
    owner = row.get("of", "")
    return f"{model} #{row.get('id')}" + (f" ({owner})" if owner else "")


def _read_rows(archive: zipfile.ZipFile, chain: str, name: str, result: Result) -> dict[int, dict[str, Any]]:
    rows: dict[int, dict[str, Any]] = {}
    for row in _lines(archive, name):
        if row["id"] in rows:
            result.problem(f"{_row_name(chain, row)}: appears twice in the bundle")
        rows[row["id"]] = row
    return rows


def _check_link_rows(chain: str, link: dict[str, Any], rows: dict[int, dict[str, Any]], covered: set,
                     result: Result) -> None:
    where = f"{chain} link {link['sequence']}"
    digests = bytes.fromhex(link["digests"])
    if link_hash(chain, link["sequence"], link["previous"], link["ids"], digests) != link["link_hash"]:
        result.problem(f"{where}: its hash is not the hash of its ids and digests (the link was rewritten)")
    ids = list(decode_ids(link["ids"]))
    if len(digests) != 32 * len(ids):
        result.problem(f"{where}: holds {len(digests) // 32} digests for {len(ids)} rows")
    for index, pk in enumerate(ids):
        if pk in covered:
            result.problem(f"{where}: row #{pk} is linked twice")
        covered.add(pk)
        row = rows.get(pk)
        if row is None:
            result.problem(f"{where}: covers {chain.split('@', 1)[0]} #{pk}, which is missing from the bundle "
                           "(the row was deleted)")
            continue
        result.counts["rows"] += 1
        if row_digest(row["content"], row.get("seal", "")) != digests[index * 32:(index + 1) * 32]:
            result.problem(f"{_row_name(chain, row)}: its content or seal is not what {where} holds (the row was "
                           "changed, or another row's content put in its place)")


def _check_held(chain: str, hashes: dict[int, str], held: dict[int, tuple[str, str]], result: Result) -> None:
    first, last = (min(hashes), max(hashes)) if hashes else (0, 0)
    for held_sequence, (held_hash, where) in sorted(held.items()):
        result.counts["anchored heads"] += 1
        if held_sequence > last:
            result.problem(f"{chain}: your anchor ({where}) holds link {held_sequence}; the bundle ends at link "
                           f"{last} (the chain was cut short, or the bundle stops before your anchor)")
        elif held_sequence < first:
            result.notes.append(f"{chain}: your anchor ({where}) holds link {held_sequence}, before this bundle's "
                                f"first link ({first}): not checked here")
        elif hashes.get(held_sequence) != held_hash:
            result.problem(f"{chain} link {held_sequence}: its hash is not the one your anchor ({where}) holds: a row "
                           "at or before it was rewritten, reordered or deleted, and the chain made anew")


def check_chain(archive: zipfile.ZipFile, entry: dict[str, Any], held: dict[int, tuple[str, str]],
                result: Result) -> dict[int, dict[str, Any]]:
    """One chain: links, rows, anchored heads. The rows by id (the signatures' are read for the records)."""
    chain = entry["chain"]
    rows = _read_rows(archive, chain, entry["rows"], result)
    covered: set = set()
    previous: str | None = None
    sequence: int | None = None
    hashes: dict[int, str] = {}
    for link in _lines(archive, entry["links"]):
        result.counts["links"] += 1
        where = f"{chain} link {link['sequence']}"
        if sequence is not None and link["sequence"] != sequence + 1:
            result.problem(f"{where}: follows link {sequence}; links {sequence + 1}–{link['sequence'] - 1} are missing")
        if previous is not None and link["previous"] != previous:
            result.problem(f"{where}: does not follow the link before it (its previous hash is not that link's hash)")
        _check_link_rows(chain, link, rows, covered, result)
        hashes[link["sequence"]] = link["link_hash"]
        previous, sequence = link["link_hash"], link["sequence"]
    for pk in sorted(set(rows) - covered):
        result.problem(f"{_row_name(chain, rows[pk])}: is in the bundle but in none of its links (added)")
    _check_held(chain, hashes, held, result)
    return rows


def check_records(archive: zipfile.ZipFile, manifest: dict[str, Any], signatures: dict[int, dict[str, Any]],
                  result: Result) -> None:
    types = {int(k): v for k, v in manifest.get("content_types", {}).items()}
    for name in manifest.get("records", []):
        for record in _lines(archive, name):
            result.counts["records"] += 1
            label = f"{record['model']} #{record['id']}"
            content_hash = hashlib.sha256(canonical(record["content"])).hexdigest()
            for signature_id in record.get("signatures", []):
                result.counts["signatures"] += 1
                row = signatures.get(signature_id)
                if row is None:
                    result.problem(f"{label}: its signature #{signature_id} is not a row of the signatures' chain in "
                                   "this bundle (a signature no link vouches for)")
                    continue
                content = row["content"]
                signed = f"{types.get(content.get('content_type_id'), '?')} #{content.get('object_id')}"
                if signed != label:
                    result.problem(f"{label}: its signature #{signature_id} signs {signed}, another record")
                elif content.get("content_hash") != content_hash:
                    result.problem(f"{label}: its content does not match its '{content.get('slot')}' signature by "
                                   f"{content.get('printed_name')} (the record was changed after it was signed)")


def read_anchors(paths: list[str]) -> dict[str, dict[int, tuple[str, str]]]:
    held: dict[str, dict[int, tuple[str, str]]] = defaultdict(dict)
    for path in paths:
        text = Path(path).read_text(encoding="utf-8").strip()
        try:
            parsed = json.loads(text)
            documents = parsed if isinstance(parsed, list) else [parsed]
        except json.JSONDecodeError:
            documents = [json.loads(line) for line in text.splitlines() if line.strip()]
        for document in documents:
            where = f"anchor {document.get('anchor', '?')} of {str(document.get('made_at', '?'))[:16]}"
            for chain, sequence, head in document.get("heads", []):
                held[chain][int(sequence)] = (head, where)
    return held


def verify(bundle: str, anchor_paths: list[str]) -> Result:
    result = Result()
    with zipfile.ZipFile(bundle) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        if manifest.get("format") != FORMAT:
            raise ValueError(f"not an evidence bundle of this system (format {manifest.get('format')!r})")
        check_files(archive, manifest, result)
        if anchor_paths:
            held = read_anchors(anchor_paths)
        else:
            result.notes.append("No anchors given: the bundle's own anchors.json was used, which proves only that the "
                                "bundle agrees with itself. Give the anchors e-mailed to you with --anchors.")
            held = defaultdict(dict)
            for document in json.loads(archive.read("anchors.json")):
                for chain, sequence, head in document.get("heads", []):
                    held[chain][int(sequence)] = (head, f"anchor {document.get('anchor')} in the bundle")
        signatures: dict[int, dict[str, Any]] = {}
        for entry in manifest.get("chains", []):
            result.counts["chains"] += 1
            rows = check_chain(archive, entry, held.get(entry["chain"], {}), result)
            if entry["chain"].startswith("compliance.Signature@"):
                signatures.update(rows)
        check_records(archive, manifest, signatures, result)
        result.notes.extend(manifest.get("notes", []))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Verify an evidence bundle against the chain heads you hold.")
    parser.add_argument("bundle", help="the evidence bundle (.zip)")
    parser.add_argument("--anchors", action="append", default=[], metavar="FILE",
                        help="an anchor file e-mailed to you (JSON); repeatable")
    arguments = parser.parse_args(argv)
    try:
        result = verify(arguments.bundle, arguments.anchors)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        print(f"cannot read the bundle: {error}", file=sys.stderr)
        return 2
    counts = ", ".join(f"{count:,} {what}" for what, count in sorted(result.counts.items()))
    print(f"Checked {counts}.")
    for note in result.notes:
        print(f"NOTE: {note}")
    for problem in result.problems:
        print(f"MISMATCH: {problem}")
    print("VERIFIED: every check holds." if not result.problems else f"NOT VERIFIED: {len(result.problems)} mismatch(es).")
    return 0 if not result.problems else 1


if __name__ == "__main__":
    sys.exit(main())
