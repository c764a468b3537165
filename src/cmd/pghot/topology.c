// SPDX-License-Identifier: GPL-2.0-or-later
/* PLACEHOLDER, replaced by the real 'pghot topology'. Not a finished command. */
#include <stdio.h>
#include "cmd/pghot/cmds.h"
int cmd_topology(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "pghot topology: not built yet\n");
	return 1;
}
