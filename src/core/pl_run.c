// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Work on a clock: the promotion workers (one per lower-tier node, waking
 * at most every sleep_ms as the kernel's kmigrated threads do, and only
 * while their node has ready pages: at once when pages turn ready
 * sleep_ms or more after the last wake), the demotion pass after them, and
 * reaping of records nobody can use any more.
 */
#include <errno.h>
#include <syslog.h>

#include "core/pl_internal.h"

/* Node memory for the gate (free-memory bypass) and for demotion; the
 * last values stay when ops->node_mem() fails. */
static void refresh_node_mem(struct pl *pl, uint64_t now_ms)
{
	pl->mem_ms = now_ms;
	if (pl->ops->node_mem(pl->arg, pl->nodes, pl->nr_nodes))
		pl_logf(pl, LOG_DEBUG, "cannot read node memory, using the last values");
	for (size_t i = 0; i < pl->nr_nodes; i++) {
		const struct pl_node *n = &pl->nodes[i];

		if (n->has_memory)
			pghot_engine_set_node_mem(pl->e, n->nid, n->total_bytes,
						  n->free_bytes, n->wmark_bytes);
	}
}

static void wake_worker(struct pl *pl, struct pl_worker *w, uint64_t now_ms)
{
	struct pghot_promote_result res;
	int err;

	err = pghot_promote(pl->e, w->nid, now_ms, &pl_engine_migrator, pl, &res);
	if (err)
		pl_logf(pl, LOG_WARNING, "promotion from node %d failed: %s",
			w->nid, err == -ENOMEM ? "out of memory" : "bad node");
	else if (res.nr_consumed)
		pl_logf(pl, LOG_DEBUG,
			"node %d: %zu ready, %zu moved in %zu batches, %zu left",
			w->nid, res.nr_consumed, res.nr_moved, res.nr_batches,
			res.nr_left_ready);
	w->wakes++;
	w->next_ms = now_ms + pl->p.tun.sleep_ms;
}

void pl_node_mem_fresh(struct pl *pl, uint64_t now_ms)
{
	if (!pl->mem_ms || now_ms >= pl->mem_ms + PL_MEM_STALE_MS)
		refresh_node_mem(pl, now_ms);
}

/*
 * A worker has work when its node has ready pages, or, while demotion is
 * on, every time (the pass after the workers watches the top tier's free
 * memory). One without work skips its wake and asks for none: an idle
 * pipeline reads no node memory, calls no migrator and needs no turn of
 * its caller's loop.
 */
static bool has_work(const struct pl *pl, const struct pl_worker *w)
{
	return pl->p.demote_enabled || pghot_nr_ready(pl->e, w->nid);
}

int pl_run(struct pl *pl, uint64_t now_ms, uint64_t *ret_next_ms)
{
	bool due = false;
	uint64_t next;

	if (!pl)
		return -EINVAL;
	if (now_ms > pl->q_now_ms)
		pl->q_now_ms = now_ms;
	if (!pl->work_ms)
		pl->work_ms = now_ms; /* busy from the start */
	for (size_t i = 0; i < pl->nr_w; i++) {
		struct pl_worker *w = &pl->w[i];

		/* an idle turn leaves the worker due: the report that makes
		 * pages ready wakes it in the same turn of the caller. Its
		 * clock paced by idle turns (as kmigrated's wait_event_timeout()
		 * without a wake_up) left the fill of the test bed's kv-scatter
		 * 50-100 ms behind at each start; the wakes that work still
		 * come sleep_ms apart or more. Idle turns count once a sleep_ms */
		if (w->next_ms <= now_ms && !has_work(pl, w)) {
			if (now_ms >= w->idle_ms + pl->p.tun.sleep_ms) {
				w->idle++;
				w->idle_ms = now_ms;
			}
			continue;
		}
		due |= w->next_ms <= now_ms;
	}
	if (due) {
		/* what the workers move by is read fresh */
		refresh_node_mem(pl, now_ms);
		for (size_t i = 0; i < pl->nr_w; i++)
			if (pl->w[i].next_ms <= now_ms && has_work(pl, &pl->w[i]))
				wake_worker(pl, &pl->w[i], now_ms);
		pl_demote_pass(pl, now_ms);
	}
	if (!pl->next_reap_ms)
		pl->next_reap_ms = now_ms + pl->p.reap_interval_ms;
	if (pl->next_reap_ms <= now_ms) {
		uint64_t freed = 0;

		/* records of memory no longer touched would otherwise live
		 * as long as their process; reap is O(leaves) */
		pghot_engine_reap(pl->e, now_ms, &freed);
		pl->st.leaves_reaped += freed;
		pl->next_reap_ms = now_ms + pl->p.reap_interval_ms;
	}
	/* a worker without work asks for no time: it waits for reports to
	 * give it some (the caller runs this again after them), as kmigrated
	 * waits for its node's flag; a loop turn every sleep_ms for nothing
	 * cost a daemon under TCG 5-10 ms of CPU a second */
	next = pl->next_reap_ms;
	for (size_t i = 0; i < pl->nr_w; i++)
		if (pl->w[i].next_ms < next && has_work(pl, &pl->w[i]))
			next = pl->w[i].next_ms;
	if (ret_next_ms)
		*ret_next_ms = next;
	return 0;
}
