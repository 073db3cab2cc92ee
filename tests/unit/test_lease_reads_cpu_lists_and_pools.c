/* SPDX-License-Identifier: Apache-2.0 */
/* CPU lists read and written as the kernel prints them ("0-3,8"), a list
 * that is not one refused; the pools file's "isolated" and "shared" lines
 * taken, shared defaulting to the online CPUs that are not isolated, and
 * a line that is neither refused with its number; a file of comments only
 * leaves the kernel's pools, as no file does. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/core/lease.h"

static ev_status pools_from(const char *text, struct ev_pools *p, struct ev_error *err)
{
	char path[] = "/tmp/test_pools.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return EV_ERROR;
	close(fd);
	setenv(EV_POOLS_ENV, path, 1);
	ev_status st = ev_pools_load(p, err);
	unlink(path);
	return st;
}

int main(void)
{
	cpu_set_t set;
	char text[256];
	CHECK_INT_EQ(ev_cpulist_parse("0-3,8\n", &set), 0);
	CHECK_INT_EQ(CPU_COUNT(&set), 5);
	CHECK(CPU_ISSET(8, &set) && CPU_ISSET(3, &set) && !CPU_ISSET(4, &set));
	ev_cpulist_format(&set, text, sizeof text);
	CHECK_STR_EQ(text, "0-3,8");
	CHECK_INT_EQ(ev_cpulist_parse("", &set), 0);
	CHECK_INT_EQ(CPU_COUNT(&set), 0);
	CHECK_INT_EQ(ev_cpulist_parse("3-1", &set), -1);
	CHECK_INT_EQ(ev_cpulist_parse("1,,2", &set), -1);
	CHECK_INT_EQ(ev_cpulist_parse("a", &set), -1);
	CHECK_INT_EQ(ev_cpulist_parse("2 x", &set), -1);
	CHECK_INT_EQ(ev_cpulist_parse("99999", &set), -1);

	struct ev_pools p;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(pools_from("# lab host\nisolated 1\n", &p, &err), EV_OK);
	ev_cpulist_format(&p.isolated, text, sizeof text);
	CHECK_STR_EQ(text, "1");
	CHECK(!CPU_ISSET(1, &p.shared) && CPU_ISSET(0, &p.shared));
	CHECK_INT_EQ(pools_from("isolated 1\nshared 0\n", &p, &err), EV_OK);
	ev_cpulist_format(&p.shared, text, sizeof text);
	CHECK_STR_EQ(text, "0");
	ev_error_clear(&err);
	CHECK_INT_EQ(pools_from("isolated 1\nsharde 0\n", &p, &err), EV_REFUSED);
	CHECK(strstr(err.text, ": line 2: expected \"isolated LIST\" or \"shared LIST\"") != NULL);
	/* a file of comments only (the package's sample) is as none: the kernel's pools */
	struct ev_pools none;
	ev_error_clear(&err);
	setenv(EV_POOLS_ENV, "/nonexistent/evidence/pools", 1);
	CHECK_INT_EQ(ev_pools_load(&none, &err), EV_OK);
	CHECK_INT_EQ(pools_from("# isolated 2-3\n\n#shared 0-1\n", &p, &err), EV_OK);
	CHECK(CPU_EQUAL(&p.isolated, &none.isolated) && CPU_EQUAL(&p.shared, &none.shared));
	CHECK(strncmp(p.source, "kernel: ", 8) == 0 && strstr(p.source, "/tmp/test_pools.") &&
	      strstr(p.source, " names no pool"));
	return check_exit("lease");
}
