/* SPDX-License-Identifier: Apache-2.0 */
/* path: the safe member-path model shared by every tool.
 *
 * A member path names a file or directory inside a sealed tree. It is valid
 * when it is relative, '/'-separated, with no empty, "." or ".." component,
 * is valid UTF-8 (shortest form, no surrogates, at most U+10FFFF) in
 * Unicode normalization form C (tar readers and writers normalize names to
 * NFC, so no other form survives an archive), holds no control character
 * (U+0000-U+001F, U+007F-U+009F) and no backslash (which other systems
 * read as a separator), and fits the length limits below.
 * Such a path means the same thing on every host and can never escape the
 * directory it is extracted into.
 *
 * Pure functions; no state.
 */
#ifndef EV_PATH_H
#define EV_PATH_H

#include <stddef.h>

#include "lib/core/status.h"

#define EV_PATH_MAX 4095      /* bytes in a whole member path */
#define EV_PATH_COMPONENT_MAX 255 /* bytes in one component */

/* Check a member path (NUL-terminated, len bytes before the NUL; a NUL
 * inside the first len bytes is itself a violation).
 * @return NULL when valid, else a static sentence saying what is wrong,
 *         e.g. "is not valid UTF-8". */
const char *ev_path_problem(const char *path, size_t len);

/* The sentence ev_path_problem returns for a name not in NFC, so that a
 * caller can show such a name byte by byte (it prints like its NFC form). */
extern const char ev_path_not_nfc[];

/* Check one path component (a file name): the rules above for a path with a
 * single component. @return NULL or a static sentence. */
const char *ev_path_component_problem(const char *name, size_t len);

/* Write path into out (cap bytes) with every byte that is not printable
 * ASCII shown as \xHH, so that a refused name can be shown in a message
 * without sending control characters to a terminal. Always NUL-terminates;
 * cuts with "..." when out is too small. Valid printable UTF-8 is kept. */
void ev_path_quote(const char *path, size_t len, char *out, size_t cap);

/* Like ev_path_quote, but every byte outside printable ASCII is shown as
 * \xHH: for names that look alike when printed (NFC and NFD forms). */
void ev_path_quote_bytes(const char *path, size_t len, char *out, size_t cap);

/* "a/b" into out (cap bytes). @return 0, or -1 (out emptied) when it does
 * not fit. */
int ev_path_join(char *out, size_t cap, const char *a, const char *b);

/* text as it may appear in a file name (a receipt named after a host or
 * a directory): letters, digits, '-' and '.' kept, anything else '_';
 * "unknown" for NULL. */
void ev_path_label(const char *text, char *out, size_t cap);

#endif
