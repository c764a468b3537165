// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Targets of the pipeline: a dense array, a pid hash and a space-id map
 * (see pl_internal.h). Every lookup is O(1); add is amortised O(1), remove
 * O(1) plus the demotion candidates it drops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pl_internal.h"

/* Fibonacci hashing of a pid into @cap (a power of two) slots. */
static size_t slot_of(pid_t pid, size_t cap)
{
	return (size_t)(((uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ULL) >> 32) &
	       (cap - 1);
}

static size_t hash_find_slot(const struct pl *pl, pid_t pid)
{
	size_t i;

	if (!pl->hash_cap)
		return SIZE_MAX;
	for (i = slot_of(pid, pl->hash_cap);; i = (i + 1) & (pl->hash_cap - 1)) {
		uint32_t t = pl->pid_hash[i];

		if (t == PL_NONE)
			return SIZE_MAX;
		if (pl->tg[t].proc.pid == pid)
			return i;
	}
}

int pl_tg_index(const struct pl *pl, pid_t pid)
{
	size_t s = hash_find_slot(pl, pid);

	return s == SIZE_MAX ? -1 : (int)pl->pid_hash[s];
}

static void hash_insert(struct pl *pl, uint32_t t)
{
	size_t i = slot_of(pl->tg[t].proc.pid, pl->hash_cap);

	while (pl->pid_hash[i] != PL_NONE)
		i = (i + 1) & (pl->hash_cap - 1);
	pl->pid_hash[i] = t;
}

/* Empty slot @i, then move later entries of the cluster back so that every
 * entry stays reachable from its home slot (Knuth's algorithm R). */
static void hash_delete(struct pl *pl, size_t i)
{
	size_t mask = pl->hash_cap - 1, j = i;

	pl->pid_hash[i] = PL_NONE;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (pl->pid_hash[j] == PL_NONE)
			return;
		home = slot_of(pl->tg[pl->pid_hash[j]].proc.pid, pl->hash_cap);
		/* leave it if its home lies cyclically in (i, j] */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		pl->pid_hash[i] = pl->pid_hash[j];
		pl->pid_hash[j] = PL_NONE;
		i = j;
	}
}

/* Room for one more target: array, hash (rebuilt when it grows). */
static int grow_targets(struct pl *pl)
{
	size_t cap, hcap;
	struct pl_target *nt;
	struct pl_tgx *nx;
	uint32_t *nh;

	if (pl->nr_tg < pl->cap_tg)
		return 0;
	cap = pl->cap_tg ? pl->cap_tg * 2 : 16;
	nt = realloc(pl->tg, cap * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	pl->tg = nt;
	nx = realloc(pl->tgx, cap * sizeof(*nx));
	if (!nx)
		return -ENOMEM;
	pl->tgx = nx;
	pl->cap_tg = cap;
	hcap = cap * 2;
	nh = malloc(hcap * sizeof(*nh));
	if (!nh)
		return -ENOMEM;
	free(pl->pid_hash);
	pl->pid_hash = nh;
	pl->hash_cap = hcap;
	memset(nh, 0xff, hcap * sizeof(*nh));
	for (uint32_t t = 0; t < pl->nr_tg; t++)
		hash_insert(pl, t);
	return 0;
}

static int map_space(struct pl *pl, uint32_t space_id, uint32_t t)
{
	if (space_id >= pl->space_cap) {
		size_t cap = pl->space_cap ? pl->space_cap : 64;
		uint32_t *ns;

		while (cap <= space_id)
			cap *= 2;
		ns = realloc(pl->space_tg, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		memset(ns + pl->space_cap, 0xff,
		       (cap - pl->space_cap) * sizeof(*ns));
		pl->space_tg = ns;
		pl->space_cap = cap;
	}
	pl->space_tg[space_id] = t;
	return 0;
}

struct pl_target *pl_tg_by_space(const struct pl *pl, uint32_t space_id)
{
	if (space_id >= pl->space_cap || pl->space_tg[space_id] == PL_NONE)
		return NULL;
	return &pl->tg[pl->space_tg[space_id]];
}

int pl_target_add(struct pl *pl, const struct pl_proc *p)
{
	uint32_t id, t;
	int err;

	if (!pl || !p || p->pid <= 0)
		return -EINVAL;
	if (pl_tg_index(pl, p->pid) >= 0)
		return -EEXIST;
	err = grow_targets(pl);
	if (err)
		return err;
	/* the cookie carries the identity for tools; we keep our own copy */
	err = pghot_space_add(pl->e, ((uint64_t)p->start_time << 22) |
					     (uint64_t)p->pid, &id);
	if (err)
		return err;
	t = (uint32_t)pl->nr_tg;
	err = map_space(pl, id, t);
	if (err) {
		pghot_space_remove(pl->e, id);
		return err;
	}
	pl->tg[t] = (struct pl_target){ .proc = *p, .space_id = id };
	pl->tgx[t] = (struct pl_tgx){ 0 };
	pl->nr_tg++;
	hash_insert(pl, t);
	return 0;
}

int pl_target_remove(struct pl *pl, pid_t pid)
{
	size_t slot = pl ? hash_find_slot(pl, pid) : SIZE_MAX;
	uint32_t t, last;

	if (!pl)
		return -EINVAL;
	if (slot == SIZE_MAX)
		return -ENOENT;
	t = pl->pid_hash[slot];
	pl_demote_forget(pl, pl->tg[t].space_id);
	pl_known_free(&pl->tgx[t].known);
	pl_seen_free(&pl->tgx[t].seen);
	pghot_space_remove(pl->e, pl->tg[t].space_id);
	pl->space_tg[pl->tg[t].space_id] = PL_NONE;
	hash_delete(pl, slot);
	last = (uint32_t)--pl->nr_tg;
	if (t != last) {
		/* the last target takes the hole: repoint its two maps */
		pl->tg[t] = pl->tg[last];
		pl->tgx[t] = pl->tgx[last];
		pl->pid_hash[hash_find_slot(pl, pl->tg[t].proc.pid)] = t;
		pl->space_tg[pl->tg[t].space_id] = t;
	}
	/* queued pages refer to targets by index: drop the queue's entries
	 * of the removed target, re-point those of the moved one; keep the
	 * order (pages of one report stay together) */
	for (size_t i = 0, k = 0, n = pl->nq; i < n; i++) {
		if (pl->q[i].tg == t) {
			pl->nq--;
			continue;
		}
		if (pl->q[i].tg == last)
			pl->q[i].tg = t;
		pl->q[k++] = pl->q[i];
	}
	return 0;
}

const struct pl_target *pl_target_find(const struct pl *pl, pid_t pid)
{
	int t = pl ? pl_tg_index(pl, pid) : -1;

	return t < 0 ? NULL : &pl->tg[t];
}

size_t pl_nr_targets(const struct pl *pl)
{
	return pl ? pl->nr_tg : 0;
}

const struct pl_target *pl_target_at(const struct pl *pl, size_t i)
{
	return pl && i < pl->nr_tg ? &pl->tg[i] : NULL;
}
