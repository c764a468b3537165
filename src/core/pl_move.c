// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Moves out: the migrator the engine calls during pghot_promote(), and the
 * one path both promotion and demotion take to ops->move(): a batch split
 * by process, each process's pages in one call (chunks of PL_LOOKUP_MAX),
 * every outcome counted. The identity a move needs (pid, start time) is the
 * target's own copy: the migrator never asks anybody.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/pl_internal.h"

enum pghot_move_status pl_move_status(int err)
{
	if (err >= 0)
		return PGHOT_MOVE_OK;
	switch (-err) {
	case EBUSY:
	case EAGAIN:
		return PGHOT_MOVE_BUSY;
	case ENOMEM:
		return PGHOT_MOVE_NOMEM;
	case ENOENT:
	case EFAULT:
	case ESRCH:
		return PGHOT_MOVE_GONE;
	case EACCES:
	case EPERM:
		return PGHOT_MOVE_PERM;
	default:
		return PGHOT_MOVE_OTHER;
	}
}

void pl_move_pages(struct pl *pl, const struct pl_target *t,
		   const uint64_t *addrs, const int *to, size_t n,
		   enum pghot_move_status *ret)
{
	for (size_t off = 0; off < n; off += PL_LOOKUP_MAX) {
		size_t k = n - off < PL_LOOKUP_MAX ? n - off : PL_LOOKUP_MAX;
		int err;

		for (size_t i = 0; i < k; i++)
			ret[off + i] = PGHOT_MOVE_OTHER;
		pl->st.moves++;
		err = pl->ops->move(pl->arg, &t->proc, addrs + off, to + off, k,
				    ret + off);
		for (size_t i = 0; i < k; i++) {
			if (err)
				ret[off + i] = pl_move_status(err);
			else if ((unsigned int)ret[off + i] >= PGHOT_MOVE_STATUS_MAX)
				ret[off + i] = PGHOT_MOVE_OTHER;
		}
	}
}

/* Scratch of one engine batch (at most batch_nr <= 1024 pages). */
struct batch_scratch {
	uint32_t key[PL_LOOKUP_MAX], order[PL_LOOKUP_MAX];
	uint64_t addrs[PL_LOOKUP_MAX];
	int to[PL_LOOKUP_MAX];
	enum pghot_move_status st[PL_LOOKUP_MAX];
};

/* pghot_migrator_ops.migrate(): the engine's batch, split by process. */
static int engine_migrate(void *priv, const struct pghot_move *moves, size_t n,
			  enum pghot_move_status *ret_status)
{
	struct pl *pl = priv;
	struct batch_scratch *b;
	uint32_t gone = (uint32_t)pl->nr_tg;
	int err;

	if (n > PL_LOOKUP_MAX)
		return -E2BIG;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct pl_target *t = pl_tg_by_space(pl, moves[i].space_id);

		b->key[i] = t ? (uint32_t)(t - pl->tg) : gone;
	}
	err = pl_group(b->key, n, gone + 1, b->order);
	if (err)
		goto out;
	for (size_t i = 0, j; i < n; i = j) {
		uint32_t k = b->key[b->order[i]];
		struct pl_target *t = k == gone ? NULL : &pl->tg[k];

		for (j = i; j < n && b->key[b->order[j]] == k; j++) {
			const struct pghot_move *m = &moves[b->order[j]];

			b->addrs[j - i] = m->page << pl->p.page_shift;
			b->to[j - i] = m->to_nid;
		}
		if (t)
			pl_move_pages(pl, t, b->addrs, b->to, j - i, b->st);
		for (size_t x = i; x < j; x++) {
			enum pghot_move_status s = t ? b->st[x - i] : PGHOT_MOVE_GONE;

			ret_status[b->order[x]] = s;
			if (t && s == PGHOT_MOVE_OK) {
				t->pages_promoted++;
				pl_known_mark(pl, &pl->tgx[k].known,
					      moves[b->order[x]].page, pl->q_now_ms,
					      true);
			}
		}
	}
out:
	free(b);
	return err;
}

const struct pghot_migrator_ops pl_engine_migrator = {
	.name = "pipeline",
	.migrate = engine_migrate,
};
