/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/observe.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/process/netns.h"

#define INODES_MAX 64

static json_t *unavailable(const char *what, int e)
{
	char text[256];
	snprintf(text, sizeof text, "unavailable: %s: %s", what, strerror(e));
	return json_string(text);
}

/* A whole small file (a /proc or /sys file) as a string, or NULL. */
static char *read_small(const char *path, int *e)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		*e = errno;
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (n < cap - 1)
			break;
		char *bigger = realloc(buf, cap *= 2);
		if (!bigger) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = bigger;
	}
	*e = ENOMEM;
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
		*e = EIO;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	return buf;
}

json_t *ev_observe_process(pid_t pid)
{
	char path[64];
	int e = 0;
	json_t *o = json_object();
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	char *stat = read_small(path, &e);
	/* after the last ')' (the command may hold spaces and parentheses) */
	const char *rest = stat ? strrchr(stat, ')') : NULL;
	unsigned long long f[50] = {0};
	int nf = 0;
	if (rest) {
		const char *p = rest + 2;
		char state;
		if (sscanf(p, "%c", &state) == 1)
			for (p += 1; nf < 50 && *p;) {
				char *end;
				while (*p == ' ')
					p++;
				f[nf] = strtoull(p, &end, 10);
				if (end == p)
					break;
				p = end;
				nf++;
			}
	}
	/* fields from 4 (ppid) on; minflt is field 10, majflt 12, utime 14,
	 * stime 15, processor 39 */
	if (nf >= 36)
		json_object_set_new(o, "stat",
				    json_pack("{s:I, s:I, s:I, s:I, s:I}", "minflt", (json_int_t)f[10 - 4],
					      "majflt", (json_int_t)f[12 - 4], "utime_ticks",
					      (json_int_t)f[14 - 4], "stime_ticks", (json_int_t)f[15 - 4],
					      "last_cpu", (json_int_t)f[39 - 4]));
	else
		json_object_set_new(o, "stat", unavailable(path, stat ? EINVAL : e));
	free(stat);

	snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
	char *ss = read_small(path, &e);
	unsigned long long run, wait, slices;
	if (ss && sscanf(ss, "%llu %llu %llu", &run, &wait, &slices) == 3)
		json_object_set_new(o, "schedstat",
				    json_pack("{s:I, s:I, s:I}", "run_ns", (json_int_t)run, "wait_ns",
					      (json_int_t)wait, "timeslices", (json_int_t)slices));
	else
		json_object_set_new(o, "schedstat", unavailable(path, ss ? EINVAL : e));
	free(ss);

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	char *st = read_small(path, &e);
	if (st) {
		json_t *s = json_object();
		static const char *keys[] = {"voluntary_ctxt_switches", "nonvoluntary_ctxt_switches",
					     "Cpus_allowed_list", NULL};
		for (const char **k = keys; *k; k++) {
			const char *at = strstr(st, *k);
			if (!at || at[strlen(*k)] != ':')
				continue;
			at += strlen(*k) + 1;
			while (*at == ' ' || *at == '\t')
				at++;
			size_t n = strcspn(at, "\n");
			if (**k == 'C')
				json_object_set_new(s, "cpus_allowed_list", json_stringn(at, n));
			else
				json_object_set_new(s, *k, json_integer(strtoll(at, NULL, 10)));
		}
		json_object_set_new(o, "status", s);
	} else {
		json_object_set_new(o, "status", unavailable(path, e));
	}
	free(st);
	return o;
}

/* The value of "Name:" in a /proc status text, its length in *n. */
static const char *status_field(const char *status, const char *name, size_t *n)
{
	size_t len = strlen(name);
	for (const char *at = status; (at = strstr(at, name)) != NULL; at += len)
		if ((at == status || at[-1] == '\n') && at[len] == ':') {
			at += len + 1;
			while (*at == ' ' || *at == '\t')
				at++;
			*n = strcspn(at, "\n");
			return at;
		}
	return NULL;
}

/* "1000\t1000\t1000\t1000" as [1000, 1000, 1000, 1000]. */
static json_t *numbers(const char *text, size_t n)
{
	json_t *a = json_array();
	char copy[512];
	snprintf(copy, sizeof copy, "%.*s", (int)(n < sizeof copy ? n : sizeof copy - 1), text);
	for (char *p = copy, *end; *p; p = end) {
		long long v = strtoll(p, &end, 10);
		if (end == p)
			break;
		json_array_append_new(a, json_integer(v));
	}
	return a;
}

json_t *ev_observe_credentials(pid_t pid)
{
	char path[64];
	int e = 0;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	char *st = read_small(path, &e);
	if (!st)
		return unavailable(path, e);
	json_t *o = json_object();
	static const struct {
		const char *field, *key;
		int list;
	} fields[] = {
		{"Uid", "uid", 1}, {"Gid", "gid", 1}, {"Groups", "groups", 1}, {"CapInh", "cap_inh", 0},
		{"CapPrm", "cap_prm", 0}, {"CapEff", "cap_eff", 0}, {"CapBnd", "cap_bnd", 0}, {"CapAmb", "cap_amb", 0},
		{"NoNewPrivs", "no_new_privs", 0},
	};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		size_t n;
		const char *v = status_field(st, fields[i].field, &n);
		if (!v)
			json_object_set_new(o, fields[i].key, unavailable(path, ENOENT));
		else
			json_object_set_new(o, fields[i].key, fields[i].list ? numbers(v, n) : json_stringn(v, n));
	}
	free(st);
	return o;
}

size_t ev_observe_cpu_columns(const char *header, int *column, size_t max)
{
	size_t ncols = 0;
	for (const char *tok = header; tok && ncols < max;) {
		while (*tok == ' ')
			tok++;
		if (strncmp(tok, "CPU", 3) != 0)
			break;
		column[ncols++] = atoi(tok + 3);
		tok = strchr(tok, ' ');
	}
	return ncols;
}

json_t *ev_observe_interrupts(const int *cpus, size_t n, int details)
{
	int e;
	char *text = read_small("/proc/interrupts", &e);
	if (!text)
		return unavailable("/proc/interrupts", e);
	json_t *o = json_object();
	int column[1024];
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	size_t ncols = ev_observe_cpu_columns(line, column, 1024);
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		while (*line == ' ')
			line++;
		char *colon = strchr(line, ':');
		if (!colon || colon == line)
			continue;
		*colon = 0;
		json_t *counts = json_object();
		char *p = colon + 1;
		size_t c;
		for (c = 0; c < ncols; c++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
			for (size_t k = 0; k < n; k++)
				if (cpus[k] == column[c]) {
					char key[16];
					snprintf(key, sizeof key, "%d", column[c]);
					json_object_set_new(counts, key, json_integer((json_int_t)v));
				}
		}
		/* a row without a count per CPU (ERR, MIS) is a host total */
		if (c < ncols) {
			json_decref(counts);
			continue;
		}
		if (!details) {
			json_object_set_new(o, line, counts);
			continue;
		}
		while (*p == ' ')
			p++;
		json_t *row = json_pack("{s:o, s:s}", "counts", counts, "description", p);
		if (line[strspn(line, "0123456789")] == 0) { /* a device's IRQ: where it may go */
			static const char *const files[] = {"smp_affinity_list", "effective_affinity_list"};
			for (int f = 0; f < 2; f++) {
				char path[96];
				snprintf(path, sizeof path, "/proc/irq/%s/%s", line, files[f]);
				char *v = read_small(path, &e);
				if (v)
					v[strcspn(v, "\n")] = 0;
				json_object_set_new(row, files[f], v ? json_string(v) : unavailable(path, e));
				free(v);
			}
		}
		json_object_set_new(o, line, row);
	}
	free(text);
	return o;
}

/* cpuidle state usage and time (us) by name for one CPU. */
static json_t *cpuidle(int cpu)
{
	char dir[128];
	snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu%d/cpuidle", cpu);
	DIR *d = opendir(dir);
	if (!d)
		return unavailable(dir, errno);
	json_t *o = json_object();
	struct dirent *ent;
	while ((ent = readdir(d)) != NULL) {
		if (strncmp(ent->d_name, "state", 5) != 0)
			continue;
		char path[512];
		int e;
		snprintf(path, sizeof path, "%s/%s/name", dir, ent->d_name);
		char *name = read_small(path, &e);
		snprintf(path, sizeof path, "%s/%s/usage", dir, ent->d_name);
		char *usage = read_small(path, &e);
		snprintf(path, sizeof path, "%s/%s/time", dir, ent->d_name);
		char *time_us = read_small(path, &e);
		if (name && usage && time_us) {
			name[strcspn(name, "\n")] = 0;
			json_object_set_new(o, name,
					    json_pack("{s:I, s:I}", "usage", (json_int_t)strtoll(usage, NULL, 10),
						      "time_us", (json_int_t)strtoll(time_us, NULL, 10)));
		}
		free(name);
		free(usage);
		free(time_us);
	}
	closedir(d);
	return o;
}

json_t *ev_observe_cpus(const int *cpus, size_t n)
{
	json_t *idle = json_object();
	for (size_t i = 0; i < n; i++) {
		char key[16];
		snprintf(key, sizeof key, "%d", cpus[i]);
		json_object_set_new(idle, key, cpuidle(cpus[i]));
	}
	return json_pack("{s:o, s:o}", "cpuidle", idle, "interrupts", ev_observe_interrupts(cpus, n, 0));
}

static double monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *sample_loop(void *arg)
{
	struct ev_sampler *s = arg;
	struct timespec tick = {(time_t)(s->interval_ms / 1000), (long)(s->interval_ms % 1000) * 1000000};
	while (!atomic_load(&s->stop)) {
		uint64_t inodes[INODES_MAX];
		size_t n = 0;
		json_t *sockets = json_array();
		for (int k = 0; k < 2; k++)
			if (s->pids[k] > 0)
				ev_netns_socket_inodes(s->pids[k], inodes, INODES_MAX, &n);
		for (int k = 0; k < 2 && sockets; k++) {
			if (s->diag_fds[k] < 0 || (k == 1 && s->diag_fds[1] == s->diag_fds[0]))
				continue;
			struct ev_error err;
			ev_error_clear(&err);
			json_t *found = ev_netns_tcp_sockets(s->diag_fds[k], inodes, n, &err);
			if (!found) {
				pthread_mutex_lock(&s->lock);
				if (!s->failures++)
					snprintf(s->first_failure, sizeof s->first_failure, "%s", err.text);
				pthread_mutex_unlock(&s->lock);
				continue;
			}
			json_array_extend(sockets, found);
			json_decref(found);
		}
		json_t *one = json_pack("{s:I, s:o}", "t_ms", (json_int_t)((monotonic() - s->t0) * 1000),
					"sockets", sockets);
		pthread_mutex_lock(&s->lock);
		json_array_append_new(s->samples, one);
		pthread_mutex_unlock(&s->lock);
		nanosleep(&tick, NULL);
	}
	return NULL;
}

ev_status ev_sampler_start(struct ev_sampler *s, const pid_t pids[2], const int diag_fds[2],
			uint64_t interval_ms, struct ev_error *err)
{
	memset(s, 0, sizeof *s);
	memcpy(s->pids, pids, sizeof s->pids);
	memcpy(s->diag_fds, diag_fds, sizeof s->diag_fds);
	s->interval_ms = interval_ms;
	s->t0 = monotonic();
	s->samples = json_array();
	pthread_mutex_init(&s->lock, NULL);
	int e = pthread_create(&s->thread, NULL, sample_loop, s);
	if (e) {
		json_decref(s->samples);
		pthread_mutex_destroy(&s->lock);
		return ev_error_errno(err, e, "cannot start the TCP sampler");
	}
	s->running = 1;
	return EV_OK;
}

json_t *ev_sampler_stop(struct ev_sampler *s)
{
	if (!s->running)
		return NULL;
	atomic_store(&s->stop, 1);
	pthread_join(s->thread, NULL);
	s->running = 0;
	pthread_mutex_destroy(&s->lock);
	json_t *out = json_pack("{s:I, s:o, s:I}", "interval_ms", (json_int_t)s->interval_ms, "samples",
				s->samples, "failures", (json_int_t)s->failures);
	if (s->failures)
		json_object_set_new(out, "first_failure", json_string(s->first_failure));
	return out;
}
