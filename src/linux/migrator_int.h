/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The migrator's state, shared by its files: migrator.c (backends, lookups,
 * moves), migrator_policy.c (cpusets, memory policies, refusals: what is
 * pinned or refused and what is said), migrator_fake.c (fake:N placement).
 */
#ifndef PGHOT_LINUX_MIGRATOR_INT_H
#define PGHOT_LINUX_MIGRATOR_INT_H

#include <limits.h>

#include "linux/migrator.h"

#define STATUS_UNSET INT_MIN
#define PAGE_SHIFT 12

enum mig_kind { MIG_MOVE_PAGES = 0, MIG_DRY_RUN, MIG_FAKE };

/* What the migrator keeps of one process. */
struct mig_proc {
	pid_t pid;
	uint64_t start_time;		/* tracked: its identity; else 0 */
	bool tracked;			/* migrator_track() */
	struct addr_range *thp;		/* huge mappings (smaps), sorted */
	size_t nr_thp;
	struct mempol_proc pol;
};

/* fake:N: where pages were moved (every other page is on fake_nid). */
struct fake_page {
	pid_t pid;
	uint64_t addr;
	int nid;
};

struct migrator {
	enum mig_kind kind;
	char procfs[PATH_MAX];
	src_log_fn log;
	void *log_arg;
	move_pages_fn move_pages;
	struct mig_proc *procs;
	size_t nr_procs, cap_procs;
	struct pagemap_reader pm;
	struct nodemask lower;		/* pages on these may be promoted */
	int *promo;			/* to these nodes */
	size_t nr_promo;
	int fake_nid;
	struct fake_page *fake;		/* sorted by (pid, addr) */
	size_t nr_fake, cap_fake;
	struct migrator_stats st;
};

#define mlog(m, level, ...) src_logf((m)->log, (m)->log_arg, level, __VA_ARGS__)

/* migrator.c */
struct mig_proc *mig_proc_find(const struct migrator *m, pid_t pid);
/* What is kept of @p: NULL for another process with its pid. */
struct mig_proc *mig_proc_of(const struct migrator *m, const struct pl_proc *p);
/* The entry of @pid, made if new; NULL out of memory. */
struct mig_proc *mig_proc_get(struct migrator *m, pid_t pid);

/* migrator_policy.c */
/* Flag PL_PAGE_PINNED on the present lower-tier pages of a lookup that may
 * go to no promotion node (said once per reason). */
void mig_flag_pinned(struct migrator *m, struct mig_proc *mp,
		     const struct pl_proc *p, const uint64_t *addrs, size_t n,
		     struct pl_page *ret);
/* The moves the rules let through, into @sel (their count returned); the
 * others get their status: PERM (refused), BUSY (policies not read yet). */
size_t mig_gate(struct migrator *m, struct mig_proc *mp,
		const struct pl_proc *p, const uint64_t *addrs, const int *to,
		size_t n, enum pghot_move_status *ret, uint32_t *sel);
/* Remember what move_pages refused: @status per page, @call_err for the
 * call (0: it returned statuses). */
void mig_note_refusals(struct migrator *m, struct mig_proc *mp,
		       const struct pl_proc *p, const uint64_t *addrs,
		       const int *to, const int *status, size_t n, int call_err);

/* migrator_fake.c */
int mig_fake_nid(const struct migrator *m, pid_t pid, uint64_t addr);
/* Return: 0 or -ENOMEM. */
int mig_fake_put(struct migrator *m, pid_t pid, uint64_t addr, int nid);
void mig_fake_forget(struct migrator *m, pid_t pid);

#endif
