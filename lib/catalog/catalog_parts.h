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

/* A seal's rows (row_root, row_digests sorted) held to its document
 * (body, which must hash to hex): *root and *digests (sorted, each once;
 * caller frees both) are the document's; doubt is empty when the rows
 * agree, else says why not (catalog_believe.c). */
ev_status ev_catalog_seal_believed(const char *hex, const char *body, const char *row_root,
				   char (*row_digests)[65], size_t nrow, char **root, char (**digests)[65], size_t *n,
				   char *doubt, size_t cap, struct ev_error *err);

#endif
