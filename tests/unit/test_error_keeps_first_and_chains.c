/* SPDX-License-Identifier: Apache-2.0 */
/* An error keeps the first failure, gains context outside-in, and cuts
 * text that does not fit with "..." instead of overflowing. */
#include "config.h"

#include <errno.h>

#include "check.h"
#include "lib/core/status.h"

int main(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_error_wrap(&err, "ignored"), EV_OK);
	CHECK_STR_EQ(err.text, "");
	CHECK_INT_EQ(ev_error_errno(&err, ENOENT, "%s: cannot open", "run.json"), EV_ERROR);
	CHECK_STR_EQ(err.text, "run.json: cannot open: No such file or directory");
	CHECK_INT_EQ(ev_error_set(&err, EV_REFUSED, "second"), EV_ERROR);
	CHECK_STR_EQ(err.text, "run.json: cannot open: No such file or directory");
	ev_error_wrap(&err, "reading plan %d", 3);
	CHECK_STR_EQ(err.text, "reading plan 3: run.json: cannot open: No such file or directory");

	ev_error_clear(&err);
	char big[3000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ev_error_set(&err, EV_REFUSED, "%s", big);
	CHECK_INT_EQ(strlen(err.text), EV_ERROR_TEXT_MAX - 1);
	CHECK_STR_EQ(err.text + EV_ERROR_TEXT_MAX - 4, "...");

	CHECK_INT_EQ(ev_status_exit_code(EV_OK), 0);
	CHECK_INT_EQ(ev_status_exit_code(EV_MISMATCH), 1);
	CHECK_INT_EQ(ev_status_exit_code(EV_REFUSED), 2);
	CHECK_INT_EQ(ev_status_exit_code(EV_INTERRUPTED), 2);
	return check_exit("test_error_keeps_first_and_chains");
}
