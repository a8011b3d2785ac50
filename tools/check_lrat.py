#!/usr/bin/env python3
"""A small LRAT checker (RUP steps and deletions), independent of nqueens' Rust code, for
CI, where the C checkers (lrat-check, cake_lpr) cannot be fetched: it verifies that every
added clause follows from earlier ones by unit propagation through exactly the hints it
names, and that the proof derives the empty clause.

    tools/check_lrat.py cert.cnf cert.lrat      # prints "s VERIFIED", exit 0; else exit 1

Reads text LRAT and binary LRAT (`--proof lrat-binary`; told apart by the first byte, as
lrat-trim tells them: 'a' or 'd' is binary).

Stricter than lrat-check where the format leaves room: a hint that is neither unit nor
falsified (a satisfied or open clause) fails the step; clause numbers must increase and
stay above the CNF's; a RAT step (negative hints) is not supported and fails; the empty
clause must be the last step; a binary number must be written in its fewest bytes. Speed: about
a million hints a second, enough for proofs of up to a few hundred thousand lemmas.
"""

import re
import sys

# Numbers as DIMACS writes them: C checkers read "08" as octal or "-08" as two numbers, so
# a token Python would read otherwise than they do is refused rather than guessed at.
CANONICAL = re.compile(rb"-?(0|[1-9][0-9]*)\Z")

# No line of a CNF or a text proof of nqueens comes near this; a longer one (a file of
# zeros, a device) is refused rather than read into memory.
MAX_LINE = 1 << 24


def shown(word):
    """A token for a message: its first 40 bytes."""
    text = word[:40].decode(errors="replace")
    return repr(text + ("..." if len(word) > 40 else ""))


def tokens(f, path):
    """The lines of an open text file but comments, as lists of tokens, with their numbers."""
    number = 0
    while True:
        line = f.readline(MAX_LINE + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE:
            raise ValueError(f"{path}:{number}: a line of more than {MAX_LINE} bytes")
        if line.startswith(b"c"):
            continue
        words = line.split()
        start = 2 if words[:1] == [b"p"] else 0
        for w in words[start:]:
            if w != b"d" and not CANONICAL.match(w):
                raise ValueError(f"{path}:{number}: {shown(w)} is not a number as DIMACS writes it")
        yield number, words


def read_cnf(path):
    clauses, expected = {}, None
    current = []
    with open(path, "rb") as f:
        for _, words in tokens(f, path):
            if not words:
                continue
            if words[0] == b"p":
                if len(words) != 4 or words[1] != b"cnf":
                    raise ValueError(f"{path}: bad header")
                expected = int(words[3])
                continue
            for w in words:
                lit = int(w)
                if lit == 0:
                    clauses[len(clauses) + 1] = current
                    current = []
                else:
                    current.append(lit)
    if expected is None or expected != len(clauses) or current:
        raise ValueError(f"{path}: header says {expected} clauses, read {len(clauses)}")
    return clauses


def text_steps(f, path):
    """The steps of a text proof: (where, ident or None for a deletion, numbers)."""
    for number, words in tokens(f, path):
        if not words:
            continue
        if len(words) > 1 and words[1] == b"d":
            yield f"{path}:{number}", None, [int(w) for w in words[2:]]
        else:
            yield f"{path}:{number}", int(words[0]), [int(w) for w in words[1:]]


def binary_steps(f, path):
    """The steps of a binary proof: a byte 'a' (an addition: its number, its literals, 0,
    its hints, 0) or 'd' (deletions: numbers, 0); each number 2|x| + (x < 0), seven bits a
    byte, lowest first, the high bit on all but the last. `where` is the step's offset.
    Only the shortest writing of a number is taken, and no negative zero: lrat-trim reads
    no other."""
    buf, pos, offset = b"", 0, 0

    def byte():
        nonlocal buf, pos, offset
        if pos == len(buf):
            offset += len(buf)
            buf, pos = f.read(1 << 16), 0
            if not buf:
                return None
        pos += 1
        return buf[pos - 1]

    def number(where):
        u, shift, b = 0, 0, 128
        while b >= 128:
            b = byte()
            if b is None:
                raise ValueError(f"{where}: ends inside a number")
            if shift > 63:
                raise ValueError(f"{where}: a number of more than 64 bits")
            u |= (b & 127) << shift
            shift += 7
        if b == 0 and shift > 7:
            raise ValueError(f"{where}: a number written in more bytes than it needs")
        if u == 1:
            raise ValueError(f"{where}: a negative zero")
        return -(u >> 1) if u & 1 else u >> 1

    def until_zero(where, count):
        nums, zeros = [], 0
        while zeros < count:
            v = number(where)
            nums.append(v)
            zeros += v == 0
        return nums

    while True:
        start = offset + pos
        tag = byte()
        if tag is None:
            return
        where = f"{path}:@{start}"
        if tag == ord("a"):
            ident = number(where)
            if ident <= 0:
                raise ValueError(f"{where}: clause number {ident}")
            yield where, ident, until_zero(where, 2)
        elif tag == ord("d"):
            yield where, None, until_zero(where, 1)
        else:
            raise ValueError(f"{where}: byte {tag:#04x} is neither 'a' nor 'd'")


def steps(f, path):
    """The proof's steps, from the file `f` opened once (a pipe is read once): binary when
    its first byte is 'a' or 'd', as lrat-trim tells them apart, else text."""
    first = f.peek(1)[:1]
    return binary_steps(f, path) if first in (b"a", b"d") else text_steps(f, path)


def check(cnf_path, proof_path):
    clauses = read_cnf(cnf_path)
    with open(proof_path, "rb") as f:
        return check_steps(clauses, steps(f, proof_path), proof_path)


def check_steps(clauses, proof, proof_path):
    last = len(clauses)
    for where, ident, nums in proof:
        if ident is None:
            ids = nums
            if not ids or ids[-1] != 0:
                return f"{where}: deletion not ended by 0"
            for i in ids[:-1]:
                if clauses.pop(i, None) is None:
                    return f"{where}: deletes clause {i}, which is not live"
            continue
        try:
            z = nums.index(0)
        except ValueError:
            return f"{where}: clause not ended by 0"
        lits, hints = nums[:z], nums[z + 1 :]
        if not hints or hints[-1] != 0:
            return f"{where}: hints not ended by 0"
        hints = hints[:-1]
        if ident <= last:
            return f"{where}: clause number {ident} does not increase (last {last})"
        true = {-l for l in lits}
        conflict = False
        for h in hints:
            if h <= 0:
                return f"{where}: hint {h}: RAT steps are not supported"
            clause = clauses.get(h)
            if clause is None:
                return f"{where}: hint {h} is no live clause"
            if any(l in true for l in clause):
                return f"{where}: hint {h} is satisfied"
            open_ = [l for l in clause if -l not in true]
            if not open_:
                conflict = True
                break
            if len(open_) > 1:
                return f"{where}: hint {h} has {len(open_)} unassigned literals"
            true.add(open_[0])
        if not conflict:
            return f"{where}: the hints give no conflict"
        clauses[ident] = lits
        last = ident
        if not lits:
            # The empty clause ends the proof: anything after it is no proof of nqueens'.
            for where, _, _ in proof:
                return f"{where}: a step after the empty clause"
            return None
    return f"{proof_path}: no empty clause"


def main():
    if len(sys.argv) != 3:
        print("usage: tools/check_lrat.py CNF LRAT", file=sys.stderr)
        return 2
    try:
        failure = check(sys.argv[1], sys.argv[2])
    except (OSError, ValueError, MemoryError) as e:
        failure = str(e)
    if failure:
        print(f"c {failure}")
        print("s NOT VERIFIED")
        return 1
    print("s VERIFIED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
