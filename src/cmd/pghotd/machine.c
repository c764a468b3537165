// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pipeline's effects on this machine: page lookups and moves through
 * the migrator backend, node memory from sysfs (and the promotion
 * watermarks from zoneinfo, every 10 s: they move only with memory hotplug
 * or sysctls), log lines to pghotd's log.
 */
#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"

#define WMARK_REFRESH_MS 10000

static int m_lookup(void *arg, const struct pl_proc *p, const uint64_t *addrs,
		    size_t n, struct pl_page *ret)
{
	struct machine *m = arg;

	return migrator_lookup(m->mig, p, addrs, n, ret);
}

static int m_move(void *arg, const struct pl_proc *p, const uint64_t *addrs,
		  const int *to, size_t n, enum pghot_move_status *ret)
{
	struct machine *m = arg;

	return migrator_move(m->mig, p, addrs, to, n, ret);
}

static int m_node_mem(void *arg, struct pl_node *nodes, size_t n)
{
	struct machine *m = arg;
	int err = topology_refresh_mem(m->sysfs_root, m->topo);

	if (*m->now_ms >= m->next_wmark_ms) {
		topology_read_wmarks(m->procfs_root, m->topo);
		m->next_wmark_ms = *m->now_ms + WMARK_REFRESH_MS;
	}
	for (size_t i = 0; i < n; i++) {
		const struct topo_node *tn = topology_node(m->topo, nodes[i].nid);

		if (!tn)
			continue;
		nodes[i].total_bytes = tn->mem_total_bytes;
		nodes[i].free_bytes = tn->mem_free_bytes;
		nodes[i].wmark_bytes = tn->wmark_bytes;
	}
	return err;
}

const struct pl_ops machine_pl_ops = {
	.lookup = m_lookup,
	.move = m_move,
	.node_mem = m_node_mem,
	.log = log_cb,
};

void machine_pl_nodes(const struct topology *topo, struct pl_node *ret)
{
	for (size_t i = 0; i < topo->nr_nodes; i++) {
		const struct topo_node *n = &topo->nodes[i];

		ret[i] = (struct pl_node){
			.nid = n->nid,
			.has_memory = n->has_memory,
			.lower = n->lower,
			.demote_to = n->lower ? -1 : topology_nearest_lower(topo, n->nid),
			.total_bytes = n->mem_total_bytes,
			.free_bytes = n->mem_free_bytes,
			.wmark_bytes = n->wmark_bytes,
		};
	}
}
