/* SPDX-License-Identifier: Apache-2.0 */
/* A process is recognised by its PID and start time in this boot: this
 * process is running; the same PID with another start time, another boot,
 * or a PID that does not exist are gone. A child that has been reaped is
 * gone although its PID was real. */
#include "config.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "lib/core/proc.h"

int main(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	uint64_t me = 0;
	char boot[EV_BOOT_ID_LEN + 1];
	CHECK_INT_EQ(ev_proc_start_ticks(getpid(), &me, &err), EV_OK);
	CHECK(me > 0);
	CHECK_INT_EQ(ev_proc_boot_id(boot, &err), EV_OK);
	CHECK_INT_EQ(strlen(boot), EV_BOOT_ID_LEN);
	CHECK_INT_EQ(boot[8], '-');

	CHECK_INT_EQ(ev_proc_is_running(getpid(), me, boot, &err), 1);
	CHECK_INT_EQ(ev_proc_is_running(getpid(), me, NULL, &err), 1);
	CHECK_INT_EQ(ev_proc_is_running(getpid(), me + 1, boot, &err), 0);
	CHECK_INT_EQ(ev_proc_is_running(getpid(), me, "00000000-0000-0000-0000-000000000000", &err), 0);

	/* A PID above the kernel's limit never exists. */
	uint64_t ticks;
	CHECK_INT_EQ(ev_proc_start_ticks(4194304 + 1, &ticks, &err), EV_MISMATCH);
	CHECK_INT_EQ(ev_proc_is_running(4194304 + 1, me, boot, &err), 0);

	pid_t child = fork();
	if (child == 0)
		_exit(0);
	uint64_t child_ticks = 0;
	/* Running or a zombie until reaped: its stat is there either way. */
	CHECK_INT_EQ(ev_proc_start_ticks(child, &child_ticks, &err), EV_OK);
	waitpid(child, NULL, 0);
	CHECK_INT_EQ(ev_proc_is_running(child, child_ticks, boot, &err), 0);
	CHECK_INT_EQ(err.status, EV_OK);
	return check_exit("test_proc_recognises_a_process_by_pid_and_start");
}
