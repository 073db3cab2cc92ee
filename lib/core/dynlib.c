/* SPDX-License-Identifier: Apache-2.0 */
/* dynlib: open a library at its first use (dynlib.h). */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>

#include "lib/core/dynlib.h"

static ev_status load_once(struct ev_dynlib *lib)
{
	void *handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		const char *why = dlerror();
		snprintf(lib->error, sizeof lib->error, "%s could not be loaded (%s); %s needs it: install %s",
			 lib->soname, why ? why : "no reason given", lib->needed_for, lib->package);
		return EV_ERROR;
	}
	for (size_t i = 0; i < lib->nsymbols; i++) {
		dlerror();
		void *at = dlsym(handle, lib->symbols[i].name);
		if (!at) {
			const char *why = dlerror();
			snprintf(lib->error, sizeof lib->error,
				 "%s has no %s (%s): it is older than the one this program was built with; %s needs "
				 "a newer %s",
				 lib->soname, lib->symbols[i].name, why ? why : "no reason given", lib->needed_for,
				 lib->package);
			return EV_ERROR; /* left open: a library cannot be closed safely once a constructor ran */
		}
		*lib->symbols[i].slot = at;
	}
	return EV_OK;
}

ev_status ev_dynlib_load(struct ev_dynlib *lib, struct ev_error *err)
{
	pthread_mutex_lock(&lib->lock);
	if (!lib->tried) {
		lib->status = load_once(lib);
		lib->tried = 1;
	}
	ev_status st = lib->status;
	pthread_mutex_unlock(&lib->lock);
	if (st != EV_OK)
		return ev_error_set(err, st, "%s", lib->error);
	return EV_OK;
}
