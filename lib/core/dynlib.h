/* SPDX-License-Identifier: Apache-2.0 */
/* dynlib: a shared library opened when a command first needs it, not by
 * the dynamic loader at every start. libpq and libcurl bring about thirty
 * shared objects of their own (Kerberos, LDAP, SASL, GnuTLS, ...); loaded
 * at start, they cost every process over a third of its start (8 ms of 21
 * on the suite's 2-core VM, 15 of 53 under ASan) for a PostgreSQL catalog
 * or an HTTP timestamp that most commands never touch. A library is
 * opened once per process and never closed. */
#ifndef EV_DYNLIB_H
#define EV_DYNLIB_H

#include <pthread.h>
#include <stddef.h>

#include "lib/core/status.h"

struct ev_dynlib_symbol {
	const char *name; /* as the library exports it */
	void **slot;      /* a function pointer of the header's type, written as POSIX's dlsym advises */
};

/* One library: what it is, what needs it, its symbols; the rest is
 * ev_dynlib_load's. Define it static with EV_DYNLIB. */
struct ev_dynlib {
	const char *soname;     /* its ABI's name, e.g. "libpq.so.5" */
	const char *package;    /* the Debian package that installs it */
	const char *needed_for; /* e.g. "a PostgreSQL catalog" */
	const struct ev_dynlib_symbol *symbols;
	size_t nsymbols;
	pthread_mutex_t lock;
	int tried;
	ev_status status;
	char error[512];
};

#define EV_DYNLIB(soname, package, needed_for, symbols)                                                    \
	{                                                                                                  \
		(soname), (package), (needed_for), (symbols), sizeof(symbols) / sizeof((symbols)[0]),       \
			PTHREAD_MUTEX_INITIALIZER, 0, EV_OK, ""                                             \
	}

/* Open lib->soname and fill every symbol's slot; the first call does it,
 * later calls (any thread) return its answer. @return EV_OK, every slot
 * filled; EV_ERROR naming the library, the loader's reason, what needs it
 * and the package to install (no slot is used then). */
ev_status ev_dynlib_load(struct ev_dynlib *lib, struct ev_error *err);

#endif
