/* plan_load: what the files that load a plan share (plan.c the top
 * level, arms, cells and sources; plan_side.c each side; plan_observers.c
 * the observers). Each refusal names the plan file, where in it, and what
 * was expected. Only capture/plan*.c include this. */
#ifndef CAPTURE_PLAN_LOAD_H
#define CAPTURE_PLAN_LOAD_H

#include <stdint.h>

#include <jansson.h>

#include "capture/plan.h"
#include "lib/core/status.h"

/* "PLAN: WHERE: WHAT" as EV_REFUSED. */
ev_status capture_plan_refuse(struct ev_error *err, const char *plan, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Every key of obj is one of allowed (NULL-terminated). */
ev_status capture_plan_only_keys(const json_t *obj, const char *const *allowed, const char *plan, const char *where,
				 struct ev_error *err);

/* An optional unsigned integer in [min, max], def when absent. */
ev_status capture_plan_get_count(const json_t *obj, const char *key, uint64_t def, uint64_t min, uint64_t max,
				 uint64_t *out, const char *plan, const char *where, struct ev_error *err);

/* 1 to 40 of A-Za-z0-9_.- (not starting with '-'). */
int capture_plan_valid_name(const char *s);

/* A required name under key. */
ev_status capture_plan_get_name(const json_t *obj, const char *key, const char **out, const char *plan,
				const char *where, struct ev_error *err);

/* An optional user or group name under key (*out NULL when absent). */
ev_status capture_plan_get_account(const json_t *obj, const char *key, const char **out, const char *plan,
				   const char *where, struct ev_error *err);

/* Side role (PLAN_SENDER or PLAN_PEER) of cell into s. */
ev_status capture_plan_load_side(json_t *cell, int role, struct plan_side *s, long ncpus, const char *plan,
				 const char *cell_name, struct ev_error *err);

/* "observers" into p. */
ev_status capture_plan_load_observers(struct plan *p, const char *path, struct ev_error *err);

#endif
