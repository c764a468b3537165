/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ready queues: one FIFO of leaves per lower-tier node, linked through
 * leaf->next_ready, in the order the leaves first got a ready record since
 * they were last drained. A leaf is queued once however many of its records
 * are ready, so the queue costs no memory beyond the 4-byte link, and the
 * worker visits only leaves with work (the kernel's per-section hot bit does
 * the same job for a scan of the whole node).
 */
#include "internal.h"

void ready_enqueue(struct pghot_engine *e, uint32_t idx)
{
	struct leaf *l = leaf_at(e, idx);
	struct node *n = &e->nodes[l->nid];

	l->flags |= LEAF_QUEUED;
	l->next_ready = NIL;
	if (n->fifo_tail == NIL)
		n->fifo_head = idx;
	else
		leaf_at(e, n->fifo_tail)->next_ready = idx;
	n->fifo_tail = idx;
}

/* Unlink every LEAF_DYING leaf from @nid's FIFO, keeping the order of the
 * rest. O(queued leaves of the node). */
void ready_drop_dying(struct pghot_engine *e, int nid)
{
	struct node *n = &e->nodes[nid];
	uint32_t idx = n->fifo_head, next;

	n->fifo_head = n->fifo_tail = NIL;
	for (; idx != NIL; idx = next) {
		struct leaf *l = leaf_at(e, idx);

		next = l->next_ready;
		if (l->flags & LEAF_DYING) {
			l->flags &= (uint16_t)~LEAF_QUEUED;
			l->next_ready = NIL;
			continue;
		}
		ready_enqueue(e, idx);
	}
}
