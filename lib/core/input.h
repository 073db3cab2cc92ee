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

#include "lib/core/status.h"

/* Open path read-only if it is a regular file. what names the input in
 * the refusal ("seal", "series"). @return a descriptor (blocking reads,
 * close-on-exec), or -1 with err set: EV_USAGE for another kind of file
 * (a FIFO, a device, a socket, a directory), EV_ERROR when it cannot be
 * opened or stat'ed (errno's sentence). */
int ev_input_open(const char *path, const char *what, struct ev_error *err);

/* The kind of a file mode in words: "a FIFO", "a directory", ... */
const char *ev_input_kind(unsigned mode);

#endif
