/* capture: pin and run native pairs, and record everything that could
 * change a result. */
#include "config.h"

#include "capture/capture.h"

static const char overview[] =
	"usage: capture <command> [options]\n"
	"\n"
	"Run a latency campaign's native pairs (a sender and its peer, fresh processes on\n"
	"their own CPUs, in network namespaces of their own, in a balanced order) and\n"
	"record everything that could change a result.\n"
	"\n"
	"commands:\n"
	"  run PLAN -o DIR        run (or resume) the campaign of PLAN in DIR\n"
	"  pin PLAN -o PINNED     pin every program the plan runs by its SHA-256\n"
	"\n"
	"'capture help <command>' describes each one; 'man capture' has the details.\n"
	"Exit status: 0 every run held, 1 a run failed (the receipt says which),\n"
	"2 usage, refused plan, environment error or interrupted (nothing is claimed).\n";

int main(int argc, char **argv)
{
	static const struct ev_cli_command commands[] = {
		{"pin", capture_pin_main},
		{"run", capture_run_main},
	};
	return ev_cli_main(TOOL, overview, commands, sizeof commands / sizeof *commands, msg_usage,
			   argc, argv);
}
