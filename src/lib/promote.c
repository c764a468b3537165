/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pghot_promote(): one wake of the promotion worker of a lower-tier node
 * (the kernel's kmigrated_do_work()).
 *
 * It walks the node's ready-leaf FIFO once, oldest queued leaf first and
 * pages in address order within a leaf, stopping in a leaf once its ready
 * count is used up. Each ready page gets a target (precise mode: the last
 * accessor if it is a present top-tier node; else target_nid) and goes
 * through the gate (ratelimit.c). Promoted pages collect into one pending
 * batch per target, handed to the migrator when batch_nr pages are pending
 * and at the end. Work per call: O(visited leaves x 512) record reads plus
 * O(pages moved); batch buffers live only for the call.
 *
 * Rate-limited pages stay ready and their leaf goes back to the head of the
 * FIFO (the kernel drops them). The walk does not stop when the limit is
 * reached: every ready page still goes through the gate, so a page that
 * turned cold while waiting is dropped, and the adjuster sees the demand.
 * The cost is one pass over the queued leaves per wake: about 8 ms of CPU
 * per million waiting pages on the development VM (10 ms precise).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

struct batch {
	int nid;		/* target node */
	size_t n;		/* pending moves */
	struct pghot_move *moves;	/* batch_nr entries */
};

struct promote_ctx {
	struct pghot_engine *e;
	const struct pghot_migrator_ops *ops;
	void *priv;
	size_t batch_nr;
	struct batch *b;	/* one per target seen in this call */
	size_t nr_b, cap_b;
	enum pghot_move_status *status;	/* batch_nr entries */
	struct pghot_promote_result res;
};

static const enum pghot_counter fail_counter[PGHOT_MOVE_STATUS_MAX] = {
	[PGHOT_MOVE_OK] = PGPROMOTE_SUCCESS,
	[PGHOT_MOVE_BUSY] = PGHOT_PROMOTE_FAIL_BUSY,
	[PGHOT_MOVE_NOMEM] = PGHOT_PROMOTE_FAIL_NOMEM,
	[PGHOT_MOVE_GONE] = PGHOT_PROMOTE_FAIL_GONE,
	[PGHOT_MOVE_PERM] = PGHOT_PROMOTE_FAIL_PERM,
	[PGHOT_MOVE_OTHER] = PGHOT_PROMOTE_FAIL_OTHER,
};

static void batch_flush(struct promote_ctx *c, struct batch *b)
{
	struct pghot_engine *e = c->e;
	enum pghot_move_status st;
	size_t i;
	int rc;

	if (!b->n)
		return;
	for (i = 0; i < b->n; i++)
		c->status[i] = PGHOT_MOVE_OTHER;
	rc = c->ops->migrate(c->priv, b->moves, b->n, c->status);
	e->counters[PGHOT_PROMOTE_BATCHES]++;
	c->res.nr_batches++;
	for (i = 0; i < b->n; i++) {
		st = rc < 0 ? PGHOT_MOVE_OTHER : c->status[i];
		if ((unsigned int)st >= PGHOT_MOVE_STATUS_MAX)
			st = PGHOT_MOVE_OTHER;
		e->counters[fail_counter[st]]++;
		if (st == PGHOT_MOVE_OK) {
			e->nodes[b->nid].cnt_success++;
			c->res.nr_moved++;
		}
	}
	b->n = 0;
}

/* The pending batch of @nid, created on first use; NULL on ENOMEM. */
static struct batch *batch_get(struct promote_ctx *c, int nid)
{
	struct pghot_engine *e = c->e;
	struct batch *b;
	size_t i;

	for (i = 0; i < c->nr_b; i++)
		if (c->b[i].nid == nid)
			return &c->b[i];
	if (c->nr_b == c->cap_b) {
		size_t cap = c->cap_b ? c->cap_b * 2 : 2;

		if (mem_grow(&e->mem.other, (void **)&c->b, c->cap_b, cap,
			     sizeof(*c->b)))
			return NULL;
		c->cap_b = cap;
	}
	b = &c->b[c->nr_b];
	b->moves = mem_calloc(&e->mem.other, c->batch_nr, sizeof(*b->moves));
	if (!b->moves)
		return NULL;
	b->nid = nid;
	b->n = 0;
	c->nr_b++;
	return b;
}

static void ctx_release(struct promote_ctx *c)
{
	struct pghot_engine *e = c->e;
	size_t i;

	for (i = 0; i < c->nr_b; i++)
		mem_free(&e->mem.other, c->b[i].moves, c->batch_nr,
			 sizeof(*c->b[i].moves));
	mem_free(&e->mem.other, c->b, c->cap_b, sizeof(*c->b));
	mem_free(&e->mem.other, c->status, c->batch_nr, sizeof(*c->status));
}

static int pick_target(const struct pghot_engine *e, const struct rec_view *v)
{
	if (e->mode == PGHOT_MODE_PRECISE && v->nid >= 0 &&
	    (size_t)v->nid < e->nr_nodes && e->nodes[v->nid].present &&
	    !e->nodes[v->nid].lower)
		return v->nid;
	return e->t.target_nid;
}

/*
 * Gate every ready record of leaf @idx. Returns 0 or -ENOMEM (the record in
 * hand is left untouched).
 */
static int leaf_promote(struct promote_ctx *c, uint32_t idx, uint64_t now_ms)
{
	struct pghot_engine *e = c->e;
	struct leaf *l = leaf_at(e, idx);
	unsigned int slot, seen = 0, want = l->nr_ready;
	struct rec_view v;
	struct batch *b;
	int target;

	for (slot = 0; slot < LEAF_PAGES && seen < want; slot++) {
		if (!record_is_ready(e, l, slot))
			continue;
		seen++;
		record_read(e, l, slot, &v);
		target = pick_target(e, &v);
		if (target == l->nid) {
			/* Unreachable while targets are top tier and leaves
			 * lower tier; kept for the counter's meaning. */
			e->counters[PGHOT_PROMOTE_SKIP_SAME_NODE]++;
			record_clear(e, l, slot);
			c->res.nr_consumed++;
			continue;
		}
		b = batch_get(c, target);
		if (!b)
			return -ENOMEM;
		switch (gate_check(e, target, record_age_ms(e, l, &v, now_ms),
				   now_ms)) {
		case GATE_NRL:
		case GATE_CANDIDATE:
			record_clear(e, l, slot);
			c->res.nr_consumed++;
			b->moves[b->n++] = (struct pghot_move){
				.space_id = leaf_space_of(l),
				.from_nid = (int16_t)l->nid,
				.to_nid = (int16_t)target,
				.page = leaf_no_of(l) << LEAF_SHIFT | slot,
			};
			if (b->n == c->batch_nr)
				batch_flush(c, b);
			break;
		case GATE_COLD:
			record_clear(e, l, slot);
			c->res.nr_consumed++;
			break;
		case GATE_LIMITED:
			break;
		}
	}
	return 0;
}

int pghot_promote(struct pghot_engine *e, int lower_nid, uint64_t now_ms,
		  const struct pghot_migrator_ops *ops, void *priv,
		  struct pghot_promote_result *ret)
{
	struct promote_ctx c = { .e = e, .ops = ops, .priv = priv };
	uint32_t idx, retry_head = NIL, retry_tail = NIL;
	struct node *n;
	size_t i;
	int err, rc = 0;

	if (!e || lower_nid < 0 || (size_t)lower_nid >= e->nr_nodes ||
	    !e->nodes[lower_nid].present || !e->nodes[lower_nid].lower ||
	    !ops || !ops->migrate)
		return -EINVAL;
	n = &e->nodes[lower_nid];
	c.batch_nr = e->t.batch_nr;
	c.status = mem_calloc(&e->mem.other, c.batch_nr, sizeof(*c.status));
	if (!c.status) {
		err = -ENOMEM;
		goto out;
	}
	while (rc == 0 && (idx = n->fifo_head) != NIL) {
		struct leaf *l = leaf_at(e, idx);

		n->fifo_head = l->next_ready;
		if (n->fifo_head == NIL)
			n->fifo_tail = NIL;
		l->next_ready = NIL;
		rc = leaf_promote(&c, idx, now_ms);
		if (!l->nr_ready) {
			l->flags &= (uint16_t)~LEAF_QUEUED;
			continue;
		}
		/* Still ready (rate limited, or stopped by ENOMEM): back in
		 * front of the unvisited leaves, order kept. */
		if (retry_tail == NIL)
			retry_head = idx;
		else
			leaf_at(e, retry_tail)->next_ready = idx;
		retry_tail = idx;
	}
	err = rc;
	if (retry_head != NIL) {
		leaf_at(e, retry_tail)->next_ready = n->fifo_head;
		if (n->fifo_head == NIL)
			n->fifo_tail = retry_tail;
		n->fifo_head = retry_head;
	}
	for (i = 0; i < c.nr_b; i++)
		batch_flush(&c, &c.b[i]);
	c.res.nr_left_ready = n->nr_ready;
out:
	ctx_release(&c);
	if (ret)
		*ret = c.res;
	return err;
}
