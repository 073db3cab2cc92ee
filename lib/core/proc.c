/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The start time field's place among the fields after "(comm)", which
 * itself may hold spaces and parentheses: proc(5) numbers it 22, and the
 * fields after the command start at 3. */
#define STARTTIME_AFTER_COMM (22 - 3)

static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n, got = 0;
	while ((size_t)got + 1 < cap && (n = read(fd, buf + got, cap - 1 - (size_t)got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

ev_status ev_proc_start_ticks(pid_t pid, uint64_t *ticks, struct ev_error *err)
{
	char path[64], stat[1024];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (read_small(path, stat, sizeof stat) < 0) {
		if (errno == ENOENT || errno == ESRCH)
			return EV_MISMATCH;
		return ev_error_errno(err, errno, "%s: cannot read", path);
	}
	char *p = strrchr(stat, ')');
	if (!p)
		return ev_error_set(err, EV_ERROR, "%s: no command field", path);
	p++;
	for (int field = 0; field < STARTTIME_AFTER_COMM; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return ev_error_set(err, EV_ERROR, "%s: too few fields", path);
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1)
		return ev_error_set(err, EV_ERROR, "%s: start time is not a number", path);
	*ticks = v;
	return EV_OK;
}

ev_status ev_proc_boot_id(char out[EV_BOOT_ID_LEN + 1], struct ev_error *err)
{
	static const char path[] = "/proc/sys/kernel/random/boot_id";
	char buf[64];
	ssize_t n = read_small(path, buf, sizeof buf);
	if (n < EV_BOOT_ID_LEN)
		return ev_error_errno(err, n < 0 ? errno : EIO, "%s: cannot read", path);
	memcpy(out, buf, EV_BOOT_ID_LEN);
	out[EV_BOOT_ID_LEN] = '\0';
	return EV_OK;
}

int ev_proc_boot_id_valid(const char *s)
{
	if (!s || strlen(s) != EV_BOOT_ID_LEN)
		return 0;
	for (int i = 0; i < EV_BOOT_ID_LEN; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	}
	return 1;
}

int ev_proc_is_running(pid_t pid, uint64_t start_ticks, const char *boot_id,
		       struct ev_error *err)
{
	if (boot_id) {
		char now[EV_BOOT_ID_LEN + 1];
		if (ev_proc_boot_id(now, err) != EV_OK)
			return -1;
		if (strcmp(now, boot_id) != 0)
			return 0; /* recorded in another boot: long gone */
	}
	uint64_t ticks;
	ev_status st = ev_proc_start_ticks(pid, &ticks, err);
	if (st == EV_MISMATCH)
		return 0;
	if (st != EV_OK)
		return -1;
	return ticks == start_ticks;
}
