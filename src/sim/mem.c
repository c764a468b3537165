// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The model's memory: nodes and their frames, watermarks, latency tables,
 * last-level caches, processes and their pages, allocation with the
 * kernel's fallback, and migration with its costs. See model.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"

/* Kernel's min_free_kbytes: int_sqrt(lowmem_kbytes * 16), 128 KiB..256 MiB
 * (mm/page_alloc.c calculate_min_free_kbytes()). */
static double min_free_bytes(const struct sim_scenario *sc)
{
	double kb = 0, v;

	for (uint64_t i = 0; i < sc->m.nr_nodes; i++)
		kb += (double)sc->node[i].mem_bytes / 1024.0;
	v = floor(sqrt(kb * 16.0));
	if (v < 128)
		v = 128;
	if (v > 262144)
		v = 262144;
	return v * 1024.0;
}

static uint64_t to_frames(const struct sim *s, double full_bytes)
{
	return (uint64_t)llround(full_bytes * s->scale / SIM_PAGE);
}

/* Watermarks as __setup_per_zone_wmarks() sets them: min is the node's
 * share of min_free_kbytes; each step above it is
 * max(min / 4, size x watermark_scale_factor / 10000); promo is high plus
 * one more step (WMARK_PROMO). */
static void set_wmarks(struct sim *s, struct sim_node *n, const struct sim_node_cfg *nc,
		       double total_mem)
{
	double min = min_free_bytes(s->sc) * (double)nc->mem_bytes / total_mem;
	double step = fmax(min / 4, (double)nc->mem_bytes * (double)s->sc->m.wsf / 10000.0);

	n->wmark_min = to_frames(s, min);
	n->wmark_low = to_frames(s, min + step);
	n->wmark_high = to_frames(s, min + 2 * step);
	n->wmark_promo = to_frames(s, min + 3 * step);
}

static int node_init(struct sim *s, int nid, double total_mem)
{
	const struct sim_node_cfg *nc = &s->sc->node[nid];
	struct sim_node *n = &s->node[nid];
	uint64_t reserved, i;

	n->present = nc->mem_bytes > 0;
	n->cpus = nc->cpus > 0;
	n->lower = nc->tier == SIM_TIER_LOWER || (nc->tier == SIM_TIER_AUTO && !nc->cpus);
	n->bw_Bpns = (double)nc->bw_Bps / 1e9;
	n->load = 1.0;
	if (!n->present)
		return 0;
	n->frames = to_frames(s, (double)nc->mem_bytes);
	reserved = to_frames(s, (double)nc->reserved_bytes);
	if (n->frames < 1024 || reserved >= n->frames)
		return sim_errf(s, -EINVAL, "node %d: %llu pages at scale %g (need 1024 or "
				"more, and fewer reserved); raise --scale or node.%d.mem",
				nid, (unsigned long long)n->frames, s->scale, nid);
	n->frame_page = malloc(n->frames * sizeof(*n->frame_page));
	n->free_stack = malloc(n->frames * sizeof(*n->free_stack));
	if (!n->frame_page || !n->free_stack)
		return -ENOMEM;
	/* Reserved memory at the low frames (kernel, other software); free
	 * frames pushed in descending order so that they are handed out in
	 * ascending order, as a fresh node's buddy lists roughly are. */
	for (i = 0; i < n->frames; i++)
		n->frame_page[i] = i < reserved ? SIM_RESERVED : SIM_FREE;
	for (i = n->frames; i-- > reserved;)
		n->free_stack[n->nr_free++] = (uint32_t)i;
	set_wmarks(s, n, nc, total_mem);
	return 0;
}

static void lat_init(struct sim *s)
{
	const struct sim_scenario *sc = s->sc;

	for (int c = 0; c < s->nr_nodes; c++) {
		int order[SIM_MAX_NODES], k = 0;

		for (int m = 0; m < s->nr_nodes; m++) {
			bool near = m == c || (!sc->node[m].cpus && sc->node[m].attach == (uint64_t)c);

			s->idle_lat[c][m] = sc->node[m].lat_ns + (near ? 0 : sc->m.hop_ns);
			s->lat[c][m] = s->idle_lat[c][m];
			if (s->node[m].present)
				order[k++] = m;
		}
		/* Fallback: nearest first, top tier before lower on a tie. */
		for (int i = 1; i < k; i++)
			for (int j = i; j > 0; j--) {
				int a = order[j - 1], b = order[j];
				double la = s->idle_lat[c][a] + (s->node[a].lower ? 0.5 : 0);
				double lb = s->idle_lat[c][b] + (s->node[b].lower ? 0.5 : 0);

				if (la <= lb)
					break;
				order[j - 1] = b;
				order[j] = a;
			}
		for (int i = 0; i < SIM_MAX_NODES; i++)
			s->fallback[c][i] = i < k ? order[i] : -1;
	}
}

static int llc_init(struct sim *s, struct sim_llc *c)
{
	uint64_t sectors = (uint64_t)((double)s->sc->m.llc_bytes * s->scale /
				      (64 * SIM_SECTOR_LINES));
	uint64_t sets = 1;

	while (sets * 2 * SIM_LLC_WAYS <= sectors)
		sets *= 2;
	c->set_mask = (uint32_t)(sets - 1);
	c->tag = malloc(sets * SIM_LLC_WAYS * sizeof(*c->tag));
	if (!c->tag)
		return -ENOMEM;
	/* SIM_FREE never equals a tag: pages are < 2^26. */
	memset(c->tag, 0xff, sets * SIM_LLC_WAYS * sizeof(*c->tag));
	return 0;
}

int sim_mem_init(struct sim *s)
{
	const struct sim_scenario *sc = s->sc;
	double total = 0;
	int err;

	s->nr_nodes = (int)sc->m.nr_nodes;
	s->top_nid = s->lower_nid = -1;
	for (int i = 0; i < s->nr_nodes; i++)
		total += (double)sc->node[i].mem_bytes;
	for (int i = 0; i < s->nr_nodes; i++) {
		err = node_init(s, i, total);
		if (err)
			return err;
		if (s->node[i].present && !s->node[i].lower && s->top_nid < 0)
			s->top_nid = i;
		if (s->node[i].present && s->node[i].lower && s->lower_nid < 0)
			s->lower_nid = i;
		if (s->node[i].cpus) {
			err = llc_init(s, &s->llc[i]);
			if (err)
				return err;
		}
	}
	if (s->top_nid < 0 || s->lower_nid < 0)
		return sim_errf(s, -EINVAL, "the machine needs a top-tier and a lower-tier node with memory");
	lat_init(s);
	return 0;
}

void sim_mem_free(struct sim *s)
{
	for (int i = 0; i < SIM_MAX_NODES; i++) {
		free(s->node[i].frame_page);
		free(s->node[i].free_stack);
		free(s->llc[i].tag);
	}
	free(s->pages);
	free(s->page_frame);
}

int sim_proc_add(struct sim *s, uint64_t nr_pages, bool workload)
{
	uint64_t base = (s->npages + SIM_THP_PAGES - 1) & ~(uint64_t)(SIM_THP_PAGES - 1);
	uint64_t end = base + ((nr_pages + SIM_THP_PAGES - 1) & ~(uint64_t)(SIM_THP_PAGES - 1));
	struct sim_proc *p;

	if (!nr_pages)
		return sim_errf(s, -EINVAL, "a simulated process with no pages");
	if (s->nr_procs >= SIM_MAX_PROCS)
		return sim_errf(s, -ENOSPC, "more than %d simulated processes (the workload's, "
				"and one for the cold-memory filler of a level above 0): "
				"give fewer (bt.ranks, a trace's pids)", SIM_MAX_PROCS);
	if (end > SIM_MAX_PAGES)
		return sim_errf(s, -ENOSPC, "%llu simulated pages is above the model's %u; "
				"lower --scale", (unsigned long long)end, SIM_MAX_PAGES);
	if (end > s->pages_cap) {
		uint64_t cap = s->pages_cap ? s->pages_cap : 4096;
		struct sim_page *pg;
		uint32_t *pf;

		while (cap < end)
			cap *= 2;
		pg = realloc(s->pages, cap * sizeof(*pg));
		if (!pg)
			return -ENOMEM;
		s->pages = pg;
		pf = realloc(s->page_frame, cap * sizeof(*pf));
		if (!pf)
			return -ENOMEM;
		s->page_frame = pf;
		s->pages_cap = (uint32_t)cap;
	}
	memset(s->pages + s->npages, 0, (end - s->npages) * sizeof(*s->pages));
	for (uint64_t i = s->npages; i < end; i++) {
		s->page_frame[i] = SIM_FREE;
		s->pages[i].proc = (uint16_t)s->nr_procs;
	}
	p = &s->proc[s->nr_procs];
	memset(p, 0, sizeof(*p));
	p->id = s->nr_procs;
	p->pid = 1000 + s->nr_procs;
	p->base = (uint32_t)base;
	p->nr_pages = (uint32_t)nr_pages;
	p->vbase = 1ull << 32;
	p->workload = workload;
	p->first_thread = -1;
	s->npages = (uint32_t)end;
	return s->nr_procs++;
}

static void take_frame(struct sim *s, uint32_t pg, int nid)
{
	struct sim_node *n = &s->node[nid];
	uint32_t f = n->free_stack[--n->nr_free];

	n->frame_page[f] = pg;
	s->page_frame[pg] = f;
	s->pages[pg].nid = (uint8_t)nid;
	s->pages[pg].flags |= PG_PRESENT;
	s->proc[s->pages[pg].proc].on_node[nid]++;
	if (s->pages[pg].flags & PG_HOT)
		s->hot_on[nid]++;
}

static void give_frame(struct sim *s, uint32_t pg)
{
	int nid = s->pages[pg].nid;
	struct sim_node *n = &s->node[nid];
	uint32_t f = s->page_frame[pg];

	n->frame_page[f] = SIM_FREE;
	n->free_stack[n->nr_free++] = f;
	s->proc[s->pages[pg].proc].on_node[nid]--;
	if (s->pages[pg].flags & PG_HOT)
		s->hot_on[nid]--;
}

void sim_mark_hot(struct sim *s, uint32_t first, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		struct sim_page *p = &s->pages[first + i];

		if (p->flags & PG_HOT)
			continue;
		p->flags |= PG_HOT;
		if (p->flags & PG_PRESENT)
			s->hot_on[p->nid]++;
	}
}

void sim_count_sets(struct sim *s)
{
	s->hot_pages = s->cold_pages = 0;
	for (int i = 0; i < s->nr_procs; i++) {
		const struct sim_proc *p = &s->proc[i];

		if (!p->workload)
			continue;
		for (uint32_t k = 0; k < p->nr_pages; k++)
			if (s->pages[p->base + k].flags & PG_HOT)
				s->hot_pages++;
			else
				s->cold_pages++;
	}
}

/* Node for @need frames: @nid above its low watermark, else the fallback
 * list above low, then above min, then anything (the scenario check makes
 * sure the workload fits). @strict: @nid only, down to empty. */
static int pick_node(const struct sim *s, int nid, uint64_t need, bool strict)
{
	const int *fb;

	if (strict)
		return s->node[nid].present && s->node[nid].nr_free >= need ? nid : -ENOMEM;
	fb = s->fallback[s->node[nid].cpus ? nid : s->top_nid];
	if (s->node[nid].present && s->node[nid].nr_free >= s->node[nid].wmark_low + need)
		return nid;
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < SIM_MAX_NODES && fb[i] >= 0; i++) {
			const struct sim_node *n = &s->node[fb[i]];
			uint64_t floor = pass == 0 ? n->wmark_low : pass == 1 ? n->wmark_min : 0;

			if (n->nr_free >= floor + need)
				return fb[i];
		}
	return -ENOMEM;
}

int sim_alloc(struct sim *s, uint32_t pg, int nid, bool strict)
{
	uint32_t head = sim_folio_head(s, pg);
	unsigned n = sim_folio_pages(s, pg);
	int to;

	if (s->pages[pg].flags & PG_PRESENT)
		return s->pages[pg].nid;
	to = pick_node(s, nid, n, strict);
	if (to < 0 && n > 1) {
		/* No node holds the folio: it is allocated as base pages. */
		for (unsigned i = 0; i < n; i++)
			s->pages[head + i].flags &= (uint8_t)~PG_THP;
		return sim_alloc(s, pg, nid, strict);
	}
	if (to < 0)
		return to;
	for (unsigned i = 0; i < n; i++)
		take_frame(s, head + i, to);
	return to;
}

void sim_first_touch(struct sim *s, struct sim_thread *t, uint32_t pg)
{
	/* The allocation itself is the page fault's cost; the scenario check
	 * guarantees a frame somewhere. */
	sim_alloc(s, pg, t->nid, false);
	t->clock += s->w * s->sc->m.fault_ns;
}

void sim_charge(struct sim *s, enum sim_mover mover, struct sim_thread *t, double ns)
{
	if (mover == SIM_MOVER_THREAD && t)
		t->clock += ns * s->w;
	else
		s->promoter_cpu_ns += ns * s->w;
}

int sim_move(struct sim *s, uint32_t pg, int to, uint64_t floor,
	     enum sim_mover mover, struct sim_thread *t, unsigned flush_batch)
{
	uint32_t head = sim_folio_head(s, pg);
	unsigned n = sim_folio_pages(s, pg);
	const struct sim_proc *p;
	int from = s->pages[head].nid;
	double bytes = (double)n * SIM_PAGE, tlb;

	if (!(s->pages[head].flags & PG_PRESENT) || from == to || !s->node[to].present)
		return -EINVAL;
	if (s->node[to].nr_free < floor + n) {
		s->cnt[SC_PGMIGRATE_FAIL] += n;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		give_frame(s, head + i);
		take_frame(s, head + i, to);
		s->pages[head + i].flags &= (uint8_t)~PG_PROTNONE;
	}
	s->cnt[SC_PGMIGRATE_SUCCESS] += n;
	if (s->node[from].lower && !s->node[to].lower)
		s->promoted_step += n;
	else if (!s->node[from].lower && s->node[to].lower)
		s->demoted_step += n;
	s->node[from].win_bytes += bytes;
	s->node[to].win_bytes += bytes;
	sim_charge(s, mover, t, s->sc->m.migrate_ns * n);
	/* The shootdown reaches every other CPU running the process. */
	p = &s->proc[s->pages[head].proc];
	tlb = s->w * s->sc->m.tlb_ns * n / (flush_batch ? flush_batch : 1);
	for (int i = 0; i < p->nr_threads; i++) {
		struct sim_thread *o = &s->thread[p->first_thread + i];

		if (o != t && !o->done) {
			o->clock += tlb;
			s->clocks_moved = true;
		}
	}
	return (int)n;
}

uint64_t sim_proc_lower_pages(const struct sim *s, const struct sim_proc *p)
{
	uint64_t n = 0;

	for (int i = 0; i < s->nr_nodes; i++)
		if (s->node[i].lower)
			n += p->on_node[i];
	return n;
}

uint64_t sim_proc_vaddr(const struct sim *s, uint32_t pg)
{
	const struct sim_proc *p = &s->proc[s->pages[pg].proc];

	if (p->vpn)
		return p->vpn[pg - p->base] << SIM_PAGE_SHIFT;
	return p->vbase + ((uint64_t)(pg - p->base) << SIM_PAGE_SHIFT);
}

int sim_proc_find(const struct sim *s, const struct sim_proc *p, uint64_t vaddr,
		  uint32_t *ret_pg)
{
	uint64_t vpn = vaddr >> SIM_PAGE_SHIFT;

	(void)s;
	if (p->vpn) {
		size_t lo = 0, hi = p->nr_pages;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->vpn[mid] < vpn)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == p->nr_pages || p->vpn[lo] != vpn)
			return -ENOENT;
		*ret_pg = p->base + (uint32_t)lo;
		return 0;
	}
	if (vaddr < p->vbase || (vaddr - p->vbase) >> SIM_PAGE_SHIFT >= p->nr_pages)
		return -ENOENT;
	*ret_pg = p->base + (uint32_t)((vaddr - p->vbase) >> SIM_PAGE_SHIFT);
	return 0;
}

void sim_fit_keys(const struct sim *s, char *buf, size_t len)
{
	static const char *const wl[SIM_WL_MAX][2] = {	/* where, how much */
		[SIM_WL_REDIS] = { "redis.place, redis.place_node", "redis.keys, redis.slot_bytes" },
		[SIM_WL_YCSB] = { "ycsb.place, ycsb.place_node", "ycsb.keys, ycsb.slot_bytes" },
		[SIM_WL_MICRO] = { "micro.top_pct, micro.top_node, micro.lower_node", "micro.size" },
		[SIM_WL_BT] = { "bt.lower_node", "bt.footprint" },
		[SIM_WL_TRACE] = { "trace.place, trace.place_node", "a shorter trace" },
	};
	int w = s->sc->workload >= 0 && s->sc->workload < SIM_WL_MAX ? s->sc->workload : SIM_WL_MICRO;
	bool ref = s->c->policy == SIM_POL_DRAM_ONLY || s->c->policy == SIM_POL_CXL_ONLY;

	if (ref)	/* the case binds every page to one tier */
		snprintf(buf, len, "leave out the reference case %s (references)%s or give a "
			 "smaller workload (%s)", s->c->label,
			 s->c->filler_bytes ? ", less cold memory (levels)" : "", wl[w][1]);
	else
		snprintf(buf, len, "place less there (%s)%s or give a smaller workload (%s)",
			 wl[w][0], s->c->filler_bytes ? ", less cold memory (levels)" : "", wl[w][1]);
}

int sim_place_pages(struct sim *s, uint32_t first, uint64_t n, int place, int top_node,
		    int lower_node, double top_pct)
{
	uint64_t top = place == SIM_PLACE_TOP ? n : place == SIM_PLACE_SPLIT ?
		       (uint64_t)((double)n * top_pct / 100.0) : 0;

	if (place == SIM_PLACE_FIRST_TOUCH)
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		int to = i < top ? top_node : lower_node;

		/* Placed memory is bound where it starts (MPOL_BIND, then
		 * migrated there): it must fit. */
		if (sim_alloc(s, first + (uint32_t)i, to, true) < 0) {
			char keys[256];

			sim_fit_keys(s, keys, sizeof(keys));
			return sim_errf(s, -EINVAL, "%llu pages do not fit on node %d "
					"(%llu free at this scale): %.1f GiB short at full scale; "
					"give node %d more memory (node.%d.mem, node.%d.reserved), %s",
					(unsigned long long)(n - i), to,
					(unsigned long long)s->node[to].nr_free,
					(double)(n - i) * SIM_PAGE / s->scale / (1 << 30), to, to, to,
					keys);
		}
	}
	return 0;
}
