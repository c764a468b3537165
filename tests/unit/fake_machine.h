/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake machine for the pipeline, with no OS in it: processes whose pages
 * live on nodes, moves that change where they live and the nodes' free
 * memory, and a log that keeps the last lines. Used by the pipeline's unit
 * test and benchmark (header-only: each of them is one file).
 */
#ifndef PGHOT_TESTS_FAKE_MACHINE_H
#define PGHOT_TESTS_FAKE_MACHINE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pipeline.h"

#define FM_PAGE 4096ULL
#define FM_MAX_PROCS 8
#define FM_MAX_NODES 4

struct fm_proc {
	struct pl_proc id;
	uint64_t base;		/* first address, bytes */
	size_t npages;
	int8_t *nid;		/* node of each page, -1 not present */
	uint8_t *order;		/* folio order reported for the page */
	uint8_t *flags;		/* PL_PAGE_* reported for the page */
	bool gone;		/* lookups and moves answer -ESRCH */
};

struct fake_machine {
	struct fm_proc procs[FM_MAX_PROCS];
	size_t nprocs;
	uint64_t total[FM_MAX_NODES], used[FM_MAX_NODES];
	uint64_t filler[FM_MAX_NODES];	/* bytes other memory holds */
	/* what the pipeline did */
	uint64_t lookups, looked_up, moves, moved_up, moved_down, node_mem_calls;
	int perm_node;			/* moves to this node: -EACCES; -1 off */
	struct pl_proc last_move_proc;	/* the process of the last move call */
	bool move_mixed;		/* a move call named pages of another
					 * process's range */
	uint64_t last_lookup_addr[1024];
	size_t last_lookup_n;
	int nlogs;
	char last_log[512];
};

static struct fm_proc *fm_proc(struct fake_machine *m, pid_t pid)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].id.pid == pid)
			return &m->procs[i];
	return NULL;
}

/* A process of @npages pages at @base, all on @nid. */
static inline struct fm_proc *fm_add(struct fake_machine *m, pid_t pid,
				     uint64_t start_time, uint64_t base,
				     size_t npages, int nid)
{
	struct fm_proc *p = &m->procs[m->nprocs++];

	memset(p, 0, sizeof(*p));
	p->id.pid = pid;
	p->id.start_time = start_time;
	snprintf(p->id.comm, sizeof(p->id.comm), "proc%d", (int)pid);
	p->base = base;
	p->npages = npages;
	p->nid = malloc(npages);
	p->order = calloc(npages, 1);
	p->flags = calloc(npages, 1);
	for (size_t i = 0; i < npages; i++)
		p->nid[i] = (int8_t)nid;
	m->used[nid] += npages * FM_PAGE;
	return p;
}

static inline void fm_free(struct fake_machine *m)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		free(m->procs[i].nid);
		free(m->procs[i].order);
		free(m->procs[i].flags);
	}
	m->nprocs = 0;
}

static inline size_t fm_count(const struct fm_proc *p, size_t from, size_t to,
			      int nid)
{
	size_t n = 0;

	for (size_t i = from; i < to; i++)
		n += p->nid[i] == nid;
	return n;
}

static inline long fm_index(const struct fm_proc *p, uint64_t addr)
{
	if (addr < p->base || addr >= p->base + p->npages * FM_PAGE)
		return -1;
	return (long)((addr - p->base) / FM_PAGE);
}

static int fm_lookup(void *arg, const struct pl_proc *id, const uint64_t *addrs,
		     size_t n, struct pl_page *ret)
{
	struct fake_machine *m = arg;
	struct fm_proc *p = fm_proc(m, id->pid);

	m->lookups++;
	m->looked_up += n;
	if (!p || p->gone || p->id.start_time != id->start_time)
		return -ESRCH;
	m->last_lookup_n = n;
	for (size_t i = 0; i < n; i++) {
		long k = fm_index(p, addrs[i]);

		if (i < 1024)
			m->last_lookup_addr[i] = addrs[i];
		ret[i] = (struct pl_page){
			.nid = k < 0 ? -EFAULT : p->nid[k] < 0 ? -ENOENT : p->nid[k],
			.order = k < 0 ? 0 : p->order[k],
			.flags = k < 0 ? 0 : p->flags[k],
		};
	}
	return 0;
}

static int fm_move(void *arg, const struct pl_proc *id, const uint64_t *addrs,
		   const int *to, size_t n, enum pghot_move_status *ret)
{
	struct fake_machine *m = arg;
	struct fm_proc *p = fm_proc(m, id->pid);

	m->moves++;
	m->last_move_proc = *id;
	if (!p || p->gone || p->id.start_time != id->start_time)
		return -ESRCH;
	for (size_t i = 0; i < n; i++) {
		long k = fm_index(p, addrs[i]);
		size_t span, from_nid;

		if (k < 0)
			m->move_mixed = true;
		if (k < 0 || p->nid[k] < 0) {
			ret[i] = PGHOT_MOVE_GONE;
			continue;
		}
		if (to[i] == m->perm_node) {
			ret[i] = PGHOT_MOVE_PERM;
			continue;
		}
		/* a folio moves whole */
		span = (size_t)1 << p->order[k];
		from_nid = (size_t)p->nid[k];
		for (size_t j = 0; j < span && (size_t)k + j < p->npages; j++)
			p->nid[k + j] = (int8_t)to[i];
		m->used[from_nid] -= span * FM_PAGE;
		m->used[to[i]] += span * FM_PAGE;
		if (to[i] < (int)from_nid)
			m->moved_up += span;
		else
			m->moved_down += span;
		ret[i] = PGHOT_MOVE_OK;
	}
	return 0;
}

static int fm_node_mem(void *arg, struct pl_node *nodes, size_t n)
{
	struct fake_machine *m = arg;

	m->node_mem_calls++;
	for (size_t i = 0; i < n; i++) {
		int nid = nodes[i].nid;
		uint64_t used = m->used[nid] + m->filler[nid];

		nodes[i].total_bytes = m->total[nid];
		nodes[i].free_bytes = used < m->total[nid] ? m->total[nid] - used : 0;
		nodes[i].wmark_bytes = 0;
	}
	return 0;
}

static void fm_log(void *arg, int level, const char *msg)
{
	struct fake_machine *m = arg;

	m->nlogs++;
	snprintf(m->last_log, sizeof(m->last_log), "%s", msg);
}

static const struct pl_ops fm_ops = {
	.lookup = fm_lookup,
	.move = fm_move,
	.node_mem = fm_node_mem,
	.log = fm_log,
};

#endif
