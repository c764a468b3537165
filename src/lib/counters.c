/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Counter names, in enum pghot_counter order. The kernel's names where the
 * meaning is the same (mm/vmstat.c, mm/pghot.c), ours otherwise.
 */
#include <errno.h>

#include "internal.h"

static const char *const counter_names[PGHOT_COUNTER_MAX] = {
	[PGHOT_RECORDED_HINTFAULTS] = "pghot_recorded_hintfaults",
	[PGHOT_RECORDED_HWHINTS] = "pghot_recorded_hwhints",
	[PGHOT_RECORDED_SCANS] = "pghot_recorded_scans",
	[PGHOT_RECORDED_FEEDS] = "pghot_recorded_feeds",
	[PGHOT_RECORDED_ACCESSES] = "pghot_recorded_accesses",
	[PGHOT_SKIPPED_TOPTIER] = "pghot_skipped_toptier",
	[PGHOT_SKIPPED_LOCAL] = "pghot_skipped_local",
	[PGHOT_SKIPPED_DISABLED] = "pghot_skipped_disabled",
	[PGHOT_READY] = "pghot_ready",
	[PGPROMOTE_CANDIDATE_NRL] = "pgpromote_candidate_nrl",
	[PGPROMOTE_CANDIDATE] = "pgpromote_candidate",
	[PGPROMOTE_SUCCESS] = "pgpromote_success",
	[PGHOT_PROMOTE_SKIP_COLD] = "pghot_promote_skip_cold",
	[PGHOT_PROMOTE_RATELIMITED] = "pghot_promote_ratelimited",
	[PGHOT_PROMOTE_SKIP_SAME_NODE] = "pghot_promote_skip_same_node",
	[PGHOT_PROMOTE_FAIL_BUSY] = "pghot_promote_fail_busy",
	[PGHOT_PROMOTE_FAIL_NOMEM] = "pghot_promote_fail_nomem",
	[PGHOT_PROMOTE_FAIL_GONE] = "pghot_promote_fail_gone",
	[PGHOT_PROMOTE_FAIL_PERM] = "pghot_promote_fail_perm",
	[PGHOT_PROMOTE_FAIL_OTHER] = "pghot_promote_fail_other",
	[PGHOT_PROMOTE_BATCHES] = "pghot_promote_batches",
	[PGHOT_THRESHOLD_ADJUSTMENTS] = "pghot_threshold_adjustments",
};

const char *pghot_counter_name(enum pghot_counter c)
{
	if ((unsigned int)c >= PGHOT_COUNTER_MAX)
		return NULL;
	return counter_names[c];
}

int pghot_counters(const struct pghot_engine *e, uint64_t *ret)
{
	unsigned int i;

	if (!e || !ret)
		return -EINVAL;
	for (i = 0; i < PGHOT_COUNTER_MAX; i++)
		ret[i] = e->counters[i];
	return 0;
}

uint64_t pghot_node_counter(const struct pghot_engine *e, int nid,
			    enum pghot_counter c)
{
	const struct node *n;

	if (!e || nid < 0 || (size_t)nid >= e->nr_nodes)
		return 0;
	n = &e->nodes[nid];
	switch (c) {
	case PGPROMOTE_CANDIDATE_NRL:
		return n->cnt_nrl;
	case PGPROMOTE_CANDIDATE:
		return n->cnt_cand;
	case PGPROMOTE_SUCCESS:
		return n->cnt_success;
	default:
		return 0;
	}
}
