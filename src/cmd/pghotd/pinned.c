// SPDX-License-Identifier: GPL-2.0-or-later
/* Explicit target pids pinned to their process; see pinned.h. */
#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"

void pinned_sync(struct daemon *d)
{
	if (pidpins_sync(&d->pins, d->cfg.procfs_root, d->cfg.pids,
			 d->cfg.nr_pids))
		log_err("out of memory pinning the target pids; keeping the old pins");
}

static void on_gone(void *arg, const struct pid_pin *p, const char *why)
{
	log_warn("target pid %d (%s) exited: dropped for good (pids = %d names that process; a new process with pid %d will not be managed)%s%s",
		 (int)p->pid, p->comm, (int)p->pid, (int)p->pid, why[0] ? ": " : "",
		 why);
}

void pinned_check(struct daemon *d, struct target_spec *spec)
{
	pidpins_check(&d->pins, d->cfg.procfs_root, on_gone, d);
	spec->pins = d->pins.v;
	spec->nr_pins = d->pins.n;
}
