/* SPDX-License-Identifier: Apache-2.0 */
/* capture: pin and run native pairs, and record everything that could
 * change a result. */
#include "config.h"

#include "capture/capture.h"
#include "lib/cli/dispatch.h"

int main(int argc, char **argv)
{
	return ev_cli_main(&capture_tool, argc, argv);
}
