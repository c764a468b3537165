// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NUMA balancing in tiering mode (numa_balancing=2) and kswapd demotion.
 *
 * Scanner (task_numa_work(), kernel/sched/fair.c; change_prot_numa(),
 * mm/mprotect.c): per process, every scan period, make up to scan_size_mb of
 * its address space PROT_NONE, walking on from where the last scan stopped,
 * in steps that end at 2 MiB boundaries. Top-tier pages are skipped (tiering mode without
 * NUMA_BALANCING_NORMAL); a step that changed a PTE uses up its whole size
 * of the budget, one that changed none only the 8x virtual budget. The scan
 * time of each page is kept (folio_xchg_access_time()). The period starts
 * at task_scan_min() and, at the end of every pass over the address space,
 * grows as update_task_scan_period() makes it grow in tiering mode (where
 * faults on slow memory are not counted): by 3/10 if the pass promoted
 * something (all counted faults local), doubled if not, up to
 * task_scan_max(). task_scan_min/max divide scan_period_min/max by the
 * number of scan_size windows in the RSS, with a floor of 1000 ms x
 * scan_size / 2560 MB (MAX_SCAN_WINDOW).
 *
 * Hint fault (do_numa_page(), should_numa_migrate_memory()): on a
 * lower-tier page, the target is the faulting CPU's node. If it has plenty
 * of free memory (pgdat_free_space_enough()), promote and count
 * pgpromote_candidate_nrl; else the hint-fault latency (now - scan time)
 * must be under the hot threshold (auto-adjusted every 60 s, commit
 * c959924b0dc5) and the candidate under the per-second rate limit (commit
 * c6833e10008f), both counted in pgpromote_candidate first. The page moves
 * in the fault (migrate_misplaced_folio()) if the target stays above its
 * high watermark; otherwise kswapd is woken on the target. pghot-hintfault
 * reports the fault to pghot instead and moves nothing here.
 *
 * kswapd: a top-tier node below its low watermark (or woken by a failed
 * promotion) demotes pages that were not referenced since the clock hand
 * last passed (a second chance, as the inactive list gives) to the nearest
 * lower-tier node until it is above its high watermark (promo in tiering
 * mode), as fast as its CPU copies them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sim/model.h"

#define MAX_SCAN_WINDOW_MB 2560
#define KSWAPD_STEP_NS 10000000ull	/* 10 ms */

struct numab_proc {
	uint64_t next_ns;
	uint64_t cursor;		/* page offset in the process */
	double period_ms;
	uint64_t promoted;		/* in the current pass */
	bool started;
};

struct numab_node {
	uint64_t th_ms;			/* nbp_threshold, 0: not adjusted */
	uint64_t th_start_ms, th_cand;	/* nbp_th_start, nbp_th_nr_cand */
	uint64_t rl_start_ms, rl_cand;	/* nbp_rl_start, nbp_rl_nr_cand */
	uint64_t cand;			/* PGPROMOTE_CANDIDATE of the node */
};

struct numab {
	bool to_pghot;
	uint32_t *scan_ms;		/* per page: when it was made PROT_NONE */
	uint64_t scan_pages;		/* scan_size at this scale */
	double rate_limit_pages;	/* per second, at this scale */
	struct numab_proc proc[SIM_MAX_PROCS];
	struct numab_node node[SIM_MAX_NODES];
};

bool sim_free_space_enough(const struct sim *s, int nid)
{
	const struct sim_node *n = &s->node[nid];
	double enough = fmax((double)(1ull << 30) * s->scale / SIM_PAGE, (double)n->frames / 16);

	return (double)n->nr_free > (double)n->wmark_promo + enough;
}

static uint64_t proc_rss(const struct sim *s, const struct sim_proc *p)
{
	uint64_t n = 0;

	for (int i = 0; i < s->nr_nodes; i++)
		n += p->on_node[i];
	return n;
}

/* task_scan_min() and task_scan_max(), ms. */
static void scan_bounds(const struct sim *s, const struct numab *nb, const struct sim_proc *p,
			double *smin, double *smax)
{
	const struct sim_numab_cfg *c = &s->sc->numab;
	double windows = ceil((double)proc_rss(s, p) / (double)nb->scan_pages);
	double floor_ms = 1000.0 * (double)c->scan_size_mb / MAX_SCAN_WINDOW_MB;

	if (windows < 1)
		windows = 1;
	if (c->scan_size_mb >= MAX_SCAN_WINDOW_MB)
		floor_ms = 1000;
	*smin = fmax(floor_ms, (double)c->scan_period_min_ms / windows);
	*smax = fmax(*smin, (double)c->scan_period_max_ms / windows);
}

static int proc_thread(const struct sim *s, const struct sim_proc *p)
{
	for (int i = 0; i < p->nr_threads; i++)
		if (!s->thread[p->first_thread + i].done)
			return p->first_thread + i;
	return -1;
}

/* One run of task_numa_work() for @p. */
static void scan_proc(struct sim *s, struct numab *nb, struct sim_proc *p, uint64_t now)
{
	struct numab_proc *np = &nb->proc[p->id];
	int64_t budget = (int64_t)nb->scan_pages, virt = 8 * budget;
	uint32_t now_ms = (uint32_t)(now / 1000000);
	uint64_t updates = 0;
	int ti = proc_thread(s, p);
	double smin, smax;

	if (ti < 0) {
		np->next_ns = UINT64_MAX;	/* the process is done */
		return;
	}
	scan_bounds(s, nb, p, &smin, &smax);
	if (!np->started) {
		np->period_ms = smin;
		np->started = true;
	}
	while (budget > 0 && virt > 0) {
		/* Up to the next 2 MiB boundary, but never past the budget:
		 * at a small scale a window is fewer pages than a PMD. */
		uint64_t step = SIM_THP_PAGES - np->cursor % SIM_THP_PAGES, changed = 0;

		if (step > (uint64_t)budget)
			step = (uint64_t)budget;
		if (step > p->nr_pages - np->cursor)
			step = p->nr_pages - np->cursor;
		for (uint64_t i = 0; i < step; i++) {
			uint32_t pg = p->base + (uint32_t)(np->cursor + i);
			struct sim_page *pp = &s->pages[pg];

			if ((pp->flags & (PG_PRESENT | PG_PROTNONE)) != PG_PRESENT ||
			    !s->node[pp->nid].lower)
				continue;
			pp->flags |= PG_PROTNONE;
			nb->scan_ms[pg] = now_ms;
			changed++;
		}
		updates += changed;
		if (changed)
			budget -= (int64_t)step;
		virt -= (int64_t)step;
		np->cursor += step;
		if (np->cursor >= p->nr_pages) {
			/* A pass ended: task_numa_placement()'s period update. */
			np->cursor = 0;
			if (s->sc->numab.adapt_period)
				np->period_ms *= np->promoted ? 1.3 : 2.0;
			np->promoted = 0;
		}
	}
	if (!s->sc->numab.adapt_period)
		np->period_ms = smin;
	np->period_ms = fmin(fmax(np->period_ms, smin), smax);
	s->cnt[SC_NUMA_PTE_UPDATES] += updates;
	/* The scan runs in the task's context; the flush of the changed
	 * range interrupts the other threads once. */
	s->thread[ti].clock += s->w * s->sc->m.pte_ns * (double)updates;
	if (updates)
		for (int i = 0; i < p->nr_threads; i++)
			if (p->first_thread + i != ti)
				s->thread[p->first_thread + i].clock += s->sc->m.tlb_ns;
	s->clocks_moved = true;
	np->next_ns = now + (uint64_t)(np->period_ms * 1e6);
}

static void scanner_run(struct sim *s, struct sim_agent *a, uint64_t now)
{
	struct numab *nb = a->priv;
	uint64_t next = UINT64_MAX;

	for (int i = 0; i < s->nr_procs; i++) {
		struct sim_proc *p = &s->proc[i];
		struct numab_proc *np = &nb->proc[i];

		if (!p->nr_threads)
			continue;
		if (np->next_ns <= now)
			scan_proc(s, nb, p, now);
		if (np->next_ns < next)
			next = np->next_ns;
	}
	a->next_ns = next;
}

/* numa_promotion_adjust_threshold(): every 60 s (scan_period_max). */
static void adjust_threshold(struct sim *s, struct numab_node *nn, uint64_t now_ms)
{
	const struct sim_numab_cfg *c = &s->sc->numab;
	double ref_cand = s->sc->numab.rate_limit_MBps * 256.0 * s->scale *
			  (double)c->scan_period_max_ms / 1000.0;
	uint64_t ref_th = c->hot_threshold_ms, unit = ref_th * 2 / 16, th;
	double diff;

	if (now_ms - nn->th_start_ms <= c->scan_period_max_ms)
		return;
	nn->th_start_ms = now_ms;
	diff = (double)(nn->cand - nn->th_cand);
	th = nn->th_ms ? nn->th_ms : ref_th;
	if (diff > ref_cand * 11 / 10)
		th = th > 2 * unit ? th - unit : unit;
	else if (diff < ref_cand * 9 / 10)
		th = th + unit < ref_th * 2 ? th + unit : ref_th * 2;
	nn->th_cand = nn->cand;
	nn->th_ms = th;
}

/* should_numa_migrate_memory(), the tiering part. */
static bool should_promote(struct sim *s, struct numab *nb, uint32_t pg, int to,
			   unsigned n, uint64_t now_ms)
{
	const struct sim_numab_cfg *c = &s->sc->numab;
	struct numab_node *nn = &nb->node[to];
	uint64_t th;

	if (sim_free_space_enough(s, to)) {
		nn->th_ms = 0;
		s->cnt[SC_PGPROMOTE_CANDIDATE_NRL] += n;
		return true;
	}
	if (c->adjust_threshold)
		adjust_threshold(s, nn, now_ms);
	th = nn->th_ms ? nn->th_ms : c->hot_threshold_ms;
	if (c->use_threshold && (uint32_t)(now_ms - nb->scan_ms[pg]) >= th)
		return false;
	s->cnt[SC_PGPROMOTE_CANDIDATE] += n;
	nn->cand += n;
	if (now_ms - nn->rl_start_ms > 1000) {
		nn->rl_start_ms = now_ms;
		nn->rl_cand = nn->cand;
	}
	return !c->use_rate_limit || (double)(nn->cand - nn->rl_cand) < nb->rate_limit_pages;
}

static int cpu_target(const struct sim *s, const struct sim_thread *t)
{
	return s->node[t->nid].present && !s->node[t->nid].lower ? t->nid : s->top_nid;
}

static void hint_fault(struct sim *s, struct sim_thread *t, uint32_t pg)
{
	struct numab *nb = s->numab;
	uint32_t head = sim_folio_head(s, pg);
	unsigned n = sim_folio_pages(s, pg);
	uint64_t now_ms = (uint64_t)(t->clock * 1e-6);
	int to = cpu_target(s, t), err;

	for (unsigned i = 0; i < n; i++)
		s->pages[head + i].flags &= (uint8_t)~PG_PROTNONE;
	s->cnt[SC_NUMA_HINT_FAULTS]++;
	t->clock += s->w * s->sc->m.fault_ns;
	if (!s->node[s->pages[head].nid].lower)
		return;
	if (nb->to_pghot) {
		sim_pghot_report(s, t, head, PGHOT_SRC_HINTFAULT);
		return;
	}
	if (!should_promote(s, nb, head, to, n, now_ms))
		return;
	/* migrate_misplaced_folio_prepare(): the target must stay above its
	 * high watermark, else kswapd is woken there (tiering mode). */
	err = sim_move(s, head, to, s->node[to].wmark_high, SIM_MOVER_THREAD, t, 1);
	if (err < 0) {
		s->node[to].kswapd_wake = true;
		return;
	}
	s->cnt[SC_PGPROMOTE_SUCCESS] += n;
	s->cnt[SC_NUMA_PAGES_MIGRATED] += n;
	nb->proc[s->pages[head].proc].promoted += n;
}

int sim_numab_init(struct sim *s, bool to_pghot)
{
	struct numab *nb = calloc(1, sizeof(*nb));
	uint64_t first = s->sc->numab.scan_delay_ms * 1000000ull;

	if (!nb)
		return -ENOMEM;
	s->numab = nb;
	nb->to_pghot = to_pghot;
	nb->scan_ms = calloc(s->npages, sizeof(*nb->scan_ms));
	if (!nb->scan_ms)
		return -ENOMEM;
	nb->scan_pages = (uint64_t)fmax(1, (double)s->sc->numab.scan_size_mb * (1 << 20) *
					 s->scale / SIM_PAGE);
	nb->rate_limit_pages = (double)s->sc->numab.rate_limit_MBps * 256.0 * s->scale;
	for (int i = 0; i < s->nr_procs; i++)
		nb->proc[i].next_ns = (uint64_t)s->measure_start_ns + first;
	s->hint_fault = hint_fault;
	if (!sim_agent_add(s, "numa-scan", scanner_run, nb, (uint64_t)s->measure_start_ns + first))
		return -ENOMEM;
	return 0;
}

void sim_numab_free(struct sim *s)
{
	struct numab *nb = s->numab;

	if (!nb)
		return;
	free(nb->scan_ms);
	free(nb);
	s->numab = NULL;
}

/* ---- kswapd --------------------------------------------------------------- */

static int demote_target(const struct sim *s, int nid)
{
	const int *fb = s->fallback[s->node[nid].cpus ? nid : s->top_nid];

	for (int i = 0; i < SIM_MAX_NODES && fb[i] >= 0; i++)
		if (s->node[fb[i]].lower)
			return fb[i];
	return -1;
}

static void kswapd_node(struct sim *s, int nid)
{
	struct sim_node *n = &s->node[nid];
	bool tiering = s->c->policy == SIM_POL_NUMAB2 ||
		       s->c->policy == SIM_POL_PGHOT_HINTFAULT;
	uint64_t goal = tiering ? n->wmark_promo : n->wmark_high, scanned = 0;
	/* What kswapd's CPU can copy in one step. */
	double budget = (double)KSWAPD_STEP_NS / (s->sc->m.migrate_ns * s->w);
	int to = demote_target(s, nid);

	if (to < 0 || (n->nr_free >= n->wmark_low && !n->kswapd_wake))
		return;
	while (n->nr_free < goal && budget > 0 && scanned < 2 * n->frames) {
		uint32_t pg = n->frame_page[n->kswapd_hand];

		n->kswapd_hand = (n->kswapd_hand + 1) % n->frames;
		scanned++;
		if (pg >= SIM_RESERVED)
			continue;
		if (s->pages[pg].flags & PG_REF) {
			s->pages[pg].flags &= (uint8_t)~PG_REF;
			continue;
		}
		if (sim_move(s, pg, to, s->node[to].wmark_min, SIM_MOVER_KERNEL, NULL, 32) > 0) {
			s->cnt[SC_PGDEMOTE_KSWAPD] += sim_folio_pages(s, pg);
			budget -= sim_folio_pages(s, pg);
		}
	}
	if (n->nr_free >= goal)
		n->kswapd_wake = false;
}

static void kswapd_run(struct sim *s, struct sim_agent *a, uint64_t now)
{
	for (int i = 0; i < s->nr_nodes; i++)
		if (s->node[i].present && !s->node[i].lower)
			kswapd_node(s, i);
	a->next_ns = now + KSWAPD_STEP_NS;
}

int sim_kswapd_init(struct sim *s)
{
	return sim_agent_add(s, "kswapd", kswapd_run, NULL, KSWAPD_STEP_NS) ? 0 : -ENOMEM;
}
