/* SPDX-License-Identifier: Apache-2.0 */
/* child: ev_child_stop closes the helper's input and gives it a grace to
 * end by itself. A helper that ends when its input closes is reported with
 * its exit status and everything it wrote (what replicate audit reads to
 * know whether a far audit had published); one that ignores the end of its
 * input is killed once the grace is over, and reported as killed, soon
 * after the grace and not before it; one that had already ended is
 * reported as it ended. */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "lib/core/status.h"
#include "lib/remote/child.h"

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static ev_status start(struct ev_child *c, const char *script)
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	struct ev_error err;
	ev_error_clear(&err);
	return ev_child_start(c, argv, NULL, 1 << 16, 60, "test helper", NULL, &err);
}

int main(void)
{
	struct ev_child c;
	int code = -1;

	/* ends once its input closes, saying so on stdout and stderr */
	CHECK_INT_EQ(start(&c, "cat >/dev/null; echo receipt; echo stopped >&2; exit 3"), EV_OK);
	double t = seconds();
	CHECK_INT_EQ(ev_child_stop(&c, 5, &code), 1);
	CHECK(seconds() - t < 2);
	CHECK_INT_EQ(code, 3);
	CHECK_STR_EQ(c.outbuf, "receipt\n");
	CHECK(strstr(c.errtail, "stopped") != NULL);
	CHECK_INT_EQ(c.pid, -1);
	ev_child_free(&c);

	/* deaf to the end of its input (and to SIGTERM's default): killed after the grace */
	code = -1;
	CHECK_INT_EQ(start(&c, "trap '' HUP; exec sleep 30"), EV_OK);
	t = seconds();
	CHECK_INT_EQ(ev_child_stop(&c, 0.3, &code), 0);
	double took = seconds() - t;
	CHECK(took >= 0.3 && took < 3);
	CHECK_INT_EQ(code, -1);
	CHECK_INT_EQ(c.killed_status, 128 + SIGTERM);
	CHECK_INT_EQ(c.pid, -1);
	ev_child_free(&c);

	/* already over: its status, at once */
	CHECK_INT_EQ(start(&c, "echo done; exit 0"), EV_OK);
	struct timespec wait = {0, 200 * 1000 * 1000};
	nanosleep(&wait, NULL);
	code = -1;
	CHECK_INT_EQ(ev_child_stop(&c, 5, &code), 1);
	CHECK_INT_EQ(code, 0);
	CHECK_STR_EQ(c.outbuf, "done\n");
	ev_child_free(&c);

	/* a stopped helper is not stopped twice */
	CHECK_INT_EQ(ev_child_stop(&c, 5, &code), 0);
	return check_exit("test_child_stop_says_how_a_helper_ended");
}
