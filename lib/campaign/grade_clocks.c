/* SPDX-License-Identifier: Apache-2.0 */
/* grade_clocks: a run's condition "clocks": its host's realtime clock
 * synchronised within the rules' bound before and after the run
 * (run.json "clocks", judged by lib/campaign/clocks_read). A pair on one
 * host measures with one clock, so the shipped default does not grade it;
 * a lab whose figures cross hosts states the bound it holds them to. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/campaign/clocks_read.h"
#include "lib/campaign/grade.h"
#include "lib/campaign/grade_parts.h"

void ev_grade_clocks(const json_t *rules, const struct ev_run *run, json_t *out)
{
	if (!json_object_get(rules, "clocks"))
		return; /* rules written before the condition */
	const json_t *r = ev_grade_rule(rules, "clocks");
	if (!r)
		return ev_grade_not_graded("clocks", out);
	json_int_t bound = json_integer_value(json_object_get(r, "within_ns"));
	struct verdict v;
	ev_grade_open(&v, "clocks");
	const json_t *clocks = json_object_get(run->doc, "clocks");
	static const char *const when[] = {"before", "after"};
	for (int w = 0; w < 2; w++) {
		const json_t *record = json_object_get(clocks, when[w]);
		if (!json_is_object(record)) {
			ev_grade_note(&v, UNKNOWN, "run.json records no clock state %s the run (captured by a capture that did not read it)",
				      when[w]);
			continue;
		}
		struct ev_clock_judgement j;
		memset(&j, 0, sizeof j);
		ev_clocks_judge(record, &j);
		if (!j.synchronised)
			ev_grade_note(&v, FAIL, "%s the run: %s", when[w], j.how);
		else if (j.error_ns > bound)
			ev_grade_note(&v, FAIL, "%s the run: %s, more than the bound %" JSON_INTEGER_FORMAT " ns", when[w], j.how,
				      bound);
	}
	ev_grade_close(&v, out);
}
