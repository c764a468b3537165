// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghotd's side of the DAMOS offload mode ([system] execution = damos): the
 * tiers for the plan from pghotd's topology and the calls daemon.c makes
 * (the kernel's own promoter and demoter beside DAMOS: coexist.c). The policy is damos_plan.c's, the kernel side
 * damos_mode.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"
#include "linux/damos_mode.h"

/* The tiers as the plan sees them: [engine] target_nid on top, the lower
 * tier's nodes with memory below; demotion goes to the nearest of them. */
static int damos_nodes_of(const struct daemon *d, struct damos_nodes *ret)
{
	const struct topology *t = &d->topo;
	struct damos_nodes n = { .top_nid = d->cfg.tun.target_nid, .demote_nid = -1 };

	for (size_t i = 0; i < t->nr_nodes; i++) {
		if (!t->nodes[i].lower || !t->nodes[i].has_memory)
			continue;
		if (n.nr_lower == DAMOS_MAX_LOWER)
			return log_ret(-E2BIG, LOG_ERR,
				       "execution = damos: more than %d lower-tier nodes; name at most %d in lower_tier_nodes",
				       DAMOS_MAX_LOWER, DAMOS_MAX_LOWER);
		n.lower[n.nr_lower++] = t->nodes[i].nid;
	}
	n.demote_nid = topology_nearest_lower(t, n.top_nid);
	if (n.demote_nid < 0 && n.nr_lower)
		n.demote_nid = n.lower[0];
	*ret = n;
	return 0;
}

int daemon_damos_open(struct daemon *d)
{
	struct damos_env env = {
		.sysfs_root = d->cfg.sysfs_root,
		.procfs_root = d->cfg.procfs_root,
		.run_dir = d->cfg.run_dir,
		.log = log_cb,
	};
	struct damos_nodes n;
	char err[1024];
	int ret = damos_nodes_of(d, &n);

	if (ret)
		return ret;
	cfg_format(&d->cfg, cfg_find("enabled_sources"), err, sizeof(err));
	log_info("execution = damos: the kernel finds and moves the pages; pghotd's sources (enabled_sources: %s), its engine, workers and [demotion] stay idle",
		 err[0] ? err : "none");
	ret = damos_mode_open(&env, &d->cfg.damos, &n, &d->damos, err, sizeof(err));
	if (ret)
		return log_ret(ret, LOG_ERR, "%s", err);
	return 0;
}

void daemon_damos_close(struct daemon *d)
{
	damos_mode_close(d->damos);
	d->damos = NULL;
}

int daemon_damos_apply(struct daemon *d, const struct pghotd_config *nc, char *errbuf,
		       size_t errlen)
{
	if (!d->damos || !memcmp(&nc->damos, &d->cfg.damos, sizeof(nc->damos)))
		return 0;
	return damos_mode_update(d->damos, &nc->damos, errbuf, errlen);
}

void daemon_damos_poll(struct daemon *d)
{
	int err = damos_mode_poll(d->damos);

	if (err != -ENOTRECOVERABLE)
		return;
	log_err("execution = damos: DAMON is no longer pghotd's (see above): nothing migrates through pghotd any more; stopping. Start pghotd again once the other DAMON user is done");
	d->exit_err = err;
	d->stop = true;
}
