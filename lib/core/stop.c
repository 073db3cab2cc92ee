/* SPDX-License-Identifier: Apache-2.0 */
/* stop: the process's stop flag (stop.h). */
#include "config.h"

#include "lib/core/stop.h"

#include <pthread.h>

static const volatile sig_atomic_t *stop_flag;

void ev_stop_on(const volatile sig_atomic_t *flag)
{
	stop_flag = flag;
}

int ev_stop_requested(void)
{
	return stop_flag && *stop_flag;
}

const volatile sig_atomic_t *ev_stop_flag(void)
{
	return stop_flag;
}

void ev_stop_hold_signals(sigset_t *before)
{
	sigset_t held;
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &held, before);
}

void ev_stop_release_signals(const sigset_t *before)
{
	pthread_sigmask(SIG_SETMASK, before, NULL);
}
