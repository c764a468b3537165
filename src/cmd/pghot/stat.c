// SPDX-License-Identifier: GPL-2.0-or-later
/* PLACEHOLDER, replaced by the real 'pghot stat'. Not a finished command. */
#include <stdio.h>
#include "cmd/pghot/cmds.h"
int cmd_stat(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "pghot stat: not built yet\n");
	return 1;
}
