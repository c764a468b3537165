// SPDX-License-Identifier: GPL-2.0-or-later
/* DAMON regions: sampling, aggregation, merge and split; see damon.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/damon.h"

uint32_t sim_damon_page(const struct sim *s, const struct damon_ctx *c, uint64_t a)
{
	uint32_t pg;

	if (c->paddr) {
		pg = s->node[c->target].frame_page[a];
		return pg >= SIM_RESERVED ? SIM_FREE : pg;
	}
	pg = s->proc[c->target].base + (uint32_t)a;
	return s->pages[pg].flags & PG_PRESENT ? pg : SIM_FREE;
}

static int reserve(struct damon_ctx *c, size_t n)
{
	struct damon_region *r;
	size_t cap = c->cap ? c->cap : 64;

	if (n <= c->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	r = realloc(c->r, cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	c->r = r;
	c->cap = cap;
	return 0;
}

int sim_damon_split_at(struct damon_ctx *c, size_t i, uint64_t a)
{
	if (reserve(c, c->n + 1))
		return -ENOMEM;
	memmove(&c->r[i + 2], &c->r[i + 1], (c->n - i - 1) * sizeof(*c->r));
	c->r[i + 1] = c->r[i];
	c->r[i + 1].start = a;
	c->r[i + 1].sample = a;
	c->r[i].end = a;
	if (c->r[i].sample >= a)
		c->r[i].sample = c->r[i].start;
	c->n++;
	return 0;
}

/* The head page of a folio carries its PMD's access bit. */
static uint32_t a_bit_page(const struct sim *s, uint32_t pg)
{
	return pg == SIM_FREE ? pg : sim_folio_head(s, pg);
}

/* check_accesses(): was each region's sampled page accessed since it was
 * marked idle? */
static void check(struct sim *s, struct damon_ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct damon_region *r = &c->r[i];
		uint32_t pg = a_bit_page(s, sim_damon_page(s, c, r->sample));

		if (pg != SIM_FREE && !(s->pages[pg].flags & PG_IDLE))
			r->nr_accesses++;
	}
	s->promoter_cpu_ns += (double)c->n * s->sc->m.damon_check_ns;
}

/* prepare_access_checks(): a new random page per region, marked idle. */
static void prepare(struct sim *s, struct damon_ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct damon_region *r = &c->r[i];
		uint32_t pg;

		r->sample = r->start + sim_rng_below(&c->rng, r->end - r->start);
		pg = a_bit_page(s, sim_damon_page(s, c, r->sample));
		if (pg != SIM_FREE)
			s->pages[pg].flags |= PG_IDLE;
	}
}

static uint32_t diff(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

static void merge_pass(struct damon_ctx *c, uint32_t thres, uint64_t sz_limit)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct damon_region *r = &c->r[i], *p = k ? &c->r[k - 1] : NULL;

		if (diff(r->nr_accesses, r->last_nr_accesses) > thres ||
		    (r->nr_accesses == 0) != (r->last_nr_accesses == 0))
			r->age = 0;
		else
			r->age++;
		if (p && p->end == r->start && diff(p->nr_accesses, r->nr_accesses) <= thres &&
		    (p->end - p->start) + (r->end - r->start) <= sz_limit) {
			uint64_t sl = p->end - p->start, sr = r->end - r->start;

			p->nr_accesses = (uint32_t)((p->nr_accesses * sl + r->nr_accesses * sr) / (sl + sr));
			p->age = (uint32_t)((p->age * sl + r->age * sr) / (sl + sr));
			p->end = r->end;
			continue;
		}
		c->r[k++] = *r;
	}
	c->n = k;
}

static void merge(struct damon_ctx *c)
{
	uint32_t max = 0, thres;
	uint64_t total = c->r[c->n - 1].end - c->r[0].start, sz_limit;

	for (size_t i = 0; i < c->n; i++)
		if (c->r[i].nr_accesses > max)
			max = c->r[i].nr_accesses;
	thres = max / 10;
	sz_limit = total / c->min_regions;
	if (sz_limit < 1)
		sz_limit = 1;
	do {
		merge_pass(c, thres, sz_limit);
		thres = thres ? thres * 2 : 1;
	} while (c->n > c->max_regions && thres / 2 < c->max_nr_accesses);
}

static int split(struct damon_ctx *c)
{
	size_t nr = c->n;
	int subs = 2;

	if (nr > c->max_regions / 2)
		return 0;
	if (c->last_nr_regions == nr && nr < c->max_regions / 3)
		subs = 3;
	for (size_t i = 0; i < c->n; i++) {
		uint64_t sz = c->r[i].end - c->r[i].start;
		size_t at = i;

		for (int k = 0; k < subs - 1 && sz > 2; k++) {
			uint64_t sub = (1 + sim_rng_below(&c->rng, 9)) * sz / 10;

			if (!sub || sub >= sz)
				continue;
			if (sim_damon_split_at(c, at, c->r[at].start + sub))
				return -ENOMEM;
			sz = sub;
		}
		i += c->n - nr;		/* skip the parts just made */
		nr = c->n;
	}
	c->last_nr_regions = c->n;
	return 0;
}

static void kdamond_run(struct sim *s, struct sim_agent *a, uint64_t now)
{
	struct damon_ctx *c = a->priv;

	/* kdamond_fn()'s order: check, aggregate (merge, schemes, reset,
	 * split), then prepare the next sample of every region. */
	check(s, c);
	if (++c->samples >= c->max_nr_accesses) {
		c->samples = 0;
		merge(c);
		if (c->aggregated)
			c->aggregated(s, c, now);
		for (size_t i = 0; i < c->n; i++) {
			c->r[i].last_nr_accesses = c->r[i].nr_accesses;
			c->r[i].nr_accesses = 0;
		}
		split(c);
	}
	prepare(s, c);
	/* kdamond sleeps sample_us after its checks (kdamond_usleep()), and
	 * aggregates every aggr / sample samples (passed_sample_intervals):
	 * the checks' own time stretches both. */
	a->next_ns = now + c->sample_ns * c->pace +
		     (uint64_t)((double)c->n * s->sc->m.damon_check_ns);
}

struct damon_ctx *sim_damon_new(struct sim *s, bool paddr, int target, uint64_t stream,
				void (*aggregated)(struct sim *, struct damon_ctx *, uint64_t),
				void *arg)
{
	const struct sim_damon_cfg *cfg = &s->sc->damon;
	struct damon_ctx *c = calloc(1, sizeof(*c));
	uint64_t size = paddr ? s->node[target].frames : s->proc[target].nr_pages;
	uint64_t nr;

	if (!c)
		return NULL;
	c->paddr = paddr;
	c->target = target;
	c->sample_ns = cfg->sample_us * 1000;
	c->pace = 1;
	c->max_nr_accesses = (uint32_t)(cfg->aggr_us / cfg->sample_us);
	c->min_regions = (uint32_t)cfg->min_regions;
	c->max_regions = (uint32_t)cfg->max_regions;
	c->aggregated = aggregated;
	c->arg = arg;
	sim_rng_seed(&c->rng, s->sc->seed, 5000 + stream);
	/* Initial regions: min_regions equal parts of the range. */
	nr = c->min_regions < size ? c->min_regions : size;
	if (reserve(c, nr))
		goto fail;
	for (uint64_t i = 0; i < nr; i++) {
		c->r[i] = (struct damon_region){ .start = size * i / nr, .end = size * (i + 1) / nr };
		c->r[i].sample = c->r[i].start;
	}
	c->n = nr;
	prepare(s, c);
	if (!sim_agent_add(s, paddr ? "kdamond-paddr" : "kdamond-vaddr", kdamond_run, c,
			   s->now_ns + c->sample_ns))
		goto fail;
	return c;
fail:
	sim_damon_ctx_free(c);
	return NULL;
}

void sim_damon_ctx_free(struct damon_ctx *c)
{
	if (!c)
		return;
	free(c->r);
	free(c);
}
