// SPDX-License-Identifier: GPL-2.0-or-later
/* PLACEHOLDER, replaced by the real pghotd. Not a finished daemon. */
#include <stdio.h>
int main(void)
{
	fprintf(stderr, "pghotd: not built yet\n");
	return 1;
}
