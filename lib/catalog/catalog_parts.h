/* SPDX-License-Identifier: Apache-2.0 */
/* What catalog.c and catalog_index.c share: the connection. Not for other
 * rooms. */
#ifndef EV_CATALOG_PARTS_H
#define EV_CATALOG_PARTS_H

#include "lib/catalog/db.h"

struct ev_catalog {
	struct ev_db *db;
	char where[512]; /* as errors name it */
	char host[256];  /* this host's name, as rows carry it */
};

#endif
