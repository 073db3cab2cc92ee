#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails each of a writer's file-system calls in turn, then crashes it at each.

fault-sweep.py --label LABEL --template DIR [--check CMD] [--again-refused RE]
               [--mutable GLOB]... [--stdin FILE] [--also-names TEXT]
               [--may-survive RE] [--again-fails RE] -- COMMAND...

COMMAND runs in a fresh copy of DIR for every case, its input FILE or none. A first run under strace
counts the calls of the writer's own process (its threads included, the
programs it starts excluded) that change the file system: write and pwrite64
to a regular file, fsync, fdatasync, rename, renameat, renameat2, link,
linkat, mkdir, mkdirat, openat with O_CREAT, close of a file it wrote or
created, and ftruncate. Then, for each such call (every one, or where a
command makes more than 150 of one kind the first 50, every 37th and the
last 50; EV_FAULT_EDGE changes 50):

  error  strace fails that call (EIO, ENOSPC, EDQUOT in turn): the command
         exits 1 or 2 naming the call's error, and leaves in place nothing
         that was not there (every file of DIR as it was, outside the
         --mutable paths; a new temporary only where its message names it,
         a new receipt only whole and saying fail);
  crash  strace delivers SIGKILL as the call is entered: every new file
         in place is whole (JSON parses; a receipt's outputs have their
         digests);
  short  for each file it writes, RLIMIT_FSIZE at half its size (SIGXFSZ
         ignored): a genuine short write, then EFBIG, judged as an error;

(--also-names: TEXT stands for the error's name, where a library keeps
only its own word for it; --may-survive: a fault of a call whose
description matches RE may leave the command passing, as SQLite's WAL
checkpoint into the database file does, the check judging what is left),
and after each, the same command without a fault exits 0 (or 2 with
--again-refused's message, where the crash left the output whole in place;
or 1 with --again-fails's, where the fault is kept as a failure, as a run
of capture's is never retried). The error may be named on stdout, where a
writer reports a failure it kept (capture's failed run).
CMD (sh -c, in the copy) then judges what only the writer knows, with
FAULT_MODE (error, crash, short or again), FAULT_RC and FAULT_ERR (the
stderr file) set. strace counts an injection's calls per process: a call
of the main thread is faulted with nothing else traced; one of another
thread with every process followed, so a thread or child making as many
calls of that kind is faulted with it. Each case checks, in the
injection's own strace log, that the call struck is the one meant (its
file the same, temporaries' suffixes aside): where threads share work, a
call's number may move between runs, and the case is run again, up to
four times, then counted in its row, not judged (EV_FAULT_DEBUG=FILE
appends what was meant and what was struck) (a helper SIGKILLed first, the
writer may then exit 1 or 2 instead; where the dynamic loader's call of
that number fails first, the writer never ran: the row counts it, not
judged).
Prints one table row per call kind; exits 1 at the first case not held.
"""
import argparse
import collections
import fnmatch
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys

CALLS = ["write", "pwrite64", "fsync", "fdatasync", "rename", "renameat", "renameat2",
         "link", "linkat", "mkdir", "mkdirat", "openat", "close", "ftruncate"]
ERRORS = [("EIO", "Input/output error"), ("ENOSPC", "No space left on device"),
          ("EDQUOT", "Disk quota exceeded")]
LINE = re.compile(r"^(\d+) +(\w+)\((.*)$")
FD = re.compile(r"^(-?\d+)<([^>]*)>")
FD_CALLS = ("write", "pwrite64", "fsync", "fdatasync", "close", "ftruncate")


def key(name, rest):
    """What a call acts on, the same in every run: its file (the paths and
    names in its arguments), with temporaries' random suffixes, times and
    process ids made alike. Two runs' calls with one key are the same call."""
    if name in FD_CALLS:
        m = FD.match(rest)
        target = m.group(2) if m else ""
    else:
        args = rest.split(") = ")[0]
        target = " ".join(a or b for a, b in re.findall(r'<([^>]*)>|"((?:[^"\\]|\\.)*)"', args))
    target = re.sub(r"\.tmp-[A-Za-z0-9]+", ".tmp-X", target)
    return name + " " + re.sub(r"\d{4,}", "N", target)


def struck(log, name, mode):
    """The keys of the calls an injection struck, from its strace log."""
    keys = set()
    for line in open(log, errors="replace"):
        m = re.match(r"^(?:\d+ +)?(\w+)\((.*)$", line)
        if not m or m.group(1) != name:
            continue
        rest = m.group(2).rstrip()
        if (mode == "error" and rest.endswith("(INJECTED)")) or \
                (mode == "crash" and (rest.endswith("= ?") or "<unfinished ...>" in rest)):
            keys.add(key(name, rest))
    return keys


def parse_trace(path):
    """The calls of the first process and its threads, numbered per call as strace counts."""
    own, seen, calls, count, first = set(), False, [], {}, None
    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if not m:
            continue
        pid, name, rest = int(m.group(1)), m.group(2), m.group(3)
        if not seen:
            own.add(pid)
            seen, first = True, pid
        if pid not in own:
            continue
        if name == "execve" and calls:
            own.discard(pid)  # a child that became another program
            continue
        if name in ("clone", "clone3") and "CLONE_THREAD" in rest:
            r = re.search(r"= (\d+)\s*$", line)
            if r:
                own.add(int(r.group(1)))
            continue
        if name not in CALLS:
            continue
        count[(pid, name)] = count.get((pid, name), 0) + 1
        fd = FD.match(rest)
        calls.append({"pid": pid, "main": pid == first, "name": name, "n": count[(pid, name)], "args": rest.rstrip(),
                      "key": key(name, rest.rstrip()),
                      "fd": int(fd.group(1)) if fd else None, "path": fd.group(2) if fd else None,
                      "ok": " = -1 " not in line})
    return calls


def regular(path):
    return path and path.startswith("/") and not path.startswith(("/dev/", "/proc/", "/sys/"))


def eligible(calls):
    """The calls to fault, and the bytes each regular file was given."""
    written = {}
    for c in calls:
        if c["name"] in ("write", "pwrite64") and c["fd"] not in (1, 2) and regular(c["path"]):
            r = re.search(r"(\d+)\)\s+= (\d+)\s*$", c["args"])
            end = written.get(c["path"], 0)
            if c["name"] == "write" and r:
                end += int(r.group(2))
            elif r:
                end = max(end, int(r.group(1)) + int(r.group(2)))
            written[c["path"]] = end
        if c["name"] == "openat" and "O_CREAT" in c["args"]:
            r = re.search(r"= \d+<([^>]*)>", c["args"])
            if r:
                written.setdefault(r.group(1), 0)
    chosen, open_for_writing = [], {}
    for c in calls:
        if not c["ok"]:
            continue
        n = c["name"]
        if n == "openat":
            r = re.search(r"= (\d+)<", c["args"])
            if r:
                open_for_writing[int(r.group(1))] = bool(re.search(r"O_WRONLY|O_RDWR", c["args"]))
        if n in ("write", "pwrite64"):
            keep = c["fd"] not in (1, 2) and regular(c["path"])
        elif n == "openat":
            keep = "O_CREAT" in c["args"]
        elif n == "close":  # of a file given bytes: a lock's close loses nothing
            keep = open_for_writing.pop(c["fd"], False) and written.get(c["path"], 0) > 0
        else:
            keep = True
        if keep:
            chosen.append(c)
    return chosen, written


def sample(items, edge):
    if len(items) <= 3 * edge:
        return items, "every"
    middle = items[edge:-edge][::37]
    return items[:edge] + middle + items[-edge:], "first %d, every 37th, last %d" % (edge, edge)


def snapshot(top):
    files = {}
    for d, dirs, names in os.walk(top):
        for name in dirs + names:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, top)
            if os.path.islink(p):
                files[rel] = "link:" + os.readlink(p)
            elif os.path.isdir(p):
                files[rel] = "dir"
            else:
                files[rel] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return files


def temporary(rel):
    """A hidden name: a temporary, a partial transfer kept to resume, a lock."""
    return any(part.startswith(".") and (".tmp" in part or part.endswith((".partial", ".lock")))
               for part in rel.split(os.sep))


def says_pass(top, rel):
    """Whether the file at rel is a receipt (JSON with a result) saying pass, or not a receipt."""
    try:
        d = json.load(open(os.path.join(top, rel)))
    except (ValueError, OSError):
        return True
    return not (isinstance(d, dict) and "result" in d and d["result"] != "pass")


def whole(top, rel):
    """Why the file at rel is not whole, or None."""
    p = os.path.join(top, rel)
    if not rel.endswith(".json") or not os.path.isfile(p):
        return None
    try:
        d = json.load(open(p))
    except ValueError as e:
        return "%s is not whole JSON (%s)" % (rel, e)
    if isinstance(d, dict) and isinstance(d.get("outputs"), list):
        for o in d["outputs"]:
            if not isinstance(o, dict) or "sha256" not in o or "name" not in o:
                continue
            for base in (os.path.dirname(p), top):
                q = os.path.join(base, o["name"])
                if os.path.isfile(q):
                    if hashlib.sha256(open(q, "rb").read()).hexdigest() != o["sha256"]:
                        return "%s names %s whose SHA-256 differs" % (rel, o["name"])
                    break
            else:
                return "%s names %s, which is not in place" % (rel, o["name"])
    return None


class Sweep:
    def __init__(self, a):
        self.a, self.work = a, os.path.abspath("fault-work")
        self.before = snapshot(a.template)
        self.rows, self.cases = [], 0
        self.unreachable, self.moved = collections.Counter(), collections.Counter()
        self.injected = os.path.abspath("fault-injected.txt")

    def fresh(self):
        shutil.rmtree(self.work, ignore_errors=True)
        shutil.copytree(self.a.template, self.work, symlinks=True)

    def run(self, argv, limit=None):
        def child():
            if limit is not None:
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        stdin = open(self.a.stdin, "rb") if self.a.stdin else subprocess.DEVNULL
        p = subprocess.run(argv, cwd=self.work, stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=child)
        err = p.stderr.decode(errors="replace")
        with open(os.path.join(os.getcwd(), "fault-err.txt"), "w") as f:
            f.write(err)
        self.out = p.stdout.decode(errors="replace")
        return p.returncode, err

    def hook(self, mode, rc):
        if not self.a.check:
            return True
        env = dict(os.environ, FAULT_MODE=mode, FAULT_RC=str(rc),
                   FAULT_ERR=os.path.join(os.getcwd(), "fault-err.txt"))
        return subprocess.run(["sh", "-c", self.a.check], cwd=self.work, env=env).returncode == 0

    def mutable(self, rel):
        return any(fnmatch.fnmatch(rel, g) or rel.startswith(g.rstrip("/") + "/") for g in self.a.mutable)

    def judge_tree(self, mode, err):
        after = snapshot(self.work)
        for rel, digest in self.before.items():
            if self.mutable(rel):
                continue
            if after.get(rel) != digest:
                return "%s, which was there before, is %s" % (rel, "gone" if rel not in after else "changed")
        for rel in sorted(set(after) - set(self.before)):
            if self.mutable(rel) or after[rel] == "dir":
                continue  # a directory claims nothing; what is in it is judged
            if mode == "crash":
                if temporary(rel):
                    continue
                why = whole(self.work, rel)
                if why:
                    return why
            elif temporary(rel) and os.path.basename(rel) in err:
                continue  # named, kept on purpose (a partial transfer to resume)
            elif says_pass(self.work, rel) or whole(self.work, rel):
                return "%s is left in place" % rel
        return None

    def again(self):
        rc, err = self.run(self.a.command)
        if rc == 1 and self.a.again_fails and re.search(self.a.again_fails, err + self.out):
            pass
        elif rc != 0 and not (rc == 2 and self.a.again_refused and re.search(self.a.again_refused, err)):
            return "the same command without a fault exits %d: %s" % (rc, err.strip()[:300])
        if not self.hook("again", rc):
            return "the check after the fault-free run failed"
        return None

    def case(self, what, mode, argv, errtext=None, limit=None, helpers=False, call=None):
        self.cases += 1
        for attempt in range(4):
            self.fresh()
            rc, err = self.run(argv, limit)
            # Where threads share the work, a call's number in its thread
            # may differ from the counting run's: the case holds only when
            # the call struck is the one meant, else it is run again.
            if call is None or call["key"] in struck(self.injected, call["name"], mode):
                break
        else:
            self.moved[call["name"]] += 1
            if os.environ.get("EV_FAULT_DEBUG"):
                with open(os.environ["EV_FAULT_DEBUG"], "a") as f:
                    f.write("%s: %s: meant %r, struck %r\n" % (self.a.label, what, call["key"],
                            sorted(struck(self.injected, call["name"], mode))))
            return
        why = None
        if helpers and rc == 127 and "error while loading shared libraries" in err:
            # a thread's call, faulted with every process followed: the
            # dynamic loader's call of that number came first, in the writer
            # or a helper, and the writer never ran; counted, not judged
            self.unreachable[argv[-len(self.a.command) - 1].split(":")[0].split("=")[-1]] += 1
            return
        if mode == "crash":
            if rc not in (-9, 128 + 9, 9) and not (helpers and rc in (1, 2)):
                why = "ended with %d, not SIGKILL (the injection missed?)" % rc
        elif rc == 0 and self.a.may_survive and re.search(self.a.may_survive, what):
            # a call the writer may lose (a WAL checkpoint): what it wrote
            # is judged as after a crash, whole or absent
            errtext, mode = None, "crash"
        elif rc not in (1, 2):
            why = "exit %d, not 1 or 2" % rc
        if why or not errtext:
            pass
        elif errtext not in err + self.out and not any(t in err for t in self.a.also_names):
            why = "the message does not name %r: %s" % (errtext, err.strip()[:300])
        elif errtext in err and not err.startswith(os.path.basename(self.a.command[0]) + ":"):
            why = "the message does not begin with the tool's name: %s" % err.strip()[:300]
        why = why or self.judge_tree(mode, err)
        if not why and not self.hook(mode, rc):
            why = "the writer's own check failed"
        why = why or self.again()
        if why:
            print("not held: %s: %s: %s" % (self.a.label, what, why), file=sys.stderr)
            sys.exit(1)

    def strace(self, call, action):
        # strace counts per process: a call of the writer's main thread is
        # faulted with its children and threads untraced, so that a helper
        # making as many calls is not faulted with it
        follow = [] if call["main"] else ["-f"]
        return ["strace"] + follow + ["-qq", "-y", "-s", "256", "-o", self.injected, "-e", "trace=" + call["name"],
                "-e", "inject=%s:%s" % (call["name"], action)] + self.a.command

    def sweep(self):
        self.fresh()
        trace = os.path.abspath("fault-trace.txt")
        rc = subprocess.run(["strace", "-f", "-qq", "-y", "-s", "256", "-e", "signal=none", "-o", trace,
                             "-e", "trace=" + ",".join(CALLS + ["clone", "clone3", "execve"])]
                            + self.a.command, cwd=self.work,
                            stdin=open(self.a.stdin, "rb") if self.a.stdin else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        if rc != 0:
            print("not held: %s: the command without a fault exits %d" % (self.a.label, rc), file=sys.stderr)
            sys.exit(1)
        chosen, written = eligible(parse_trace(trace))
        edge = int(os.environ.get("EV_FAULT_EDGE", "50"))
        for name in CALLS:
            mine = [c for c in chosen if c["name"] == name]
            if not mine:
                continue
            picked, how = sample(mine, edge)
            for i, c in enumerate(picked):
                code, text = ERRORS[i % len(ERRORS)]
                what = "%s #%d (%s) failing with %s" % (name, c["n"], c["path"] or c["args"][:60], code)
                self.case(what, "error", self.strace(c, "error=%s:when=%d" % (code, c["n"])), text,
                          helpers=not c["main"], call=c)
                what = "SIGKILL entering %s #%d (%s)" % (name, c["n"], c["path"] or c["args"][:60])
                self.case(what, "crash", self.strace(c, "signal=KILL:when=%d" % c["n"]), helpers=not c["main"],
                          call=c)
            self.rows.append((name, len(mine), len(picked), how))
        limits = sorted({size // 2 for size in written.values() if size > 1})
        for lim in limits:
            self.case("writes limited to %d bytes (RLIMIT_FSIZE)" % lim, "short", self.a.command,
                      "File too large", lim)
        if limits:
            self.rows.append(("short write", len(limits), len(limits), "half of each file written"))
        for name, total, faults, how in self.rows:
            lost, moved = self.unreachable.get(name, 0), self.moved.get(name, 0)
            print("# %-28s %-11s %5d calls %5d injected (%s), held%s%s" % (self.a.label, name, total,
                  faults * (2 if name != "short write" else 1), how,
                  "; %d ended in the loader, not judged" % lost if lost else "",
                  "; %d never struck the call meant in 4 tries, not judged" % moved if moved else ""))
        print("# %-28s %d cases, every one held" % (self.a.label, self.cases))
        shutil.rmtree(self.work, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--label", required=True)
    p.add_argument("--template", required=True)
    p.add_argument("--check")
    p.add_argument("--again-refused")
    p.add_argument("--mutable", action="append", default=[])
    p.add_argument("--stdin")
    p.add_argument("--also-names", action="append", default=[])
    p.add_argument("--may-survive")
    p.add_argument("--again-fails")
    p.add_argument("command", nargs="+")
    a = p.parse_args()
    a.stdin = a.stdin and os.path.abspath(a.stdin)
    Sweep(a).sweep()


main()
