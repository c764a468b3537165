// SPDX-License-Identifier: GPL-2.0-or-later
/* The loop's chores; see chores.h. */
#include "cmd/pghotd/chores.h"
#include "cmd/pghotd/daemon.h"

uint64_t chores_next_ms(const struct daemon *d, uint64_t now, uint64_t next)
{
	if (thp_rescan_pending(d))
		return now;
	if (d->coexist.next_ms < next)
		next = d->coexist.next_ms;
	return ctl_next_ms(d, next);
}

void chores_run(struct daemon *d, uint64_t now)
{
	thp_rescan_step(d, now);
	ctl_tick(d, now);
	coexist_tick(d, now);
}

void chores_release(struct daemon *d)
{
	thp_rescan_release(d);
}
