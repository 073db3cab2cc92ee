/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/hashpipe.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	unsigned char *data;
	const unsigned char *ref; /* the producer's own bytes, when not copied into data */
	size_t len;
	int last;
	uint8_t *digest_out;
};

struct ev_hashpipe {
	pthread_mutex_t mu;
	pthread_cond_t has_data, has_space;
	struct slot *slots;
	size_t nslots, head, tail, count;
	uint64_t published, hashed; /* slots so far: tickets */
	int closing, running;
	int hasher_idle;  /* the hasher waits for data */
	size_t wake_at;   /* wake an idle hasher once this many slots wait, or a member ends */
	pthread_t thread;
	struct ev_sha256 *sha;
	struct ev_error err; /* written by the hasher, read after a lock */
};

static void *hasher_main(void *arg)
{
	struct ev_hashpipe *p = arg;
	struct ev_error local;
	ev_error_clear(&local);
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (p->count == 0 && !p->closing) {
			p->hasher_idle = 1;
			pthread_cond_wait(&p->has_data, &p->mu);
			p->hasher_idle = 0;
		}
		if (p->count == 0) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		struct slot *s = &p->slots[p->tail];
		pthread_mutex_unlock(&p->mu);

		if (local.status == EV_OK) {
			ev_sha256_update(p->sha, s->ref ? s->ref : s->data, s->len, &local);
			if (s->last) {
				ev_sha256_final(p->sha, s->digest_out, &local);
				ev_sha256_reset(p->sha, &local);
			}
		}

		pthread_mutex_lock(&p->mu);
		if (local.status != EV_OK && p->err.status == EV_OK)
			p->err = local;
		p->tail = (p->tail + 1) % p->nslots;
		p->count--;
		p->hashed++;
		pthread_cond_signal(&p->has_space);
		pthread_mutex_unlock(&p->mu);
	}
}

ev_status ev_hashpipe_new(struct ev_hashpipe **out, size_t slots, size_t slot_bytes,
			  struct ev_error *err)
{
	struct ev_hashpipe *p = calloc(1, sizeof *p);
	if (!p)
		return ev_error_set(err, EV_ERROR, "out of memory");
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->has_data, NULL);
	pthread_cond_init(&p->has_space, NULL);
	ev_error_clear(&p->err);
	p->nslots = slots;
	/* a wake-up costs the producer a system call: with many small slots
	 * (references into a decoder's blocks), wake the hasher for a batch */
	p->wake_at = slots / 4 ? slots / 4 : 1;
	p->slots = calloc(slots, sizeof *p->slots);
	p->sha = ev_sha256_new();
	int ok = p->slots && p->sha;
	for (size_t i = 0; ok && i < slots; i++)
		ok = (p->slots[i].data = malloc(slot_bytes)) != NULL;
	if (!ok) {
		ev_hashpipe_free(p);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if (pthread_create(&p->thread, NULL, hasher_main, p) != 0) {
		ev_hashpipe_free(p);
		return ev_error_set(err, EV_ERROR, "cannot start the hashing thread");
	}
	p->running = 1;
	*out = p;
	return EV_OK;
}

unsigned char *ev_hashpipe_buffer(struct ev_hashpipe *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->count == p->nslots) {
		pthread_cond_signal(&p->has_data);
		pthread_cond_wait(&p->has_space, &p->mu);
	}
	unsigned char *data = p->slots[p->head].data;
	pthread_mutex_unlock(&p->mu);
	return data;
}

static uint64_t publish_locked(struct ev_hashpipe *p, const unsigned char *ref, size_t len, int last,
			       uint8_t *digest_out)
{
	struct slot *s = &p->slots[p->head];
	s->ref = ref;
	s->len = len;
	s->last = last;
	s->digest_out = digest_out;
	p->head = (p->head + 1) % p->nslots;
	p->count++;
	if (p->hasher_idle && (p->count >= p->wake_at || last))
		pthread_cond_signal(&p->has_data);
	return ++p->published;
}

void ev_hashpipe_publish(struct ev_hashpipe *p, size_t len, int last,
			 uint8_t digest_out[EV_SHA256_LEN])
{
	pthread_mutex_lock(&p->mu);
	publish_locked(p, NULL, len, last, digest_out);
	pthread_mutex_unlock(&p->mu);
}

uint64_t ev_hashpipe_publish_ref(struct ev_hashpipe *p, const void *data, size_t len, int last,
				 uint8_t digest_out[EV_SHA256_LEN])
{
	pthread_mutex_lock(&p->mu);
	while (p->count == p->nslots) {
		pthread_cond_signal(&p->has_data);
		pthread_cond_wait(&p->has_space, &p->mu);
	}
	uint64_t ticket = publish_locked(p, data, len, last, digest_out);
	pthread_mutex_unlock(&p->mu);
	return ticket;
}

void ev_hashpipe_wait(struct ev_hashpipe *p, uint64_t ticket)
{
	pthread_mutex_lock(&p->mu);
	while (p->hashed < ticket && p->running) {
		pthread_cond_signal(&p->has_data);
		pthread_cond_wait(&p->has_space, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
}

ev_status ev_hashpipe_status(struct ev_hashpipe *p, struct ev_error *err)
{
	pthread_mutex_lock(&p->mu);
	struct ev_error copy = p->err;
	pthread_mutex_unlock(&p->mu);
	if (copy.status == EV_OK)
		return EV_OK;
	return ev_error_set(err, copy.status, "%s", copy.text);
}

ev_status ev_hashpipe_finish(struct ev_hashpipe *p, struct ev_error *err)
{
	if (p->running) {
		pthread_mutex_lock(&p->mu);
		p->closing = 1;
		pthread_cond_signal(&p->has_data);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
		p->running = 0;
	}
	return ev_hashpipe_status(p, err);
}

void ev_hashpipe_free(struct ev_hashpipe *p)
{
	if (!p)
		return;
	struct ev_error ignored;
	ev_error_clear(&ignored);
	ev_hashpipe_finish(p, &ignored);
	for (size_t i = 0; p->slots && i < p->nslots; i++)
		free(p->slots[i].data);
	free(p->slots);
	ev_sha256_free(p->sha);
	pthread_cond_destroy(&p->has_data);
	pthread_cond_destroy(&p->has_space);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
