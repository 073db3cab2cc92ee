/* SPDX-License-Identifier: Apache-2.0 */
/* The harness itself: a unit test that ran no check fails (a test that
 * cannot fail is a defect), and one check is enough to pass. */
#include "config.h"

#include "check.h"

int main(void)
{
	int none = check_exit("a test with no check");
	CHECK_INT_EQ(none, 1);
	return check_exit("test_check_fails_a_test_that_ran_no_check");
}
