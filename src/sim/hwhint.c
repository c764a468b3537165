// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hardware sampler: the AMD IBS Memory Profiler as pghot's v7/v8 driver
 * uses it (arch/x86/mm/ibs-mprof.c; research notes section 6).
 *
 * Every CPU (every simulated thread) counts operations; every `period`
 * operations one is tagged, uniformly among the operations of the event it
 * falls in. With l3miss-only (the default) the hardware reports the tagged
 * operation only if it is a load or store that missed the L3, so samples
 * come at (L3-missing accesses) / period; without it, every tagged load or
 * store is reported (cache hits too) and other operations are dropped after
 * being counted. A reported sample costs the sampled CPU sample_ns (the
 * interrupt), counts hwhint_total_events, is classed by its data source
 * (hwhint_dram_accesses, hwhint_extmem_accesses: only counted, never a
 * filter), and goes into the CPU's ring of `ring` entries
 * (hwhint_useful_events) or is dropped if the ring is full
 * (hwhint_dropped_events). The per-CPU work empties the rings drain_us
 * later into pghot, with the page's node as the physical address gave it
 * and the sampling CPU's node as the accessor.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/model.h"

struct hw_sample {
	uint32_t pg;
	int16_t page_nid;
	uint64_t t_ms;
};

struct hw_ring {
	struct hw_sample *e;
	uint32_t n;
};

struct hw {
	int64_t period;
	bool l3miss_only;
	uint32_t cap;
	struct hw_ring ring[SIM_MAX_THREADS];
};

static void hw_tag(struct sim *s, struct sim_thread *t, uint32_t pg, unsigned ops,
		   unsigned lines, unsigned miss)
{
	struct hw *hw = s->hw;
	struct hw_ring *r = &hw->ring[t->id];
	int nid = s->pages[pg].nid;

	do {
		double u = sim_rng_unit(&t->rng) * (double)(ops ? ops : 1);

		t->hw_left += hw->period;
		if (hw->l3miss_only && u >= miss)
			continue;	/* no interrupt: not an L3 miss */
		s->cnt[SC_HWHINT_TOTAL_EVENTS]++;
		if (u >= lines)
			continue;	/* neither a load nor a store */
		if (u < miss)
			s->cnt[s->node[nid].lower ? SC_HWHINT_EXTMEM_ACCESSES :
			       SC_HWHINT_DRAM_ACCESSES]++;
		t->clock += s->w * s->sc->m.sample_ns;
		if (r->n == hw->cap) {
			s->cnt[SC_HWHINT_DROPPED_EVENTS]++;
			continue;
		}
		s->cnt[SC_HWHINT_USEFUL_EVENTS]++;
		r->e[r->n++] = (struct hw_sample){ pg, (int16_t)nid, (uint64_t)(t->clock * 1e-6) };
	} while (t->hw_left <= 0);
}

static void drain_run(struct sim *s, struct sim_agent *a, uint64_t now)
{
	struct hw *hw = a->priv;

	for (int i = 0; i < s->nr_threads; i++) {
		struct hw_ring *r = &hw->ring[i];

		for (uint32_t k = 0; k < r->n; k++)
			sim_pghot_sample(s, &s->thread[i], r->e[k].pg, r->e[k].page_nid,
					 r->e[k].t_ms);
		r->n = 0;
	}
	sim_pghot_flush_samples(s, PGHOT_SRC_HWHINT);
	a->next_ns = now + s->sc->hwhint.drain_us * 1000;
}

int sim_hwhint_init(struct sim *s, uint64_t period)
{
	struct hw *hw = calloc(1, sizeof(*hw));

	if (!hw)
		return -ENOMEM;
	s->hw = hw;
	hw->period = (int64_t)(period ? period : s->sc->hwhint.period);
	hw->l3miss_only = s->sc->hwhint.l3miss_only;
	hw->cap = (uint32_t)s->sc->hwhint.ring;
	for (int i = 0; i < s->nr_threads; i++) {
		hw->ring[i].e = malloc(hw->cap * sizeof(*hw->ring[i].e));
		if (!hw->ring[i].e)
			return -ENOMEM;
		/* CPUs start out of phase. */
		s->thread[i].hw_left = 1 + (int64_t)sim_rng_below(&s->thread[i].rng,
								  (uint64_t)hw->period);
	}
	for (int c = SC_HWHINT_TOTAL_EVENTS; c <= SC_HWHINT_DROPPED_EVENTS; c++)
		s->present[c] = true;
	s->hw_tag = hw_tag;
	return sim_agent_add(s, "hwhint-drain", drain_run, hw, s->sc->hwhint.drain_us * 1000) ?
	       0 : -ENOMEM;
}

void sim_hwhint_free(struct sim *s)
{
	struct hw *hw = s->hw;

	if (!hw)
		return;
	for (int i = 0; i < SIM_MAX_THREADS; i++)
		free(hw->ring[i].e);
	free(hw);
	s->hw = NULL;
}
