/* SPDX-License-Identifier: Apache-2.0 */
/* catalog_add: what a command published, added to the catalog its user
 * configured (EVIDENCE_CATALOG), once the command is done: every receipt,
 * seal and summary among the files and in the directories it put in
 * place. A catalog that cannot take them is said on stderr and changes
 * nothing of the command's outcome: the receipt is written, and
 * `replicate index` adds it later.
 *
 * Process-wide: ev_cli_main calls watch before the command and add after
 * it, once each.
 */
#ifndef EV_CLI_CATALOG_ADD_H
#define EV_CLI_CATALOG_ADD_H

/* Start keeping the paths published (lib/core/publish), when a catalog is
 * configured; otherwise nothing. */
void ev_cli_catalog_watch(void);

/* Index what was kept, unless the command claimed nothing (exit 2) or a
 * signal stopped it; tool names the tool in what is said. */
void ev_cli_catalog_add(const char *tool, int exit_code);

#endif
