#!/usr/bin/env python3
"""Checks the proof beside a certificate of `nqueens complete --certificate CERT.json`,
whole or split into parts, each piece with tools/check_proof.sh (a checker independent of
nqueens: rate for DRAT; lrat-trim, lrat-check or tools/check_lrat.py for LRAT, as
check_proof.sh chooses), as many pieces at once as --jobs says.

A split proof (cube and conquer, formats/certificate.md) is checked piece by piece, each
against the CNF with the clauses it assumes added after the CNF's own: a part, its cube's
variables as unit clauses; the top, one clause per part, "not all of its cube", part by
part. Every piece VERIFIED means the CNF is unsatisfiable: each part shows that its cube
is impossible, and the top that the CNF has no model that avoids every cube. This script
writes the added clauses from the document's cubes itself, the same list for the top and
the parts, so the conclusion does not depend on the cubes being the search's.

    tools/check_pieces.py CERT.json [--jobs N] [--cnf FILE]

The CNF the document names, beside it, must be the one it was written with: its bytes'
SHA-256 and its header's counts are the document's (`cnf.sha256`, `cnf.variables`,
`cnf.clauses`), or the check is refused (exit 2). --cnf: another CNF to check against
instead, its counts the document's (tools/confirm_certificate.py passes its own writing of
the board's).

A document of one shard of the pieces (`complete --proof-shard I/S`) is refused (exit 2):
its pieces alone prove nothing. --shard checks the pieces it names (`proof.shard.written`,
which must be exactly the shard's pieces, in order), and prints `s SHARD I/S VERIFIED`
when every one is; tools/prove_in_shards.py checks every shard so, in turn. Prints one line per piece that
fails and a summary; exit 0 when every piece is VERIFIED, 1 when one is not, 2 for bad
arguments or files.
"""

import argparse
import hashlib
import json
import os
import pathlib
import re
import stat
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = pathlib.Path(__file__).resolve().parent


class Refused(Exception):
    """A document or file this script cannot check (exit 2)."""


class NotAFile(Refused):
    """A file the document names is missing, or is no regular file."""


class OneShard(NotAFile):
    """A document of one shard of the pieces, checked as if it held them all."""


def regular(path):
    """`path`, refused unless it is a regular file (links followed): a pipe would block a
    reader, a directory cannot be read."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError) as e:
        raise Refused(f"{path}: {getattr(e, 'strerror', None) or e}")
    if not stat.S_ISREG(mode):
        raise Refused(f"{path}: not a regular file")
    return path


def load_json(path):
    """The JSON document at `path` (a regular file), or Refused."""
    try:
        return json.loads(regular(path).read_text())
    except (OSError, ValueError, RecursionError) as e:
        raise Refused(f"{path}: not a JSON document: {str(e)[:200]}")


def beside(cert, name):
    """A file the certificate names: beside the certificate's name (where nqueens writes
    it: `link/..` as the system resolves it, never shortened as text), else beside the
    file the name leads to (a link to a document elsewhere), else as written, relative to
    the working directory."""
    p = pathlib.Path(name)
    try:
        for near in (cert.parent / p.name, pathlib.Path(os.path.realpath(cert)).parent / p.name):
            if near.exists():
                return near
        return p
    except (OSError, ValueError):
        # A name no file can have (too long, a NUL byte): the check of the file says so.
        return p


def same_file(a, b):
    """Whether the paths `a` and `b` name one file (links followed)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def pieces(doc, cert, variables, shard=False):
    """The proof's pieces as (label, proof file, clauses added to the CNF), from the
    certificate's document `doc` at `cert`; cubes must name cell variables of a CNF of
    `variables` variables, and every file must be a regular file. A document of one shard
    (`proof.shard`) is refused unless `shard`, and then gives the pieces it wrote."""
    proof = doc.get("proof") if isinstance(doc, dict) else None
    if not isinstance(proof, dict):
        raise Refused(f"{cert}: the certificate has no proof record")
    if not isinstance(proof.get("file"), str):
        raise Refused(f"{cert}: the certificate has no proof: {proof.get('missing', 'no proof file named')}")
    parts = proof.get("parts")
    if parts is None:
        out = [("proof", beside(cert, proof["file"]), [])]
    else:
        if not isinstance(parts, list) or not parts:
            raise Refused(f"{cert}: \"parts\" is not a list of parts")
        cubes = []
        for k, part in enumerate(parts, 1):
            cube = part.get("cube") if isinstance(part, dict) else None
            if (
                not isinstance(part.get("file") if isinstance(part, dict) else None, str)
                or not isinstance(cube, list)
                or not all(type(v) is int and 1 <= v <= variables for v in cube)
            ):
                raise Refused(f"{cert}: part {k} is not a file and a cube of variables 1..{variables}")
            cubes.append(cube)
        top = [[-v for v in cube] for cube in cubes]
        out = [("top", beside(cert, proof["file"]), top)]
        for k, (part, cube) in enumerate(zip(parts, cubes), 1):
            out.append((f"part {k}", beside(cert, part["file"]), [[v] for v in cube]))
    named = [proof["file"]] + [part["file"] for part in parts or []]
    return with_files(shard_of(proof, cert, out, named, shard))


def shard_of(proof, cert, listed, named, asked):
    """The pieces of `listed` (every piece of the proof, as `pieces` lists them; `named`:
    their files as the document names them) that the document's shard wrote, refused
    unless each is a piece of that shard, named once, or unless the caller `asked` for a
    shard."""
    shard = proof.get("shard")
    if shard is None:
        # A document of every piece checks as its own one shard.
        return listed
    ok = (
        isinstance(shard, dict)
        and all(type(shard.get(k)) is int for k in ("index", "of", "pieces"))
        and 0 <= shard["index"] < shard["of"]
        and shard["pieces"] == len(listed)
        and isinstance(shard.get("written"), list)
    )
    if not ok:
        raise Refused(f"{cert}: \"shard\" is not a shard of the document's {len(listed)} pieces")
    index, of = shard["index"], shard["of"]
    if not asked:
        raise OneShard(
            f"{cert}: the document holds shard {index}/{of} of its proof ({len(shard['written'])} of "
            f"{len(listed)} pieces): they prove nothing alone; tools/prove_in_shards.py checks every "
            "shard, and tools/check_pieces.py --shard this one's pieces"
        )
    # Exactly the shard's pieces, in order: a list that leaves one out would let a shard
    # pass unchecked, and one of another shard's would be checked twice.
    mine = [k for k in range(len(listed)) if k % of == index]
    if shard["written"] != [named[k] for k in mine]:
        raise Refused(
            f"{cert}: shard {index}/{of} does not name exactly its pieces ({len(mine)}: "
            f"{', '.join(str(named[k]) for k in mine[:3])}{' ...' if len(mine) > 3 else ''})"
        )
    return [listed[k] for k in mine]


def with_files(listed):
    """`listed`, refused if a piece's file is missing or is no regular file."""
    bad = []
    for _, path, _ in listed:
        try:
            regular(path)
        except Refused:
            bad.append(str(path))
    if bad:
        raise NotAFile(f"proof files missing, or not regular files: {', '.join(bad[:3])}" + (" ..." if len(bad) > 3 else ""))
    return listed


def cnf_header(path):
    """The variables and clauses a DIMACS file's header states, and the byte offset of the
    line after it."""
    with open(path, "rb") as f:
        offset = 0
        for line in f:
            offset += len(line)
            if line.startswith(b"c"):
                continue
            words = line.split()
            if len(words) == 4 and words[:2] == [b"p", b"cnf"] and all(re.fullmatch(rb"0|[1-9][0-9]*", w) for w in words[2:]):
                return int(words[2]), int(words[3]), offset
            break
    raise Refused(f"{path}: no DIMACS header (p cnf VARIABLES CLAUSES) before the clauses")


def this_documents_cnf(doc, cert, cnf, copy, hashed=True):
    """Copies `cnf` to `copy`, which the checkers then read (a file replaced after this
    check is not the one checked), and refuses it unless it is the CNF the document `doc`
    at `cert` was written with: its bytes' SHA-256 (unless not `hashed`: a CNF the caller
    gave) and its header's counts as the document's "cnf" record says. A run with another
    document of the same set of files (cert.txt beside cert.json) replaces the CNF and the
    proof and leaves this document, whose board they are not. Returns the CNF's
    variables."""
    h = hashlib.sha256()
    with open(cnf, "rb") as src, open(copy, "wb") as out:
        while chunk := src.read(1 << 20):
            h.update(chunk)
            out.write(chunk)
    variables, clauses, _ = cnf_header(copy)
    counts = (doc["cnf"].get("variables"), doc["cnf"].get("clauses"))
    if counts != (variables, clauses):
        raise Refused(
            f"{cnf}: {variables} variables and {clauses} clauses, where {cert} says {counts[0]} "
            f"and {counts[1]}: not this document's CNF (another run over the same set of files?)"
        )
    if not hashed:
        return variables
    said = doc["cnf"].get("sha256")
    if not (isinstance(said, str) and re.fullmatch(r"[0-9a-f]{64}", said)):
        raise Refused(
            f"{cert}: its \"cnf\" record gives no SHA-256 of the CNF (written by an earlier nqueens?): "
            "tools/confirm_certificate.py checks it from the board instead"
        )
    if h.hexdigest() != said:
        raise Refused(
            f"{cnf}: its SHA-256 is not the one {cert} gives: not this document's CNF (another "
            "run over the same set of files?)"
        )
    return variables


def write_cnf(dest, cnf, added):
    """Writes `cnf` (a DIMACS file) to `dest` with the clauses `added` after its own."""
    variables, clauses, offset = cnf_header(cnf)
    with open(cnf, "rb") as src, open(dest, "wb") as out:
        out.write(f"p cnf {variables} {clauses + len(added)}\n".encode())
        src.seek(offset)
        while chunk := src.read(1 << 20):
            out.write(chunk)
        for c in added:
            out.write((" ".join(map(str, c + [0])) + "\n").encode())


def check(cnf, listed, jobs, checker=None):
    """Checks each piece of `listed` (from `pieces`) against `cnf` with its clauses added,
    `jobs` at once, largest first: by tools/check_proof.sh (the checker it chooses), or by
    the program `checker` (a list: the program and its options, run with the CNF and the
    proof, VERIFIED when it prints `s VERIFIED` or `c VERIFIED` and exits 0 or 20).
    Returns (label, verified, seconds, reason) per piece, in the order listed, and the
    wall time."""
    with tempfile.TemporaryDirectory(prefix="nqueens-pieces-") as tmp:
        tasks = []
        for k, (label, proof, added) in enumerate(listed):
            own = cnf
            if added:
                own = pathlib.Path(tmp) / f"piece{k}.cnf"
                write_cnf(own, cnf, added)
            tasks.append((label, proof, own))

        def run(task):
            label, proof, own = task
            t = time.perf_counter()
            argv = (checker or [str(HERE / "check_proof.sh")]) + [str(own), str(proof)]
            try:
                # A checker may echo a path that is no UTF-8 (the certificate's directory).
                out = subprocess.run(argv, capture_output=True, text=True, errors="replace")
            except OSError as e:
                return label, False, time.perf_counter() - t, f"{argv[0]}: {e.strerror}", True
            said = [l.strip() for l in out.stdout.splitlines()]
            if checker:
                ok = out.returncode in (0, 20) and any(l in ("s VERIFIED", "c VERIFIED") for l in said)
            else:
                ok = out.returncode == 0
            # The reason: the checker's last word, not check_proof.sh's note of which it ran.
            lines = [
                l for l in (out.stderr + out.stdout).splitlines()
                if l.strip() and not l.startswith("tools/check_proof.sh: checking with")
            ]
            # check_proof.sh exits 2 when it cannot check (no checker it can run, a proof
            # its checker does not read), 1 for a proof NOT VERIFIED.
            cannot = not checker and out.returncode == 2
            return label, ok, time.perf_counter() - t, lines[-1] if lines else f"exit {out.returncode}", cannot

        def size(task):
            try:
                return os.path.getsize(task[1])
            except OSError:
                return 0

        order = sorted(range(len(tasks)), key=lambda k: -size(tasks[k]))
        start = time.perf_counter()
        with ThreadPoolExecutor(max(1, jobs)) as pool:
            done = dict(zip(order, pool.map(run, [tasks[k] for k in order])))
        return [done[k] for k in range(len(tasks))], time.perf_counter() - start


def interruptible(main, name):
    """Runs `main`, ending with one line and exit 130 on Ctrl-C, SIGTERM or SIGHUP (the
    temporary files removed on the way out), not a traceback."""
    import signal

    def stop(signum, _frame):
        raise KeyboardInterrupt

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    try:
        main()
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        # The reader of the output left (`| head -1`): the verdict reached no one.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"{name}: standard output closed", file=sys.stderr)
        sys.exit(2)


def jobs_arg(text):
    """A number of pieces at once: a whole number from 1."""
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1, not {text!r}")
    return jobs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("certificate", type=pathlib.Path)
    ap.add_argument("--jobs", type=jobs_arg, default=os.cpu_count() or 1, help="pieces checked at once (default: the cores)")
    ap.add_argument("--cnf", type=pathlib.Path, help="the CNF (default: the document's, beside it)")
    ap.add_argument("--shard", action="store_true", help="check the pieces of the document's shard (complete --proof-shard)")
    a = ap.parse_args()
    if not isinstance(a.jobs, int):
        ap.error("argument --jobs: expected a whole number from 1")
    try:
        doc = load_json(a.certificate)
        if not isinstance(doc, dict) or not isinstance(doc.get("cnf"), dict) or not isinstance(doc["cnf"].get("file"), str):
            raise Refused(f"{a.certificate}: not a certificate of nqueens (no \"cnf\" record naming a file)")
        own = beside(a.certificate, doc["cnf"]["file"])
        cnf = regular(a.cnf or own)
        # The document's own CNF is checked by its hash however it is named.
        hashed = a.cnf is None or same_file(a.cnf, own)
        with tempfile.TemporaryDirectory(prefix="nqueens-cnf-") as tmp:
            copy = pathlib.Path(tmp) / "checked.cnf"
            variables = this_documents_cnf(doc, a.certificate, cnf, copy, hashed)
            listed = pieces(doc, a.certificate, variables, a.shard)
            if not listed:
                # A shard may hold no piece (more shards than pieces).
                print(f"{a.certificate}: no piece in this shard")
                print(verdict(doc, True))
                sys.exit(0)
            results, wall = check(copy, listed, a.jobs)
    except (OSError, ValueError, Refused) as e:
        print(f"check_pieces: {e}", file=sys.stderr)
        sys.exit(2)
    # A checker that could not run (none installed, a proof it does not read) is no
    # verdict on the proof.
    broken = [r for r in results if r[4]]
    if broken:
        for label, _, _, reason, _ in broken[:3]:
            print(f"check_pieces: {label}: not checked: {reason}", file=sys.stderr)
        sys.exit(2)
    failed = [r for r in results if not r[1]]
    for label, _, _, reason, _ in failed:
        print(f"{label}: NOT VERIFIED: {reason}")
    cpu = sum(r[2] for r in results)
    print(
        f"{a.certificate}: {len(results)} piece{'s' if len(results) != 1 else ''}, "
        f"{len(results) - len(failed)} VERIFIED, {a.jobs} at once: {wall:.2f} s "
        f"(checkers' own {cpu:.2f} s, the longest piece {max(r[2] for r in results):.2f} s)"
    )
    print(verdict(doc, not failed))
    sys.exit(0 if not failed else 1)


def verdict(doc, verified):
    """The last line: whether the proof, or the document's shard of it, is VERIFIED."""
    shard = doc["proof"].get("shard")
    what = f"s SHARD {shard['index']}/{shard['of']}" if isinstance(shard, dict) else "s"
    return f"{what} VERIFIED" if verified else f"{what} NOT VERIFIED"


if __name__ == "__main__":
    interruptible(main, "check_pieces")
