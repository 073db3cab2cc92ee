#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""house-rules.py SRCDIR: the house rules of doc/design.md, checked.

Prints each violation as "RULE: FILE:LINE: what" and exits 1 when there
is one, else 0. The rules:

  lib-includes-no-tool   nothing under lib/ includes a tool's header
  tool-includes-no-tool  a tool includes no other tool's header
  room-includes          a lib room includes only itself and the rooms its
                         README.md's "May include:" line names, and of the
                         libraries beyond libc only those it names (jansson,
                         the house's JSON, anywhere)
  lib-prints-nothing     below lib/cli, nothing writes to stdout or stderr
  format-owner           each "evidence-NAME/N" format string is spelled in
                         the code (not a comment) of one file only (the
                         reference pair, capture/pair, writes its report
                         without the library and may spell its own)
  include-circle         no circle of includes between the library's files
                         (a .c and its .h are one file): each is above or
                         below another, never both (a family's parts
                         header, which its files share, may include the
                         headers of its own folder)
  parts-stay-home        a parts header (parts.h, NAME_parts.h: what the
                         files of one command or module share, and no one
                         else) is included only from its own folder
  format-in-lib          a format is spelled only in the library
  format-table           doc/design.md's "Formats and their owners" names
                         each format, as "evidence-NAME/N", on a row that
                         names the file spelling it (its path, no suffix)
  long-function          a function of more than 100 lines (its body) says
                         why it is kept whole, in the comment above it
                         ("Kept whole: WHY"); else it is split; a shorter
                         one says no such thing (a stale reason)
  exec-only-in-process   only lib/process runs a program a document names
                         (the plan's, each pinned and checked) or one
                         fixed in its code (chronyc, pmc); every
                         other exec call in the library says on the lines
                         above it that its program comes from the command
                         line, PATH, /proc/self/exe or the code, and no
                         tool file calls the exec family at all
  option-named           a command's options are named (TOOL_COMMAND_OPT_NAME,
                         declared beside its table): no tool file and no
                         file of lib/cli switches on a bare letter
  tool-prefix            a function a tool file exports carries its tool's
                         prefix (main excepted)
  spdx                   every source file (C, C++, shell, Python, man
                         page, the autotools inputs, any script with a #!)
                         says "SPDX-License-Identifier: Apache-2.0" in its
                         first three lines
  pipe-ends-early        a shell script that sets pipefail ends no pipe in
                         head: head exits after its lines, the producer
                         dies of SIGPIPE, and pipefail makes that the
                         script's exit 141 (awk 'NR <= N' reads it all)
"""
import os
import re
import sys

TOOLS = ("seal", "audit", "replicate", "capture")
root = sys.argv[1]
bad = []


def sources(top):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, f), root)


def code_lines(path):
    """(line number, text) of lines outside comments."""
    inside = False
    for n, line in enumerate(open(os.path.join(root, path), encoding="utf-8", errors="replace"), 1):
        text, out = line, ""
        while text:
            if inside:
                end = text.find("*/")
                if end < 0:
                    text = ""
                else:
                    inside, text = False, text[end + 2:]
            else:
                start = text.find("/*")
                if start < 0:
                    out, text = out + text, ""
                else:
                    out, text, inside = out + text[:start], text[start + 2:], True
        out = out.split("//")[0] if '"' not in out else out
        yield n, out


include = re.compile(r'#include "([a-z]+)/([a-z_]+)/')
system_include = re.compile(r'#include <(([a-z0-9_-]+)[/.][^>]*)>')
# a header's first word -> the library a room's README must name to include it
LIBRARIES = {"openssl": "openssl", "archive": "libarchive", "archive_entry": "libarchive", "zstd": "zstd",
             "zlib": "zlib", "unistr": "libunistring", "uninorm": "libunistring", "unicase": "libunistring",
             "uniconv": "libunistring", "sqlite3": "libsqlite3", "libpq-fe": "libpq", "libxml": "libxml2",
             "git2": "libgit2", "curl": "libcurl"}
tool_include = re.compile(r'#include "(%s)/' % "|".join(TOOLS))
prints = re.compile(r'(^|[^a-z_])(printf|puts|perror)\(|fprintf\((stdout|stderr)|fputs\([^;]*,\s*(stdout|stderr)\)')
fmt = re.compile(r'"(evidence-[a-z-]+/[0-9]+)"')
exported = re.compile(r'^(?!static\b)(?:const\s+)?[a-z_][a-z0-9_ ]*[ *]+\**([a-z_][a-z0-9_]*)\(')

rooms = sorted(d for d in os.listdir(os.path.join(root, "lib")) if os.path.isdir(os.path.join(root, "lib", d)))
allowed = {}
libraries_allowed = {}
for r in rooms:
    readme = os.path.join(root, "lib", r, "README.md")
    text = open(readme).read() if os.path.exists(readme) else ""
    m = re.search(r"May include:(.*)", text)
    allowed[r] = (set(rooms) if m and "every other room" in m.group(1)
                  else set(re.findall(r"lib/([a-z]+)", m.group(1))) if m else set())
    said = m.group(1).lower() if m else ""
    libraries_allowed[r] = (set(LIBRARIES.values()) if "every other room" in said
                            else {lib for lib in LIBRARIES.values() if re.search(r"\b%s\b" % re.escape(lib), said)})
    if not m:
        bad.append("room-includes: lib/%s/README.md: no \"May include:\" line" % r)

owners = {}
uses = {}  # lib module (a .c and its .h, by path without suffix) -> the lib modules it includes
for top in ("lib",) + TOOLS:
    for path in sources(top):
        parts = path.split(os.sep)
        for n, line in code_lines(path):
            m = tool_include.search(line)
            if m and top == "lib":
                bad.append("lib-includes-no-tool: %s:%d: includes %s/" % (path, n, m.group(1)))
            for m2 in re.finditer(r'#include "([a-z/_]*parts)\.h"', line):
                if os.path.dirname(m2.group(1)) != os.path.dirname(path):
                    bad.append("parts-stay-home: %s:%d: includes %s.h, the parts of %s/ (only its own folder's files "
                               "may)" % (path, n, m2.group(1), os.path.dirname(m2.group(1))))
            if m and top != "lib" and m.group(1) != top:
                bad.append("tool-includes-no-tool: %s:%d: %s includes %s/" % (path, n, top, m.group(1)))
            if top == "lib":
                room = parts[1]
                me = os.path.splitext(path)[0]
                for m in re.finditer(r'#include "(lib/[a-z]+/[a-z_/]+)\.h"', line):
                    them = m.group(1)
                    family = (me.endswith("_parts") and them == me[:-len("_parts")]) or \
                        (os.path.basename(me) == "parts" and os.path.dirname(them) == os.path.dirname(me))
                    if them != me and not family:
                        uses.setdefault(me, set()).add(them)
                for m in include.finditer(line):
                    if m.group(1) == "lib" and m.group(2) != room and m.group(2) not in allowed.get(room, set()):
                        bad.append("room-includes: %s:%d: lib/%s includes lib/%s (its README allows %s)" % (
                            path, n, room, m.group(2), ", ".join(sorted(allowed.get(room, ()))) or "nothing"))
                for m in system_include.finditer(line):
                    lib = LIBRARIES.get(m.group(2))
                    if lib and lib not in libraries_allowed.get(room, set()):
                        bad.append("room-includes: %s:%d: lib/%s includes %s (<%s>; its README allows %s)" % (
                            path, n, room, lib, m.group(1),
                            ", ".join(sorted(libraries_allowed.get(room, ()))) or "no library"))
                if room != "cli" and prints.search(line):
                    bad.append("lib-prints-nothing: %s:%d: %s" % (path, n, line.strip()))
            for m in fmt.finditer(line):
                if not path.startswith(os.path.join("capture", "pair")):
                    owners.setdefault(m.group(1), set()).add(path)
            if top != "lib" and path.endswith(".c") and not path.startswith(os.path.join("capture", "pair")):
                m = exported.match(line)
                if m and m.group(1) != "main" and not m.group(1).startswith(top + "_") and not line.rstrip().endswith(";"):
                    bad.append("tool-prefix: %s:%d: %s exports %s() without the prefix %s_" % (path, n, top, m.group(1), top))
LONG_FUNCTION = 100


def long_functions(path):
    """(line, name, body lines, the comment above) of each function."""
    lines = open(os.path.join(root, path), encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            start = i - 1
            while start > 0 and lines[start][:1] in ("\t", " "):
                start -= 1
            end = i + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            if True:
                above, k = [], start - 1
                if k >= 0 and lines[k].rstrip().endswith("*/"):
                    while k >= 0:
                        above.insert(0, lines[k])
                        if lines[k].lstrip().startswith("/*"):
                            break
                        k -= 1
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\(", lines[start])
                yield start + 1, m.group(1) if m else lines[start].strip(), end - i - 1, "\n".join(above)
            i = end
        i += 1


for top in ("lib",) + TOOLS:
    for path in sources(top):
        if path.endswith(".c"):
            for n, name, body, above in long_functions(path):
                if body <= LONG_FUNCTION and "Kept whole:" in above:
                    bad.append("long-function: %s:%d: %s() is %d lines; its reason to be kept whole is stale "
                               "(remove it)" % (path, n, name, body))
                elif body > LONG_FUNCTION and "Kept whole:" not in above:
                    bad.append("long-function: %s:%d: %s() is %d lines; split it, or say above it why it is kept "
                               "whole (\"Kept whole: ...\")" % (path, n, name, body))
BARE_CASE = re.compile(r"\bcase '[A-Za-z]':")
for top in ("lib",) + TOOLS:
    for path in sources(top):
        if (top == "lib" and not path.startswith(os.path.join("lib", "cli") + os.sep)) or \
                path.startswith(os.path.join("capture", "pair")):
            continue
        for n, line in code_lines(path):
            if BARE_CASE.search(line):
                bad.append("option-named: %s:%d: %s: an option is switched on by its name (TOOL_COMMAND_OPT_NAME), "
                           "not a bare letter" % (path, n, line.strip()))
EXEC = re.compile(r'(^|[^_a-z])(execv|execvp|execvpe|execve|execl|execlp|execle|fexecve|posix_spawnp?|system|popen)\(')
PROGRAM_FROM_USER = ("the command line", "PATH", "/proc/self/exe", "fixed in the code")
for top in ("lib",) + TOOLS:
    for path in sources(top):
        if not path.endswith(".c") or path.startswith(os.path.join("capture", "pair")):
            continue
        text = [line for _, line in code_lines(path)]
        raw = open(os.path.join(root, path), encoding="utf-8", errors="replace").read().split("\n")
        for n, line in enumerate(text, 1):
            if not EXEC.search(line):
                continue
            said = " ".join(raw[max(0, n - 4):n])
            said = said.split("program: ", 1)[1] if "program: " in said else ""
            if top != "lib":
                bad.append("exec-only-in-process: %s:%d: a tool runs no program itself (the library does: "
                           "lib/process for a plan's)" % (path, n))
            elif path.startswith(os.path.join("lib", "process") + os.sep):
                if not said.startswith("the plan's") and not said.startswith("fixed in the code"):
                    bad.append("exec-only-in-process: %s:%d: does not say above it that its program is the plan's, "
                               "pinned (/* program: the plan's ... */), or one fixed in the code" % (path, n))
            elif not any(w in said for w in PROGRAM_FROM_USER):
                bad.append("exec-only-in-process: %s:%d: outside lib/process, a program comes from the command line, "
                           "PATH, /proc/self/exe or the code, said above the call (/* program: ... */)" % (path, n))
SPDX = "SPDX-License-Identifier: Apache-2.0"
SPDX_DIRS = ("lib", "seal", "audit", "replicate", "capture", "tests", "bench", "scripts", "doc/examples", ".ci",
             "share/man", "debian")


def licensed_sources():
    """Every file the spdx rule covers: data (fuzz regressions, fixtures) is not source."""
    for top in ("Makefile.am", "configure.ac"):
        if os.path.isfile(os.path.join(root, top)):
            yield top
    for top in SPDX_DIRS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x != "regress" and not x.startswith("."))
            for f in sorted(files):
                path = os.path.relpath(os.path.join(d, f), root)
                with open(os.path.join(root, path), "rb") as fh:
                    head = fh.read(4096)
                if f.endswith((".c", ".h", ".cpp", ".py", ".sh", ".1", ".map")) or head.startswith(b"#!") or \
                        f in ("rules",):
                    yield path, head


for item in licensed_sources():
    path, head = item if isinstance(item, tuple) else (item, open(os.path.join(root, item), "rb").read(4096))
    if SPDX.encode() not in b"\n".join(head.split(b"\n")[:3]):
        bad.append("spdx: %s:1: no \"%s\" in its first three lines" % (path, SPDX))
PIPEFAIL_DIRS = ("scripts", "bench", ".ci", "tests")
ends_in_head = re.compile(r"\|\s*head\b")
for top in PIPEFAIL_DIRS:
    for d, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        for f in sorted(files):
            path = os.path.relpath(os.path.join(d, f), root)
            with open(os.path.join(root, path), "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
            if not (text.startswith("#!") and "sh" in text.split("\n", 1)[0]) and not f.endswith(".sh"):
                continue
            if "pipefail" not in text and "tests/lib/lib.sh" not in text:
                continue
            for n, line in enumerate(text.split("\n"), 1):
                if ends_in_head.search(line.split("#")[0] if not line.lstrip().startswith("#") else ""):
                    bad.append("pipe-ends-early: %s:%d: %s" % (path, n, line.strip()))
for name, files in sorted(owners.items()):
    if len(files) > 1:
        bad.append("format-owner: \"%s\" is spelled in %s" % (name, ", ".join(sorted(files))))


def circles(graph):
    """Each set of modules that include one another in a circle (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


for group in circles(uses):
    bad.append("include-circle: %s include one another; split what they share into a file below both" %
               " <-> ".join(group))
design = open(os.path.join(root, "doc", "design.md"), encoding="utf-8").read()
table = design.split("## Formats and their owners", 1)[-1].split("\n## ", 1)[0]
rows = [line for line in table.split("\n") if line.startswith("|")]
for name, files in sorted(owners.items()):
    for f in sorted(files):
        if not f.startswith("lib" + os.sep):
            bad.append("format-in-lib: %s: spells \"%s\"; a format is the library's (a lib room builds it, the "
                       "tool prints it)" % (f, name))
        module = os.path.splitext(f)[0]
        if not any("`%s`" % name in r and module in r for r in rows):
            bad.append("format-table: \"%s\" (spelled in %s): no row of doc/design.md's \"Formats and their "
                       "owners\" names `%s` and %s" % (name, f, name, module))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
