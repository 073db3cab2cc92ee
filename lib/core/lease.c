/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/lease.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/proc.h"
#include "lib/core/publish.h"

#ifndef EV_LEASE_DIR
#define EV_LEASE_DIR "/run/evidence"
#endif
#ifndef EV_POOLS_FILE
#define EV_POOLS_FILE "/usr/local/etc/evidence/pools"
#endif

const char *ev_lease_dir(void)
{
	const char *env = getenv(EV_LEASE_DIR_ENV);
	return env && *env ? env : EV_LEASE_DIR;
}

int ev_cpulist_parse(const char *text, cpu_set_t *set)
{
	CPU_ZERO(set);
	const char *p = text;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\n' || !*p)
		return 0;
	for (;;) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < 0 || a >= CPU_SETSIZE)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= CPU_SETSIZE)
				return -1;
			p = end;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, set);
		if (*p != ',')
			break;
		p++;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p ? -1 : 0;
}

void ev_cpulist_format(const cpu_set_t *set, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = 0;
	for (int c = 0; c < CPU_SETSIZE && n + 24 < cap; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int d = c;
		while (d + 1 < CPU_SETSIZE && CPU_ISSET(d + 1, set))
			d++;
		n += (size_t)snprintf(out + n, cap - n, d > c ? "%s%d-%d" : "%s%d", n ? "," : "", c, d);
		c = d;
	}
}

/* A kernel command-line list (isolcpus may carry flags: "domain,2-3"). */
static void cmdline_list(const char *cmdline, const char *param, cpu_set_t *into)
{
	size_t n = strlen(param);
	for (const char *at = cmdline; (at = strstr(at, param)) != NULL; at += n) {
		if ((at != cmdline && at[-1] != ' ') || at[n] != '=')
			continue;
		char value[512];
		snprintf(value, sizeof value, "%.*s", (int)strcspn(at + n + 1, " \n"), at + n + 1);
		char *list = value;
		for (char *comma; (comma = strchr(list, ',')) != NULL && (list[0] < '0' || list[0] > '9');)
			list = comma + 1; /* skip flags such as "domain," and "managed_irq," */
		cpu_set_t s;
		if (ev_cpulist_parse(list, &s) == 0)
			CPU_OR(into, into, &s);
	}
}

ev_status ev_pools_load(struct ev_pools *p, struct ev_error *err)
{
	memset(p, 0, sizeof *p);
	const char *path = getenv(EV_POOLS_ENV);
	if (!path || !*path)
		path = EV_POOLS_FILE;
	FILE *f = fopen(path, "r");
	cpu_set_t online;
	CPU_ZERO(&online);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	for (long c = 0; c < n && c < CPU_SETSIZE; c++)
		CPU_SET((int)c, &online);
	int have_shared = 0, have_any = 0, existed = f != NULL;
	if (f) {
		char line[1024];
		int lineno = 0;
		while (fgets(line, sizeof line, f)) {
			lineno++;
			char *s = line;
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s == '#' || *s == '\n' || !*s)
				continue;
			cpu_set_t set;
			int isolated = strncmp(s, "isolated ", 9) == 0, shared = strncmp(s, "shared ", 7) == 0;
			if ((!isolated && !shared) || ev_cpulist_parse(s + (isolated ? 9 : 7), &set) != 0) {
				fclose(f);
				return ev_error_set(err, EV_REFUSED,
						    "%s: line %d: expected \"isolated LIST\" or \"shared LIST\" (a CPU list such "
						    "as 0-3,8)", path, lineno);
			}
			CPU_OR(isolated ? &p->isolated : &p->shared, isolated ? &p->isolated : &p->shared, &set);
			have_shared |= shared;
			have_any = 1;
		}
		fclose(f);
	}
	if (have_any) { /* a file of comments only (the package's sample) leaves the kernel's pools */
		if (!have_shared) {
			CPU_XOR(&p->shared, &online, &p->isolated);
			CPU_AND(&p->shared, &p->shared, &online);
		}
		snprintf(p->source, sizeof p->source, "%s", path);
		return EV_OK;
	}
	char cmdline[4096] = "";
	FILE *c = fopen("/proc/cmdline", "r");
	if (c) {
		if (!fgets(cmdline, sizeof cmdline, c))
			cmdline[0] = 0;
		fclose(c);
	}
	cmdline_list(cmdline, "isolcpus", &p->isolated);
	cmdline_list(cmdline, "nohz_full", &p->isolated);
	CPU_AND(&p->isolated, &p->isolated, &online);
	CPU_XOR(&p->shared, &online, &p->isolated);
	if (CPU_COUNT(&p->shared) == 0)
		p->shared = online;
	char iso[256];
	ev_cpulist_format(&p->isolated, iso, sizeof iso);
	snprintf(p->source, sizeof p->source, "kernel: isolcpus and nohz_full (%s), %s%s%s%s", iso[0] ? iso : "none",
		 existed ? "" : "no", existed ? "" : " ", path, existed ? " names no pool" : "");
	return EV_OK;
}

/* mkdir, then make it sticky and writable by all, as /tmp. */
static ev_status shared_dir(const char *path, struct ev_error *err)
{
	if (mkdir(path, 01777) == 0) {
		if (chmod(path, 01777) != 0)
			return ev_error_errno(err, errno, "%s: cannot make it writable by all", path);
	} else if (errno != EEXIST) {
		return ev_error_errno(err, errno, "%s: cannot create the lease registry", path);
	}
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return ev_error_set(err, EV_ERROR, "%s: not a directory (the lease registry)", path);
	return EV_OK;
}

static ev_status open_registry(const char *dir, struct ev_error *err)
{
	char sub[PATH_MAX];
	ev_status st = shared_dir(dir, err);
	static const char *const subs[] = {"holders", "queue"};
	for (int i = 0; i < 2 && st == EV_OK; i++)
		st = ev_path_join(sub, sizeof sub, dir, subs[i]) != 0 ? ev_error_set(err, EV_ERROR, "%s: path too long", dir)
								      : shared_dir(sub, err);
	return st;
}

static int overlaps(const cpu_set_t *a, const cpu_set_t *b, int *first)
{
	cpu_set_t both;
	CPU_AND(&both, a, b);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &both)) {
			*first = c;
			return 1;
		}
	return 0;
}

static json_t *load_entry(const char *path)
{
	struct ev_error ignored;
	ev_error_clear(&ignored);
	char *bytes = NULL;
	size_t len = 0;
	json_t *doc = NULL;
	if (ev_file_read_all(path, 65536, &bytes, &len, &ignored) == EV_OK)
		doc = json_loadb(bytes, len, 0, NULL);
	free(bytes);
	return doc;
}

static int entry_cpus(const json_t *doc, cpu_set_t *set)
{
	const char *list = json_string_value(json_object_get(doc, "cpus"));
	return list && ev_cpulist_parse(list, set) == 0;
}

/* Live holders of the registry, each with its CPUs. A holder file whose
 * process is gone is stale: skipped (and removed when we may). */
static json_t *live_holders(const char *dir)
{
	char path[PATH_MAX];
	json_t *out = json_array();
	if (ev_path_join(path, sizeof path, dir, "holders") != 0)
		return out;
	DIR *d = opendir(path);
	if (!d)
		return out;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char file[PATH_MAX + 300];
		if (e->d_name[0] == '.' || !strstr(e->d_name, ".json"))
			continue;
		if (ev_path_join(file, sizeof file, path, e->d_name) != 0)
			continue;
		json_t *doc = load_entry(file);
		json_int_t pid = json_integer_value(json_object_get(doc, "pid"));
		uint64_t want = (uint64_t)json_integer_value(json_object_get(doc, "start_ticks")), ticks = 0;
		struct ev_error ignored;
		ev_error_clear(&ignored);
		if (doc && pid > 0 && ev_proc_start_ticks((pid_t)pid, &ticks, &ignored) == EV_OK && ticks == want) {
			json_array_append_new(out, doc);
		} else {
			json_decref(doc);
			unlink(file);
		}
	}
	closedir(d);
	return out;
}

/* Live tickets of the queue, in the order served. A ticket nobody holds
 * locked is a dead waiter's: removed. */
static json_t *live_tickets(const char *dir)
{
	char path[PATH_MAX];
	json_t *out = json_array();
	if (ev_path_join(path, sizeof path, dir, "queue") != 0)
		return out;
	struct dirent **names = NULL;
	int n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char file[PATH_MAX + 300];
		if (ev_path_join(file, sizeof file, path, names[i]->d_name) != 0) {
			free(names[i]);
			continue;
		}
		size_t len = strlen(names[i]->d_name);
		/* a ticket being written is locked before its name appears */
		if (names[i]->d_name[0] != '.' && !(len > 4 && strcmp(names[i]->d_name + len - 4, ".tmp") == 0)) {
			int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
			if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) == 0) {
				unlink(file);
			} else if (fd >= 0) {
				json_t *doc = load_entry(file);
				if (doc) {
					json_object_set_new(doc, "ticket", json_string(names[i]->d_name));
					json_array_append_new(out, doc);
				}
			}
			if (fd >= 0)
				close(fd);
		}
		free(names[i]);
	}
	free(names);
	return out;
}

static void release_fds(struct ev_lease *l)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (l->fds[c] >= 0) {
			close(l->fds[c]);
			l->fds[c] = -1;
		}
}

/* Every CPU's lock, in ascending order, without waiting. @return -1 when
 * all are held, else the CPU that is not to be had (nothing kept). */
static int try_locks(struct ev_lease *l, struct ev_error *err, ev_status *st)
{
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &l->cpus))
			continue;
		char path[PATH_MAX + 32];
		snprintf(path, sizeof path, "%s/cpu-%d.lock", l->dir, c);
		int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0) {
			*st = ev_error_errno(err, errno, "%s: cannot open the lock of CPU %d", path, c);
			release_fds(l);
			return c;
		}
		if (flock(fd, (l->mode == EV_LEASE_EXCLUSIVE ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
			close(fd);
			release_fds(l);
			return c;
		}
		l->fds[c] = fd;
	}
	return -1;
}

static void describe(const json_t *who, int cpu, const char *what, char *out, size_t cap)
{
	snprintf(out, cap, "CPU %d is %s by %s (PID %lld, %s, since %s)", cpu, what,
		 json_string_value(json_object_get(who, "command")) ?: "?",
		 (long long)json_integer_value(json_object_get(who, "pid")),
		 json_string_value(json_object_get(who, "mode")) ?: "?",
		 json_string_value(json_object_get(who, "since")) ?: "?");
}

static void utc(const struct timespec *t, char *out, size_t cap)
{
	struct tm tm;
	gmtime_r(&t->tv_sec, &tm);
	strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *entry_json(const struct ev_lease *l, const char *command)
{
	char cpus[1024], since[32];
	uint64_t ticks = 0;
	struct ev_error ignored;
	ev_error_clear(&ignored);
	ev_proc_start_ticks(getpid(), &ticks, &ignored);
	ev_cpulist_format(&l->cpus, cpus, sizeof cpus);
	utc(&l->since, since, sizeof since);
	return json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s}", "pid", (json_int_t)getpid(), "start_ticks",
			 (json_int_t)ticks, "command", command, "since", since, "mode",
			 l->mode == EV_LEASE_EXCLUSIVE ? "exclusive" : "shared", "priority",
			 l->priority == EV_LEASE_HIGH ? "high" : "normal", "cpus", cpus);
}

static ev_status write_entry(const char *path, const json_t *doc, struct ev_error *err)
{
	char *text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	char tmp[PATH_MAX + 80];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	int fd = text ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	ev_status st = EV_OK;
	if (fd < 0)
		st = ev_error_errno(err, text ? errno : ENOMEM, "%s: cannot write", path);
	else if ((st = ev_write_all(fd, text, strlen(text), tmp, err)) != EV_OK)
		ev_error_wrap(err, "%s: cannot write", path);
	if (fd >= 0 && close(fd) != 0 && st == EV_OK)
		st = ev_error_errno(err, errno, "%s: cannot write", path);
	if (st == EV_OK && rename(tmp, path) != 0)
		st = ev_error_errno(err, errno, "%s: cannot write", path);
	if (st != EV_OK && fd >= 0)
		unlink(tmp);
	free(text);
	return st;
}

/* The ticket, flocked before its name appears: a waiter that sees it
 * unlocked may take it for a dead waiter's. @return its descriptor, or -1
 * (err set). */
static int hold_ticket(const char *path, const json_t *doc, struct ev_error *err)
{
	char tmp[PATH_MAX + 160];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	char *text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	int fd = text ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	ev_status st = EV_OK;
	if (fd < 0 || flock(fd, LOCK_EX) != 0)
		st = ev_error_errno(err, text ? errno : ENOMEM, "%s: cannot hold a place in the queue", path);
	else if ((st = ev_write_all(fd, text, strlen(text), tmp, err)) != EV_OK)
		ev_error_wrap(err, "%s: cannot hold a place in the queue", path);
	else if (rename(tmp, path) != 0)
		st = ev_error_errno(err, errno, "%s: cannot hold a place in the queue", path);
	if (st != EV_OK) {
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		fd = -1;
	}
	free(text);
	return fd;
}

ev_status ev_lease_take(struct ev_lease *l, const cpu_set_t *cpus, enum ev_lease_mode mode,
			enum ev_lease_priority priority, int wait, const char *command,
			volatile sig_atomic_t *stop, ev_lease_wait_fn waiting, void *ctx, struct ev_error *err)
{
	memset(l, 0, sizeof *l);
	for (int c = 0; c < CPU_SETSIZE; c++)
		l->fds[c] = -1;
	snprintf(l->dir, sizeof l->dir, "%s", ev_lease_dir());
	l->cpus = *cpus;
	l->mode = mode;
	l->priority = priority;
	clock_gettime(CLOCK_REALTIME, &l->since);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ev_status st = open_registry(l->dir, err);
	if (st != EV_OK)
		return st;
	/* the ticket: where this request stands in the queue */
	char ticket[PATH_MAX + 128] = "";
	int ticket_fd = -1;
	snprintf(ticket, sizeof ticket, "%s/queue/%d-%010lld.%09ld-%d", l->dir, priority == EV_LEASE_HIGH ? 0 : 1,
		 (long long)l->since.tv_sec, l->since.tv_nsec, (int)getpid());
	json_t *me = entry_json(l, command);
	if ((ticket_fd = hold_ticket(ticket, me, err)) < 0)
		st = err->status;
	const char *mine = strrchr(ticket, '/') + 1;
	int told = 0;
	while (st == EV_OK) {
		char why[1024] = "";
		json_t *tickets = live_tickets(l->dir), *t;
		size_t i;
		json_array_foreach(tickets, i, t) {
			cpu_set_t want;
			int cpu;
			const char *name = json_string_value(json_object_get(t, "ticket"));
			if (strcmp(name, mine) >= 0 || !entry_cpus(t, &want) || !overlaps(&want, &l->cpus, &cpu))
				continue;
			/* two shared requests never wait for each other */
			if (mode == EV_LEASE_SHARED && strcmp(json_string_value(json_object_get(t, "mode")) ?: "", "shared") == 0)
				continue;
			describe(t, cpu, "wanted first", why, sizeof why);
			break;
		}
		json_decref(tickets);
		if (!why[0]) {
			int busy = try_locks(l, err, &st);
			if (st != EV_OK)
				break;
			if (busy < 0) {
				l->held = 1;
				break;
			}
			json_t *holders = live_holders(l->dir), *h;
			snprintf(why, sizeof why, "CPU %d is held (its holder left no description)", busy);
			json_array_foreach(holders, i, h) {
				cpu_set_t held;
				int cpu;
				if (entry_cpus(h, &held) && CPU_ISSET(busy, &held) && overlaps(&held, &l->cpus, &cpu)) {
					describe(h, busy, "held", why, sizeof why);
					break;
				}
			}
			json_decref(holders);
		}
		if (!wait) {
			st = ev_error_set(err, EV_REFUSED, "%s", why);
			break;
		}
		if (!told && waiting) {
			waiting(ctx, why);
			told = 1;
		}
		for (int k = 0; k < 10 && !(stop && *stop); k++) {
			struct timespec tick = {0, 50 * 1000 * 1000};
			nanosleep(&tick, NULL);
		}
		if (stop && *stop)
			st = ev_error_set(err, EV_INTERRUPTED, "interrupted while waiting for CPUs: nothing was done");
	}
	if (ticket_fd >= 0)
		close(ticket_fd);
	unlink(ticket);
	if (st == EV_OK && l->held) {
		struct timespec t1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		l->waited_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		clock_gettime(CLOCK_REALTIME, &l->since);
		json_decref(me);
		me = entry_json(l, command);
		snprintf(l->holder, sizeof l->holder, "%s/holders/%d-%lld.json", l->dir, (int)getpid(),
			 (long long)json_integer_value(json_object_get(me, "start_ticks")));
		if ((st = write_entry(l->holder, me, err)) != EV_OK)
			ev_lease_release(l);
	} else {
		release_fds(l);
	}
	json_decref(me);
	return st;
}

void ev_lease_release(struct ev_lease *l)
{
	if (l->holder[0])
		unlink(l->holder);
	l->holder[0] = 0;
	release_fds(l);
	l->held = 0;
}

json_t *ev_lease_json(const struct ev_lease *l)
{
	char cpus[1024], since[32];
	ev_cpulist_format(&l->cpus, cpus, sizeof cpus);
	utc(&l->since, since, sizeof since);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "dir", l->dir, "mode",
			 l->mode == EV_LEASE_EXCLUSIVE ? "exclusive" : "shared", "priority",
			 l->priority == EV_LEASE_HIGH ? "high" : "normal", "cpus", cpus, "since", since, "waited_seconds",
			 ev_json_decimal_of(l->waited_s, 3));
}

json_t *ev_lease_list(const char *dir, struct ev_error *err)
{
	struct stat st;
	if (stat(dir, &st) != 0) {
		if (errno == ENOENT)
			return json_pack("{s:[], s:[]}", "holders", "waiting");
		ev_error_errno(err, errno, "%s: cannot read the lease registry", dir);
		return NULL;
	}
	json_t *tickets = live_tickets(dir), *t;
	size_t i;
	json_array_foreach(tickets, i, t)
		json_object_del(t, "start_ticks");
	return json_pack("{s:o, s:o}", "holders", live_holders(dir), "waiting", tickets);
}
