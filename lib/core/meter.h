/* SPDX-License-Identifier: Apache-2.0 */
/* meter: how a long library call tells its caller how far it got.
 *
 * The library never prints: a call that reads gigabytes advances a meter,
 * and the tool decides what that looks like (lib/cli/progress draws a
 * line on a terminal). A NULL meter, or one without advance, costs a
 * branch. No global state.
 */
#ifndef EV_METER_H
#define EV_METER_H

#include <stdint.h>

struct ev_meter {
	/* the whole work, once the call knows it (0: unknown) */
	void (*goal)(void *ctx, uint64_t bytes, uint64_t members);
	/* bytes and members done since the last call */
	void (*advance)(void *ctx, uint64_t bytes, uint64_t members);
	void *ctx;
};

static inline void ev_meter_goal(const struct ev_meter *m, uint64_t bytes, uint64_t members)
{
	if (m && m->goal)
		m->goal(m->ctx, bytes, members);
}

static inline void ev_meter_advance(const struct ev_meter *m, uint64_t bytes, uint64_t members)
{
	if (m && m->advance)
		m->advance(m->ctx, bytes, members);
}

#endif
