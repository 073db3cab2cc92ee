/* SPDX-License-Identifier: Apache-2.0 */
/* grade_parts: what the files of grade share, and no one else: one
 * condition's verdict while it is made (grade.c), used by the host's
 * conditions (grade_policy.c) and a run's and a plan's (grade_run.c). */
#ifndef EV_GRADE_PARTS_H
#define EV_GRADE_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/campaign/grade.h"

/* One condition's verdict while it is made: the worst seen, its sentences. */
enum level { PASS, UNKNOWN, FAIL };

struct verdict {
	const char *condition;
	enum level level;
	json_t *evidence;
};

void ev_grade_open(struct verdict *v, const char *condition);
/* A sentence of evidence; the verdict is the worst level noted. */
void ev_grade_note(struct verdict *v, enum level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The verdict appended to out as {"condition", "verdict", "evidence"}. */
void ev_grade_close(struct verdict *v, json_t *out);
void ev_grade_not_graded(const char *condition, json_t *out);
/* The rule for condition, or NULL when it is not graded. */
const json_t *ev_grade_rule(const json_t *rules, const char *condition);
/* Whose CPU cpu is, in words ("a sender's"). */
const char *ev_grade_whose(const struct ev_grade_cpus *c, int cpu);
/* Whether value is one of the strings of allowed; allowed as "a, b, c". */
int ev_grade_in_list(const json_t *allowed, const char *value);
void ev_grade_list_text(const json_t *allowed, char *out, size_t cap);
/* n with its thousands grouped ("1,204"), for a count in a sentence. */
void ev_grade_group_digits(int64_t n, char *out, size_t cap);

#endif
