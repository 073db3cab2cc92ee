/* SPDX-License-Identifier: Apache-2.0 */
/* input: a command's input file, opened only when it is what the command
 * reads.
 *
 * Opening a FIFO for reading waits for a writer, and reading /dev/zero
 * never ends: every input file (a seal, a receipt, a selection, a series,
 * an archive, a file hashed whole) is looked at with stat before it is
 * opened and refused unless it is a regular file, then opened without
 * blocking and looked at again through the descriptor (it may have been
 * replaced in between). Used by lib's readers; callers see EV_USAGE with a
 * sentence naming the path, what it is, and what was expected.
 * No global state.
 */
#ifndef EV_INPUT_H
#define EV_INPUT_H

#include "lib/core/sha256.h"
#include "lib/core/status.h"

/* Open path read-only if it is a regular file. what names the input in
 * the refusal ("seal", "series"). @return a descriptor (blocking reads,
 * close-on-exec), or -1 with err set: EV_USAGE for another kind of file
 * (a FIFO, a device, a socket, a directory), EV_ERROR when it cannot be
 * opened or stat'ed (errno's sentence). */
int ev_input_open(const char *path, const char *what, struct ev_error *err);

/* Whether rel, a path read from a document (run.json's outputs, a plan's
 * inputs), names something under root that can be read without leaving
 * root: rel must be a member path (lib/core/path: relative, no "." or
 * "..", valid UTF-8 in NFC), and it is walked one component at a time
 * from root, none of them opened through a symbolic link (O_NOFOLLOW at
 * every step, the equivalent of openat2's RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS); when it is a directory, none of its entries is a
 * symbolic link either (a journal directory is read entry by entry).
 * Evidence is a stranger's input: a path it names is never trusted.
 * where names the document and field in refusals ("runs/A-1/run.json:
 * processes[1].outputs.series").
 * @return EV_OK when it is there and beneath, or absent (ENOENT: whether
 *         a missing file matters is the caller's to say; *absent, when
 *         not NULL, says so); EV_USAGE naming where, the value and what is
 *         wrong; EV_ERROR when root cannot be opened. */
ev_status ev_input_check_beneath(const char *root, const char *rel, const char *where, int *absent,
				 struct ev_error *err);

/* One line from fd (a peer's pipe or socket) into line, cap bytes with
 * its NUL, without its newline, read a byte at a time so that what
 * follows the line (file data) stays in fd. @return 0; -1 the stream
 * ended (or failed: errno) before a newline; -2 longer than cap - 1. */
int ev_fd_read_line(int fd, char *line, size_t cap);

/* The kind of a file mode in words: "a FIFO", "a directory", ... */
const char *ev_input_kind(unsigned mode);

/* The SHA-256 (lower-case hex) of the regular file at path, opened as
 * ev_input_open opens it (what names it in errors). @return EV_OK, or
 * err's status. */
ev_status ev_input_sha256_hex(const char *path, const char *what, char hex[EV_SHA256_HEX_LEN + 1],
			      struct ev_error *err);

#endif
