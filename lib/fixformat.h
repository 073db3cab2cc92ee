/* fixformat: the data formats of FIX field types, strictly.
 *
 * Integers: an optional '-' (not for LENGTH, NUMINGROUP, SEQNUM), then
 * digits. Decimals: an optional '-', digits with at most one '.', at least
 * one digit, no '+', no exponent. CHAR: one character; BOOLEAN: Y or N.
 * UTCTIMESTAMP: YYYYMMDD-HH:MM:SS with none, 3, 6 or 9 fractional digits
 * (17, 21, 24 or 27 characters), each part in range (second 60 for a leap
 * second). UTCTIMEONLY: HH:MM:SS[.fff...]; UTCDATEONLY and LOCALMKTDATE:
 * YYYYMMDD; MONTHYEAR: YYYYMM, YYYYMMDD or YYYYMMwN; TZ types: a time with
 * Z or +hh[:mm] / -hh[:mm]. Strings: anything non-empty. Pure functions.
 */
#ifndef EV_FIXFORMAT_H
#define EV_FIXFORMAT_H

#include <stdint.h>

#include "fixdict.h"

/* @return 1 when value (len bytes, len > 0) is well-formed for type. */
int ev_fix_format_ok(enum ev_fix_type type, const char *value, uint32_t len);

/* A UTCTIMESTAMP as a comparable pair: YYYYMMDDHHMMSS and nanoseconds.
 * @return 0, or -1 when it is not one. */
int ev_fix_utc_timestamp(const char *value, uint32_t len, uint64_t *seconds, uint32_t *nanos);

/* The type's FIX name, for messages ("UTCTIMESTAMP", "PRICE", ...). */
const char *ev_fix_type_name(enum ev_fix_type type);

#endif
