/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "lib/core/hash_job.h"
#include "lib/core/input.h"

void ev_hash_job_init(struct ev_hash_job *j, const char *path, const char *kind, volatile sig_atomic_t *interrupted)
{
	memset(j, 0, sizeof *j);
	j->path = path;
	j->kind = kind;
	j->interrupted = interrupted;
	ev_error_clear(&j->err);
}

static void *hash_job_run(void *arg)
{
	struct ev_hash_job *j = arg;
	int fd = ev_input_open(j->path, j->kind, &j->err);
	if (fd < 0) {
		j->st = j->err.status;
	} else {
		/* a signal stops the hashing too, so that the command can end */
		j->st = ev_sha256_fd_until(fd, j->path, j->digest, NULL, j->interrupted, &j->err);
		close(fd);
	}
	j->done = 1;
	return NULL;
}

void ev_hash_job_start(struct ev_hash_job *j)
{
	j->started = pthread_create(&j->thread, NULL, hash_job_run, j) == 0;
}

void ev_hash_job_wait(struct ev_hash_job *j)
{
	if (j->started)
		pthread_join(j->thread, NULL);
	j->started = 0;
}

ev_status ev_hash_job_finish(struct ev_hash_job *j, char hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err)
{
	ev_hash_job_wait(j);
	if (!j->done) /* no thread could be had: hashed here */
		hash_job_run(j);
	if (j->st != EV_OK)
		return ev_error_set(err, j->st, "%s", j->err.text);
	ev_sha256_hex(j->digest, hex);
	return EV_OK;
}
