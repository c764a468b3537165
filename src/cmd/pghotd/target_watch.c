// SPDX-License-Identifier: GPL-2.0-or-later
/* Pinned target pids, the target cgroup gone and back; see
 * target_watch.h. */
#include <stdio.h>
#include <string.h>

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

void cgroup_seen(struct daemon *d, bool present)
{
	bool was_gone = !strcmp(d->cgroup_gone, d->cfg.cgroup);

	if (present) {
		if (d->cgroup_gone[0] && was_gone)
			log_info("target cgroup '%s' is back: managing its processes again",
				 d->cfg.cgroup);
		d->cgroup_gone[0] = '\0';
		return;
	}
	if (!was_gone)
		log_warn("target cgroup '%s' is gone, managing the other targets (said again when it is back)",
			 d->cfg.cgroup);
	snprintf(d->cgroup_gone, sizeof(d->cgroup_gone), "%s", d->cfg.cgroup);
}
