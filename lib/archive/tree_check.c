/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/archive/tree_check.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/sha256.h"
#include "lib/archive/tree.h"
#include "lib/core/grow.h"

/* Ancestors of the expected members: directories a subset copy must hold
 * even when they were not selected. Sorted for bsearch. */
struct ancestors {
	char **paths;
	size_t count;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect_ancestors(const struct ev_seal *expected, struct ancestors *an)
{
	size_t cap = 0;
	memset(an, 0, sizeof *an);
	for (size_t i = 0; i < expected->count; i++) {
		const char *p = expected->members[i].path;
		for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
			if (ev_grow_array(&an->paths, &cap, an->count + 1, sizeof *an->paths) != 0)
				return -1;
			if (!(an->paths[an->count++] = strndup(p, (size_t)(s - p))))
				return -1;
		}
	}
	if (an->count > 1)
		qsort(an->paths, an->count, sizeof *an->paths, cmp_str);
	return 0;
}

static int is_ancestor(const struct ancestors *an, const char *path)
{
	return an->count && bsearch(&path, an->paths, an->count, sizeof *an->paths, cmp_str);
}

static void free_ancestors(struct ancestors *an)
{
	for (size_t i = 0; i < an->count; i++)
		free(an->paths[i]);
	free(an->paths);
}

/* The files to hash, hashed on every usable core while the merge walk
 * reports in seal order: the walk is made twice, once to list the jobs and
 * once to report, waiting for each job's result as it comes to it. Workers
 * take jobs in that same order, so the walk waits for the oldest. */
enum job_state { JOB_PENDING, JOB_DONE, JOB_UNOPENED, JOB_FAILED };

struct hash_job {
	size_t entry;        /* index in tree.entries; its m.sha256 is the result */
	uint64_t size;       /* bytes read */
	enum job_state state;
	int open_errno;      /* JOB_UNOPENED */
	struct ev_error *err; /* JOB_FAILED, allocated only then */
};

struct hashers {
	pthread_mutex_t mu;
	pthread_cond_t done;
	struct ev_tree *tree;
	struct hash_job *jobs;
	size_t count, next;
	volatile sig_atomic_t stop; /* the walk is over early: take no more jobs */
	pthread_t *threads;
	size_t started;
};

static void *hasher_main(void *arg)
{
	struct hashers *h = arg;
	for (;;) {
		pthread_mutex_lock(&h->mu);
		if (h->stop || h->next == h->count) {
			pthread_mutex_unlock(&h->mu);
			return NULL;
		}
		struct hash_job *job = &h->jobs[h->next++];
		pthread_mutex_unlock(&h->mu);

		struct ev_member *m = &h->tree->entries[job->entry].m;
		enum job_state state = JOB_DONE;
		int open_errno = 0;
		struct ev_error local, *failure = NULL;
		ev_error_clear(&local);
		int fd = ev_tree_open_member(h->tree, m->path);
		if (fd < 0) {
			state = JOB_UNOPENED;
			open_errno = errno;
		} else {
			if (ev_sha256_fd_until(fd, m->path, m->sha256, &job->size, &h->stop, &local) != EV_OK) {
				state = JOB_FAILED;
				if ((failure = malloc(sizeof *failure)))
					*failure = local;
			}
			close(fd);
		}

		pthread_mutex_lock(&h->mu);
		job->state = state;
		job->open_errno = open_errno;
		job->err = failure;
		pthread_cond_broadcast(&h->done);
		pthread_mutex_unlock(&h->mu);
	}
}

/* CPUs this process may run on (its affinity: a shared pool narrows it). */
static size_t usable_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return (size_t)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

static ev_status hashers_start(struct hashers *h, struct ev_error *err)
{
	size_t n = usable_cpus();
	if (n > h->count)
		n = h->count;
	if (n == 0)
		return EV_OK;
	if (!(h->threads = calloc(n, sizeof *h->threads)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (; h->started < n; h->started++)
		if (pthread_create(&h->threads[h->started], NULL, hasher_main, h) != 0)
			break;
	if (h->started == 0)
		return ev_error_set(err, EV_ERROR, "cannot start a hashing thread");
	return EV_OK;
}

/* Wait until job k is over, or a signal came. @return 0 done, -1 interrupted. */
static int hashers_wait(struct hashers *h, size_t k, volatile sig_atomic_t *interrupted)
{
	int over = 0;
	pthread_mutex_lock(&h->mu);
	while (h->jobs[k].state == JOB_PENDING && !(interrupted && *interrupted)) {
		/* a signal does not wake a condition wait: look every 20 ms */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 20 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->done, &h->mu, &until);
	}
	over = h->jobs[k].state != JOB_PENDING;
	pthread_mutex_unlock(&h->mu);
	return over ? 0 : -1;
}

static void hashers_stop(struct hashers *h)
{
	h->stop = 1;
	for (size_t i = 0; i < h->started; i++)
		pthread_join(h->threads[i], NULL);
	for (size_t i = 0; i < h->count; i++)
		free(h->jobs[i].err);
	free(h->threads);
	free(h->jobs);
	pthread_cond_destroy(&h->done);
	pthread_mutex_destroy(&h->mu);
}

/* The walk: expected members against the tree's entries, both sorted.
 * Without h->jobs it lists the jobs; with them it reports. */
static ev_status walk(struct ev_tree *tree, const struct ev_seal *expected, int subset,
		      const struct ancestors *an, struct hashers *h, int reporting,
		      ev_finding_fn on_finding, void *ctx, const struct ev_meter *progress,
		      volatile sig_atomic_t *interrupted, struct ev_error *err)
{
	size_t i = 0, j = 0, k = 0;
	while (i < expected->count || j < tree->count) {
		int c = i == expected->count ? 1
			: j == tree->count   ? -1
					     : strcmp(expected->members[i].path, tree->entries[j].m.path);
		if (c < 0) {
			const struct ev_member *m = &expected->members[i++];
			if (reporting)
				ev_finding_emit(on_finding, ctx, m->path, "missing", "missing",
						ev_member_type_name(m->type), NULL);
			continue;
		}
		if (c > 0) {
			const struct ev_tree_entry *e = &tree->entries[j++];
			if (subset && e->m.type == EV_MEMBER_DIR && is_ancestor(an, e->m.path))
				continue;
			if (reporting)
				ev_finding_emit(on_finding, ctx, e->m.path, "extra", "not in the seal", NULL,
						ev_member_type_name(e->m.type));
			continue;
		}
		const struct ev_member *want = &expected->members[i++];
		size_t entry = j++;
		int to_hash = want->type == EV_MEMBER_FILE && tree->entries[entry].m.type == EV_MEMBER_FILE &&
			      want->size == tree->entries[entry].m.size;
		if (!reporting) {
			if (to_hash)
				h->jobs[h->count++].entry = entry;
			continue;
		}
		int hashed = 0;
		if (to_hash) {
			struct hash_job *job = &h->jobs[k++];
			if (hashers_wait(h, k - 1, interrupted) != 0)
				return ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed",
						    tree->entries[entry].m.path);
			if (job->state == JOB_UNOPENED) {
				ev_finding_emit(on_finding, ctx, tree->entries[entry].m.path, "unreadable",
						"cannot be read", NULL, strerror(job->open_errno));
				continue;
			}
			if (job->state == JOB_FAILED)
				return job->err ? ev_error_set(err, job->err->status, "%s", job->err->text)
						: ev_error_set(err, EV_ERROR, "out of memory");
			tree->entries[entry].m.size = job->size;
			hashed = 1;
			ev_meter_advance(progress, job->size, 0);
		}
		ev_member_compare(want, &tree->entries[entry].m, hashed, on_finding, ctx);
		ev_meter_advance(progress, 0, 1);
		if (interrupted && *interrupted)
			return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing claimed");
	}
	return EV_OK;
}

ev_status ev_tree_check(const char *dir, const struct ev_seal *expected, int subset,
			ev_finding_fn on_finding, void *ctx, const struct ev_meter *progress,
			volatile sig_atomic_t *interrupted, struct ev_error *err)
{
	struct ev_tree tree = {.rootfd = -1};
	struct ancestors an = {0};
	struct hashers h = {.tree = &tree};
	pthread_mutex_init(&h.mu, NULL);
	pthread_cond_init(&h.done, NULL);
	ev_status st = ev_tree_scan(dir, &tree, on_finding, ctx, err);
	if (st != EV_OK)
		goto out;
	if ((subset && collect_ancestors(expected, &an) != 0) ||
	    !(h.jobs = calloc(tree.count ? tree.count : 1, sizeof *h.jobs))) {
		st = ev_error_set(err, EV_ERROR, "out of memory");
		goto out;
	}
	walk(&tree, expected, subset, &an, &h, 0, NULL, NULL, NULL, NULL, err);
	if ((st = hashers_start(&h, err)) != EV_OK)
		goto out;
	st = walk(&tree, expected, subset, &an, &h, 1, on_finding, ctx, progress, interrupted, err);
out:
	hashers_stop(&h);
	free_ancestors(&an);
	ev_tree_free(&tree);
	return st;
}

json_t *ev_tree_coverage(int subset, int seal_pinned, char *line, size_t cap)
{
	json_t *o = json_object(), *done = json_array(), *pins = json_array(), *not = json_array();
	json_array_append_new(done, json_string(subset ? "the SHA-256, size, mode and type of every selected member"
						       : "the SHA-256, size, mode and type of every sealed member"));
	if (!subset)
		json_array_append_new(done, json_string("every entry of the tree walked: none extra, none missing, no link "
							"or special file"));
	json_array_append_new(pins, json_string(seal_pinned ? "SEAL.json pinned by --seal-sha256"
							    : "SEAL.json not pinned: it is trusted as given (--seal-sha256 pins it)"));
	json_array_append_new(not, json_string("owners, groups, modification times, extended attributes and ACLs: "
					       "the seal does not hold them"));
	if (subset)
		json_array_append_new(not, json_string("the tree's other entries: a selection looks only for its members"));
	json_object_set_new(o, "recomputed", done);
	json_object_set_new(o, "pinned", pins);
	json_object_set_new(o, "not_checked", not);
	json_object_set_new(o, "not_read", json_string("none: every byte of every member was read"));
	snprintf(line, cap, "checked every %s member's content, size, mode and type%s; not checked: owners and "
		 "times (not sealed)%s%s", subset ? "selected" : "sealed", subset ? "" : ", and nothing else is there",
		 seal_pinned ? "" : "; SEAL.json not pinned", subset ? "; entries outside the selection" : "");
	return o;
}
