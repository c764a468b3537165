// SPDX-License-Identifier: GPL-2.0-or-later
/* PLACEHOLDER, replaced by the real 'pghot bench'. Not a finished command. */
#include <stdio.h>
#include "cmd/pghot/cmds.h"
int cmd_bench(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "pghot bench: not built yet\n");
	return 1;
}
