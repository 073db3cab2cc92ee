/* SPDX-License-Identifier: Apache-2.0 */
/* stop: the process's stop flag (stop.h). */
#include "config.h"

#include "lib/core/stop.h"

static const volatile sig_atomic_t *stop_flag;

void ev_stop_on(const volatile sig_atomic_t *flag)
{
	stop_flag = flag;
}

int ev_stop_requested(void)
{
	return stop_flag && *stop_flag;
}
