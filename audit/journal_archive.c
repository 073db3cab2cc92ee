/* audit journal --archive: the journals read from a sealed archive. */
#include "config.h"

#include "audit/audit.h"
#include "audit/journal.h"

ev_status journal_from_archive(struct journal_run *run, struct ev_error *err)
{
	(void)run;
	return ev_error_set(err, EV_USAGE, "--archive is not built yet");
}
