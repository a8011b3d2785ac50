#!/usr/bin/env python3
"""Writes and checks the proof of an INFEASIBLE answer a shard at a time, so that a proof
larger than the disk is checked whole: one run of `nqueens complete INPUT --certificate
CERT.json --proof-shards-in-turn S` searches once and writes the S shards of the proof's
pieces one after another (formats/certificate.md, "A proof in shards"); this script checks
each shard's pieces as they come (tools/check_pieces.py --shard, or, with --board,
tools/confirm_certificate.py --shard, from the board alone), removes them, and gives the
run the go-ahead for the next (a line on its standard input). The disk then holds one
shard's pieces at a time.

Every shard must be of the same proof: the same CNF (its bytes' SHA-256), format, cubes and
pieces, which this script compares, and its document and pieces must be unchanged after
their check, whose verdict must be the shard's (another run writing the same certificate
meanwhile is caught, not counted); BOARD must be INPUT's board (compared with `nqueens
convert INPUT`'s). Every piece of the proof must have been checked in exactly one shard.
The last shard's document and the CNF stay, its pieces removed.

    tools/prove_in_shards.py INPUT CERT.json --shards S [--parts K] [--jobs N]
        [--nqueens PATH] [--board FILE [--lrat-check PATH]] [-- COMPLETE OPTIONS]

COMPLETE OPTIONS go to the `nqueens complete` run (`--proof lrat-binary --proof-limit
1e10 --threads 2`), except --certificate, --proof-parts, --proof-shard and
--proof-shards-in-turn, which this script sets. The checker is the one tools/check_proof.sh chooses (LRAT_CHECK="lrat-trim -S
--no-trim"). Prints a line per shard and a summary, then `s VERIFIED` when every piece of
every shard is. Exit 0: VERIFIED; 1: not (a piece NOT VERIFIED, the shards of different
proofs, no proof written, or an answer other than INFEASIBLE); 2: bad arguments or files,
or nqueens failed.
"""

import argparse
import hashlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import check_pieces  # noqa: E402

# Options of `complete` this script sets itself.
OWN = ("--certificate", "--proof-parts", "--proof-shard", "--proof-shards-in-turn", "--json")


# Options of `complete` that write a file, which may name standard output.
OUTPUTS = ("-o", "--output", "--trace", "--plot")

# Names of standard output (nqueens reads them as it does `-`).
STDOUT_NAMES = ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/proc/thread-self/fd/1")


def names_stdout(value):
    """Whether an output named `value` is standard output: `-`, a name of descriptor 1,
    or a path to the file this script's standard output is (a link to /dev/stdout)."""
    if value == "-" or "/" + os.path.normpath(value).lstrip("/") in STDOUT_NAMES:
        return True
    try:
        st, out = os.stat(value), os.fstat(1)
    except (OSError, ValueError):
        return False
    return (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)


def output_values(extra):
    """The (option, value) pairs of OUTPUTS among `complete`'s options `extra`, in each
    spelling (`--trace F`, `--trace=F`, `-oF`, `-o=F`), up to a `--`."""
    out = []
    k = 0
    while k < len(extra):
        opt = extra[k]
        if opt == "--":
            break
        if opt in OUTPUTS and k + 1 < len(extra):
            out.append((opt, extra[k + 1]))
            k += 2
            continue
        name, eq, value = opt.partition("=")
        if eq and name in OUTPUTS:
            out.append((name, value))
        elif (short := re.fullmatch(r"-q*o(.*)", opt, re.S)):
            # -o in a group of short flags (`-qo-`, `-qo FILE`): its value follows it.
            if short.group(1):
                out.append(("-o", short.group(1).removeprefix("=")))
            elif k + 1 < len(extra):
                out.append(("-o", extra[k + 1]))
                k += 1
        k += 1
    return out


def fail(code, why):
    print(f"prove_in_shards: {why}", file=sys.stderr)
    sys.exit(code)


def nqueens_path(given):
    if given:
        return given
    found = shutil.which("nqueens")
    if found:
        return found
    built = HERE.parent / "target" / "release" / "nqueens"
    if built.is_file():
        return str(built)
    fail(2, "no nqueens: give --nqueens PATH, put it on PATH, or build it (cargo build --release)")


def parts_arg(text):
    """--parts: auto, or a number of parts as --jobs takes one."""
    return text if text == "auto" else str(check_pieces.jobs_arg(text))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def which_proof(doc, cert):
    """What must be equal in every shard's document: the CNF's hash, the format, the
    pieces and the cubes."""
    cnf = check_pieces.regular(check_pieces.beside(cert, doc["cnf"]["file"]))
    proof = doc["proof"]
    parts = proof.get("parts") or []
    cubes = [p.get("cube") if isinstance(p, dict) else None for p in parts]
    return sha256(cnf), proof.get("format"), len(parts) + 1, cubes


def written_pieces(doc, cert):
    """The pieces (0: top or whole; k: part k) this document's shard wrote, and their files,
    beside the document (where nqueens writes them: never a file of the same name
    elsewhere)."""
    proof = doc["proof"]
    named = [proof["file"]] + [p["file"] for p in proof.get("parts") or []]
    shard = proof.get("shard")
    # One shard of one: the document names every piece, and all were written.
    names = shard["written"] if isinstance(shard, dict) else named
    out = []
    for name in names:
        path = cert.parent / pathlib.PurePath(name).name
        check_pieces.regular(path)
        out.append((named.index(name), path))
    return out


def board_of(nq, given):
    """The board nqueens completes for the input `given` (its own rows for a board, the
    reduced board for an Excluded Diagonals file), as confirm_certificate.py reads a board."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="nqueens-shards-") as tmp:
        out = pathlib.Path(tmp) / "board.txt"
        run = subprocess.run([nq, "convert", os.path.abspath(given), str(out)], capture_output=True, text=True, errors="replace")
        if run.returncode != 0:
            fail(2, f"{given}: nqueens convert failed: {(run.stdout + run.stderr).strip()[-300:]}")
        return [int(v) for v in out.read_text().split()]


def stamp(paths):
    """What must not change while a shard is checked: each file's inode, size and time."""
    out = []
    for p in paths:
        st = os.stat(p)
        out.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return out


def child(cmd):
    """Runs `cmd` in a process group of its own, output captured; a signal to this script
    stops the group (nqueens then writes nothing) and is raised as KeyboardInterrupt."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    try:
        out, err = p.communicate()
    except BaseException:
        stop_group(p)
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def stop_group(p):
    """Stops the process group of `p` (started with a session of its own) and waits."""
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except OSError:
        pass
    p.wait()


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1 :]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", help="the composition or instance nqueens completes")
    ap.add_argument("certificate", help="the certificate's document (.json)")
    ap.add_argument("--shards", type=check_pieces.jobs_arg, required=True, help="shards S: each holds about 1/S of the proof")
    ap.add_argument("--parts", type=parts_arg, default="auto", help="--proof-parts of the run (default auto)")
    ap.add_argument("--jobs", type=check_pieces.jobs_arg, default=os.cpu_count() or 1, help="pieces checked at once")
    ap.add_argument("--nqueens", help="the nqueens binary (default: on PATH, else target/release/nqueens)")
    ap.add_argument("--board", help="confirm each shard from this board, INPUT's (tools/confirm_certificate.py)")
    ap.add_argument("--lrat-check", help="with --board: the LRAT checker confirm_certificate.py runs (lrat-trim)")
    a = ap.parse_args(argv)
    for opt in extra:
        if opt.split("=", 1)[0] in OWN:
            fail(2, f"{opt.split('=', 1)[0]} is set by this script (--parts for --proof-parts)")
    for flag, value in output_values(extra):
        if names_stdout(value):
            fail(2, f"{flag} {value}: standard output carries nqueens' JSON record to this script: give a file")
    if a.input == "-":
        fail(2, "standard input carries nqueens' go-ahead between shards: give the input as a file, not -")
    if a.lrat_check and not a.board:
        fail(2, "--lrat-check is the checker of --board (confirm_certificate.py); without it, set LRAT_CHECK")
    if a.lrat_check and not (os.path.isfile(a.lrat_check) and os.access(a.lrat_check, os.X_OK)):
        fail(2, f"--lrat-check {a.lrat_check!r}: not a program this script can run")
    if not os.path.exists(a.input):
        fail(2, f"{a.input}: no such file")
    if not os.path.isfile(a.input):
        fail(2, f"{a.input}: not a regular file")
    nq = nqueens_path(a.nqueens)
    if a.board:
        # The board must be the input's: a check against another board proves nothing
        # about this one. Found now, not after the first shard's hours.
        import confirm_certificate

        try:
            mine = confirm_certificate.read_composition(check_pieces.regular(pathlib.Path(a.board)))
        except (OSError, ValueError, check_pieces.Refused) as e:
            fail(2, f"--board {a.board}: {str(e)[:300]} (a board as text or .npy: nqueens convert IN board.txt)")
        if mine != board_of(nq, a.input):
            fail(2, f"--board {a.board} is not the board of {a.input} (nqueens convert {a.input} board.txt writes it)")
    def stop(_signum, _frame):
        raise KeyboardInterrupt

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    try:
        prove(a, nq, extra)
    except KeyboardInterrupt:
        fail(130, f"interrupted; the pieces of the shard being written or checked may be left beside {a.certificate}")
    except BrokenPipeError:
        # The reader of the output left (`| head -1`): nqueens was stopped on the way out.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        fail(2, "standard output closed: stopped")


SHARD_LINE = re.compile(r"^nqueens: (.*): proof shard (\d+)/(\d+) written")


def prove(a, nq, extra):
    """One run of nqueens writes every shard in turn from one search
    (--proof-shards-in-turn): each written, checked, removed, then the go-ahead for the
    next; then the verdict."""
    first = None
    checked = {}
    total_bytes = largest = 0
    write_s = check_s = 0.0
    # Paths as given, whatever their first character: options take them after "=", and
    # the input comes after "--".
    cmd = [nq, "complete", f"--certificate={a.certificate}", f"--proof-parts={a.parts}",
           f"--proof-shards-in-turn={a.shards}", "--json"] + extra + ["--", a.input]
    try:
        run = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, errors="replace", start_new_session=True)
    except OSError as e:
        fail(2, f"{nq}: {e.strerror}")
    # Standard output holds the one JSON record at the end, read beside the shards so
    # that neither side waits on a full pipe.
    printed = []
    reader = threading.Thread(target=lambda: printed.append(run.stdout.read()), daemon=True)
    reader.start()
    said = []

    def ended(why):
        """nqueens ended before shard `why` was written: its answer or error says why."""
        run.wait()
        reader.join()
        out = (printed[0] if printed else "") + "\n".join(said)
        try:
            record = json.loads(printed[0])
            answer = record["answer"]
        except (IndexError, ValueError, KeyError, TypeError):
            fail(2, f"{why}: nqueens exited {run.returncode}: {out.strip()[-500:]}")
        if run.returncode != 3:
            fail(1 if run.returncode in (0, 4) else 2, f"the answer is {answer}, not infeasible: nothing to prove")
        proof = record.get("proof") or {}
        fail(1, f"{why}: no proof was written: {proof.get('missing') or out.strip()[-300:]}")

    try:
        t = time.perf_counter()
        for index in range(a.shards):
            # nqueens says each shard on standard error once its files are in place.
            while True:
                line = run.stderr.readline()
                if not line:
                    ended(f"shard {index}/{a.shards}")
                m = SHARD_LINE.match(line)
                if m and (int(m.group(2)), int(m.group(3))) == (index, a.shards):
                    break
                said.append(line.rstrip("\n"))
            wrote = time.perf_counter() - t
            # The document as nqueens named it, relative to the same working directory:
            # the name given, unless a pattern or a directory made it another (then as
            # nqueens printed it, the record at the end to agree). Never made absolute
            # here: the system resolves "link/.." otherwise than the text does.
            given = a.certificate
            cert = pathlib.Path(m.group(1) if "{" in given or os.path.isdir(given) else given)
            try:
                doc = check_pieces.load_json(cert)
                proof = doc["proof"]
                shard = proof.get("shard") if a.shards > 1 else {"index": 0, "of": 1}
                if not isinstance(shard, dict) or (shard.get("index"), shard.get("of")) != (index, a.shards):
                    fail(2, f"{cert}: not the document of shard {index}/{a.shards} (another process wrote it since?)")
                if not isinstance(proof.get("file"), str):
                    fail(1, f"shard {index}/{a.shards}: no proof was written: {proof.get('missing')}")
                this = which_proof(doc, cert)
                mine = written_pieces(doc, cert)
                before = stamp([p for _, p in mine])
            except (OSError, ValueError, KeyError, TypeError, check_pieces.Refused) as e:
                fail(2, f"{cert}: {e}")
            if first is None:
                first = this
            elif this != first:
                fail(1, f"shard {index}/{a.shards} is of another proof than shard 0 (its CNF, format, pieces or cubes differ)")
            size = sum(os.path.getsize(p) for _, p in mine)
            total_bytes += size
            largest = max(largest, size)
            t = time.perf_counter()
            if a.board:
                check = [sys.executable, str(HERE / "confirm_certificate.py"), os.path.abspath(a.board), str(cert)]
                check += ["--lrat-check", a.lrat_check] if a.lrat_check else []
            else:
                check = [sys.executable, str(HERE / "check_pieces.py"), str(cert)]
            out = child(check + ["--shard", "--jobs", str(a.jobs)])
            took = time.perf_counter() - t
            write_s += wrote
            check_s += took
            lines = [l for l in (out.stdout + out.stderr).splitlines() if l.strip()]
            print(
                f"shard {index}/{a.shards}: {len(mine)} piece{'s' if len(mine) != 1 else ''}, {size / 1e9:.2f} GB, "
                f"written in {wrote:.1f} s{' (the search included)' if index == 0 else ''}, checked in {took:.1f} s: "
                f"{lines[-1] if lines else f'exit {out.returncode}'}",
                flush=True,
            )
            # The document and pieces checked must be the ones written, unchanged since:
            # another process writing the same certificate meanwhile would have had its
            # own pieces checked (or removed ours), which says nothing of this proof.
            try:
                same = check_pieces.load_json(cert)["proof"] == proof and which_proof(doc, cert) == this and stamp([p for _, p in mine]) == before
            except (OSError, ValueError, KeyError, TypeError, check_pieces.Refused):
                same = False
            if not same:
                fail(2, f"shard {index}/{a.shards}: the certificate or its pieces changed during the check (another run writing {cert}?): not counted")
            if out.returncode != 0:
                print("\n".join(lines[-20:]))
                fail(1 if out.returncode == 1 else 2, f"shard {index}/{a.shards} is not VERIFIED; what is left of it stays")
            # The verdict must be this shard's: its own line (a document of every piece
            # ends in `s VERIFIED`, or, from the board, CONFIRMED).
            if "shard" in proof:
                ours = f"s SHARD {index}/{a.shards} VERIFIED" in lines
            else:
                ours = bool(lines) and (lines[-1] == "s VERIFIED" or (a.board and lines[-1].endswith("; CONFIRMED")))
            if not ours:
                fail(2, f"shard {index}/{a.shards}: the check did not end with this shard's verdict: {lines[-1] if lines else ''}")
            for k, path in mine:
                if k in checked:
                    fail(1, f"piece {k} is in shards {checked[k]} and {index}")
                checked[k] = index
                # The next shard's writing would remove them too (an earlier shard's
                # pieces beside the document go): now, so that the disk holds one shard
                # at a time.
                try:
                    os.remove(path)
                except FileNotFoundError:
                    fail(2, f"{path}: removed by another process during the run (another run writing {cert}?)")
            t = time.perf_counter()
            if index + 1 < a.shards:
                try:
                    run.stdin.write("\n")
                    run.stdin.flush()
                except BrokenPipeError:
                    ended(f"shard {index + 1}/{a.shards}")
        run.stdin.close()
        said.extend(l.rstrip("\n") for l in run.stderr)
        run.wait()
        reader.join()
    except BaseException:
        stop_group(run)
        raise
    try:
        record = json.loads(printed[0])
        search = record["stats"]["exact"]["seconds"]
        named = record.get("certificate_file") or ""
    except (IndexError, ValueError, KeyError, TypeError):
        fail(2, f"nqueens printed no single JSON record: {(printed[0] if printed else '').strip()[-300:]} {' '.join(said)[-300:]}")
    if run.returncode != 3 or not check_pieces.same_file(named, cert) or record.get("proof") != proof:
        fail(2, f"nqueens exited {run.returncode} after the last shard, its record naming {named}: {' '.join(said)[-300:]}")
    missing = sorted(set(range(first[2])) - set(checked))
    if missing:
        fail(1, f"pieces never written: {missing[:10]}")
    print(
        f"{a.input}: a proof of {first[2]} piece{'s' if first[2] != 1 else ''} in {a.shards} shard{'s' if a.shards != 1 else ''}, "
        f"{total_bytes / 1e9:.2f} GB (the largest shard {largest / 1e9:.2f} GB), written in {write_s:.1f} s "
        f"(one search of {search:.2f} s included), checked in {check_s:.1f} s ({check_s / max(search, 1e-3):.1f}x "
        f"the search), every piece VERIFIED"
    )
    print("s VERIFIED")


if __name__ == "__main__":
    main()
