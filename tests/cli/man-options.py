#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""man-options.py BUILDDIR SRCDIR: each command's options in its man page.

A command's part of TOOL.1 is every .SS section whose heading begins
"TOOL COMMAND" (its description, and under OPTIONS its options, may be
apart). An option item is a .TP whose tag line names the option
(".BI \\-\\-seal " SEAL.json"; a short option by its letter, "\\-o"). Prints
each disagreement with the command's --help, which is its table, as
"TOOL COMMAND: what", and exits 1 when there is one:

  no section          no .SS heading names the command
  no item             an option its --help shows has no item in its part
  value differs       the item names another value than --help's label
  not an option       an item names an option its --help does not show
  section twice       a .SH heading appears twice in the page
"""
import re
import subprocess
import sys

TOOLS = ["seal", "replicate", "audit", "capture"]


def run(*argv):
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def commands(exe):
    block = run(exe, "--help").split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  ([a-z][a-z-]*) ", block, re.M)


def help_options(text):
    """{name: (letter, value)} from a command's --help, its options block."""
    found = {}
    for line in text.split("\n"):
        m = re.match(r"^  (?:-(\w), |    )?--([a-z0-9-]+)(?: ([^ ]+))?(?:  |$)", line)
        if m and m.group(2) != "help" and m.group(2) not in found:
            found[m.group(2)] = (m.group(1), m.group(3))
    return found


def plain(roff):
    """A roff line's words: escapes and font requests gone."""
    text = re.sub(r"^\.(B|I|BI|IB|BR|RB|IR|RI)\s+", "", roff)
    text = text.replace("\\-", "-").replace("\\(en", "-")
    text = re.sub(r"\\f[BIRP]", "", text)
    return text.replace('"', "")


def sections(page, tool, command):
    """The lines of every .SS section whose heading starts "TOOL COMMAND"."""
    lines, part, inside = page.split("\n"), [], False
    for line in lines:
        if line.startswith((".SS", ".SH")):
            heading = plain(line[3:].strip()).strip()
            inside = line.startswith(".SS") and (heading == f"{tool} {command}" or
                                                 heading.startswith(f"{tool} {command} "))
            continue
        if inside:
            part.append(line)
    return part


def items(part):
    """(option names or letters, the tag's words) of each .TP item whose tag
    begins with an option; a tag may name several ("--archive ARCHIVE
    --seal SEAL.json"), each followed by its value."""
    out = []
    for before, tag in zip(part, part[1:]):
        words = plain(tag)
        if before != ".TP" or not re.match(r"^\s*-", words):
            continue
        tokens = words.split()
        option = [re.match(r"^(?:--([a-z0-9-]+)|-(\w))$", t.lstrip("[").rstrip("],|")) for t in tokens]
        named = []
        for i, m in enumerate(option):
            if m:  # its value: the next word that is not an option ("-o, --output OUTDIR")
                j = next((k for k in range(i + 1, len(tokens)) if not option[k]), len(tokens))
                value = tokens[j].rstrip("],") if j < len(tokens) else ""
                named.append((m.group(1) or m.group(2), value))
        out.append((named, words.strip()))
    return out


def main():
    build, src = sys.argv[1], sys.argv[2]
    problems = []
    for tool in TOOLS:
        exe = f"{build}/{tool}/{tool}"
        page = open(f"{src}/share/man/{tool}.1", encoding="utf-8").read()
        heads = re.findall(r"^\.SH (.*)$", page, re.M)
        for h in sorted({h for h in heads if heads.count(h) > 1}):
            problems.append(f"{tool}.1: section twice: {h}")
        for command in commands(exe):
            options = help_options(run(exe, command, "--help"))
            part = sections(page, tool, command)
            if not part:
                problems.append(f"{tool} {command}: no section (.SS \"{tool} {command} ...\")")
                continue
            letters = {letter: name for name, (letter, _) in options.items() if letter}
            documented = set()
            for named, words in items(part):
                for key, following in named:
                    name = letters.get(key, key)
                    if name in ("help", "h"):
                        continue
                    if name not in options:
                        problems.append(f"{tool} {command}: not an option: --{name} in the item \"{words}\"")
                        continue
                    documented.add(name)
                    value = options[name][1]
                    if value and following != value:
                        problems.append(f"{tool} {command}: value differs: --{name} {value} in --help, "
                                        f"\"{words}\" in the page")
            for name in sorted(set(options) - documented):
                problems.append(f"{tool} {command}: no item for --{name}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
