/* SPDX-License-Identifier: Apache-2.0 */
/* hash_job: a file's SHA-256 taken on a thread of its own while the
 * caller reads it (a series: read twice from the page cache, on two
 * cores, instead of once after the other), looking at the stop flag
 * between reads.
 *
 * init, start; then finish (it waits for the thread, and hashes on the
 * caller's thread when no thread could be had) or, on a path that gives
 * up, wait: a started job that is neither leaves a thread running.
 */
#ifndef EV_HASH_JOB_H
#define EV_HASH_JOB_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

struct ev_hash_job {
	const char *path;
	const char *kind;   /* what path is, for ev_input_open's errors ("series") */
	uint8_t digest[EV_SHA256_LEN];
	ev_status st;
	struct ev_error err;
	pthread_t thread;
	int started, done;
	volatile sig_atomic_t *interrupted; /* the hashing stops when it is set */
};

void ev_hash_job_init(struct ev_hash_job *j, const char *path, const char *kind, volatile sig_atomic_t *interrupted);
void ev_hash_job_start(struct ev_hash_job *j);

/* Waits for the job (or runs it here); hex gets its digest.
 * @return EV_OK; the open's or the read's status, err naming the file;
 * EV_INTERRUPTED when the stop flag was set. */
ev_status ev_hash_job_finish(struct ev_hash_job *j, char hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err);

/* Waits for a started job without taking its result (a path that gave up
 * early); finish may still be called after it. */
void ev_hash_job_wait(struct ev_hash_job *j);

#endif
