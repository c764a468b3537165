// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The move_pages(2), dry-run and fake backends of the pipeline's page ops;
 * see migrator.h. The rate limit is the engine's, not ours.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <numaif.h>

#include "linux/migrator.h"

#define STATUS_UNSET INT_MIN
#define PAGE_SHIFT 12
#define THP_SIZE (UINT64_C(2) << 20)

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

const char *move_status_name(enum pghot_move_status s)
{
	static const char *const names[PGHOT_MOVE_STATUS_MAX] = {
		[PGHOT_MOVE_OK] = "ok",
		[PGHOT_MOVE_BUSY] = "busy",
		[PGHOT_MOVE_NOMEM] = "nomem",
		[PGHOT_MOVE_GONE] = "gone",
		[PGHOT_MOVE_PERM] = "perm",
		[PGHOT_MOVE_OTHER] = "other",
	};
	return (unsigned int)s < PGHOT_MOVE_STATUS_MAX ? names[s] : "?";
}

int migrator_open(const char *spec, const char *procfs_root, src_log_fn log,
		  void *log_arg, struct migrator **ret, char *errbuf,
		  size_t errlen)
{
	struct migrator *m;
	enum mig_kind kind;
	long nid = -1;
	char *end;

	if (!strcmp(spec, "move_pages")) {
		kind = MIG_MOVE_PAGES;
	} else if (!strcmp(spec, "dry-run")) {
		kind = MIG_DRY_RUN;
	} else if (!strncmp(spec, "fake:", 5)) {
		kind = MIG_FAKE;
		nid = strtol(spec + 5, &end, 10);
		if (end == spec + 5 || *end || nid < 0 || nid >= PGHOT_MAX_NODES) {
			snprintf(errbuf, errlen,
				 "migrator '%s': fake needs a node, 0..%d (fake:1)",
				 spec, PGHOT_MAX_NODES - 1);
			return -EINVAL;
		}
	} else {
		snprintf(errbuf, errlen, "unknown migrator '%s'; known: %s", spec,
			 MIGRATOR_NAMES);
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	m->kind = kind;
	m->fake_nid = (int)nid;
	m->log = log;
	m->log_arg = log_arg;
	m->move_pages = move_pages;
	snprintf(m->procfs, sizeof(m->procfs), "%s", procfs_root ? procfs_root : "/proc");
	pagemap_init(&m->pm, m->procfs, PAGEMAP_PROBE);
	*ret = m;
	return 0;
}

static void proc_release(struct mig_proc *p)
{
	free(p->thp);
	mempol_proc_release(&p->pol);
}

void migrator_close(struct migrator *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_procs; i++)
		proc_release(&m->procs[i]);
	free(m->procs);
	free(m->promo);
	pagemap_release(&m->pm);
	free(m->fake);
	free(m);
}

const char *migrator_name(const struct migrator *m)
{
	static const char *const names[] = { "move_pages", "dry-run", "fake" };

	return names[m->kind];
}

bool migrator_is_real(const struct migrator *m)
{
	return m->kind != MIG_FAKE;
}

void migrator_stats(const struct migrator *m, struct migrator_stats *ret)
{
	*ret = m->st;
	ret->pm = m->pm.st;
	ret->folio_method = m->pm.method;
}

void migrator_set_move_pages(struct migrator *m, move_pages_fn fn)
{
	m->move_pages = fn ? fn : move_pages;
}

int migrator_set_tiers(struct migrator *m, const struct nodemask *lower,
		       const int *promo, size_t n)
{
	int *v;

	if (!n || n > PGHOT_MAX_NODES)
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, promo, n * sizeof(*v));
	free(m->promo);
	m->promo = v;
	m->nr_promo = n;
	m->lower = *lower;
	return 0;
}

/* ---- processes ---------------------------------------------------------- */

static struct mig_proc *proc_find(const struct migrator *m, pid_t pid)
{
	for (size_t i = 0; i < m->nr_procs; i++)
		if (m->procs[i].pid == pid)
			return &m->procs[i];
	return NULL;
}

/* What is kept of @p: none for another process with its pid. */
static struct mig_proc *proc_of(const struct migrator *m,
				const struct pl_proc *p)
{
	struct mig_proc *mp = proc_find(m, p->pid);

	return mp && mp->tracked && mp->start_time != p->start_time ? NULL : mp;
}

/* The entry of @pid, made if new; NULL out of memory. */
static struct mig_proc *proc_get(struct migrator *m, pid_t pid)
{
	struct mig_proc *mp = proc_find(m, pid);

	if (mp)
		return mp;
	if (m->nr_procs == m->cap_procs) {
		size_t cap = m->cap_procs ? m->cap_procs * 2 : 8;
		struct mig_proc *np = realloc(m->procs, cap * sizeof(*np));

		if (!np)
			return NULL;
		m->procs = np;
		m->cap_procs = cap;
	}
	mp = &m->procs[m->nr_procs++];
	memset(mp, 0, sizeof(*mp));
	mp->pid = pid;
	return mp;
}

static void fake_forget(struct migrator *m, pid_t pid);

void migrator_forget(struct migrator *m, pid_t pid)
{
	struct mig_proc *mp = proc_find(m, pid);

	if (mp) {
		proc_release(mp);
		*mp = m->procs[--m->nr_procs];
	}
	fake_forget(m, pid);
}

int migrator_track(struct migrator *m, const struct pl_proc *p)
{
	struct mig_proc *mp = proc_find(m, p->pid);

	if (mp && mp->tracked && mp->start_time != p->start_time)
		migrator_forget(m, p->pid);	/* another process had the pid */
	mp = proc_get(m, p->pid);
	if (!mp)
		return -ENOMEM;
	mp->tracked = true;
	mp->start_time = p->start_time;
	return 0;
}

static struct mig_proc *tracked(struct migrator *m, const struct pl_proc *p)
{
	struct mig_proc *mp = proc_of(m, p);

	return mp && mp->tracked ? mp : NULL;
}

int migrator_set_mems(struct migrator *m, const struct pl_proc *p, bool has,
		      const struct nodemask *mems)
{
	struct mig_proc *mp = tracked(m, p);

	if (!mp)
		return -ESRCH;
	mempol_set_mems(&mp->pol, has, mems);
	return 0;
}

int migrator_set_maps(struct migrator *m, const struct pl_proc *p,
		      struct mempol_maps *b)
{
	struct mig_proc *mp = tracked(m, p);

	if (!mp) {
		mempol_maps_release(b);
		return -ESRCH;
	}
	mempol_set_maps(&mp->pol, b);
	return 0;
}

/* ---- folios ------------------------------------------------------------- */

int migrator_set_thp(struct migrator *m, pid_t pid, struct addr_range *v,
		     size_t n)
{
	struct mig_proc *mp = proc_find(m, pid);

	if (!mp && !n) {
		free(v);
		return 0;
	}
	if (!mp)
		mp = proc_get(m, pid);
	if (!mp) {
		free(v);
		return -ENOMEM;
	}
	free(mp->thp);
	mp->thp = v;
	mp->nr_thp = n;
	return 0;
}

bool migrator_wants_thp_ranges(struct migrator *m, pid_t pid)
{
	if (m->pm.method == PAGEMAP_RANGES)
		return true;
	return !fsr_exists(m->procfs, "%d/pagemap", (int)pid);
}

void migrator_set_folio_method(struct migrator *m, enum pagemap_method method)
{
	m->pm.method = method;
}

/* The folio order of @addr from the huge mappings: 9 when its 2 MiB
 * extent lies in one, else 0. */
static uint8_t range_order(const struct mig_proc *mp, uint64_t addr)
{
	uint64_t head = addr & ~(THP_SIZE - 1);
	size_t lo = 0, hi = mp ? mp->nr_thp : 0;

	while (lo < hi) {	/* the first range ending after @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (mp->thp[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == (mp ? mp->nr_thp : 0) || addr < mp->thp[lo].start)
		return 0;
	return head >= mp->thp[lo].start && head + THP_SIZE <= mp->thp[lo].end ?
		       PAGEMAP_PMD_ORDER : 0;
}

/* The orders of the present pages of a lookup: per page where the kernel
 * lets us, else from the ranges. */
static void folio_orders(struct migrator *m, const struct mig_proc *mp,
			 pid_t pid, const uint64_t *addrs, size_t n,
			 struct pl_page *ret)
{
	bool want[PL_LOOKUP_MAX] = { false };
	uint8_t order[PL_LOOKUP_MAX];

	for (size_t i = 0; i < n; i++)
		want[i] = ret[i].nid >= 0;
	if (!pagemap_orders(&m->pm, pid, addrs, want, n, order)) {
		for (size_t i = 0; i < n; i++)
			ret[i].order = order[i];
		return;
	}
	for (size_t i = 0; i < n; i++) {
		ret[i].order = want[i] ? range_order(mp, addrs[i]) : 0;
		m->st.folio_ranges += want[i];
	}
}

/* ---- policies ----------------------------------------------------------- */

/* Say once per process why some of its pages stay where they are. */
static void say(struct migrator *m, struct mig_proc *mp,
		const struct pl_proc *p, enum mempol_why why, uint64_t addr,
		int nid)
{
	char what[256];

	if (why == MEMPOL_OK || (mp->pol.said & (1u << why)))
		return;
	mp->pol.said |= 1u << why;
	switch (why) {
	case MEMPOL_CPUSET:
		nodelist_format(&mp->pol.mems, what, sizeof(what));
		mlog(m, LOG_NOTICE,
		     "pid %d (%s): its cpuset allows nodes %s (Mems_allowed), not node %d: its pages stay where they are",
		     (int)p->pid, p->comm, what[0] ? what : "none", nid);
		break;
	case MEMPOL_POLICY:
		mempol_policy_at(&mp->pol, addr, what, sizeof(what));
		mlog(m, LOG_NOTICE,
		     "pid %d (%s): its pages at %#llx have memory policy %s (numa_maps), which does not allow node %d: pages under such a policy stay where they are (%zu mapping%s with one)",
		     (int)p->pid, p->comm, (unsigned long long)addr, what, nid,
		     mp->pol.maps.nr_restricted,
		     mp->pol.maps.nr_restricted == 1 ? "" : "s");
		break;
	case MEMPOL_REFUSED_NODE:
		mlog(m, LOG_WARNING,
		     "pid %d (%s): move_pages refused node %d (EACCES: its cpuset does not allow it): its pages are left where they are, not tried again until its Mems_allowed changes",
		     (int)p->pid, p->comm, nid);
		break;
	case MEMPOL_REFUSED_PAGE:
		mlog(m, LOG_WARNING,
		     "pid %d (%s): move_pages refused the page at %#llx (EACCES: it is mapped by other processes too, and MPOL_MF_MOVE moves only pages mapped once): such pages are left where they are, not tried again (%d remembered at most)",
		     (int)p->pid, p->comm, (unsigned long long)addr,
		     MEMPOL_REFUSED_MAX);
		break;
	case MEMPOL_REFUSED_ALL:
		mlog(m, LOG_WARNING,
		     "pid %d (%s): move_pages refused to move its pages (EPERM: pghotd needs CAP_SYS_NICE, and ptrace access to the process): its pages are left where they are, not tried again",
		     (int)p->pid, p->comm);
		break;
	default:
		break;
	}
}

/* Flag the present pages on a lower-tier node that may not go to any
 * promotion node. */
static void flag_pinned(struct migrator *m, struct mig_proc *mp,
			const struct pl_proc *p, const uint64_t *addrs,
			size_t n, struct pl_page *ret)
{
	for (size_t i = 0; mp && i < n; i++) {
		uint64_t head;
		enum mempol_why why;

		if (ret[i].nid < 0 || !nodemask_test(&m->lower, ret[i].nid))
			continue;
		head = addrs[i] & ~((UINT64_C(1) << (PAGE_SHIFT + ret[i].order)) - 1);
		why = mempol_check_any(&mp->pol, head, m->promo, m->nr_promo);
		if (why == MEMPOL_OK)
			continue;
		ret[i].flags |= PL_PAGE_PINNED;
		m->st.pages_pinned++;
		say(m, mp, p, why, head, m->promo[0]);
	}
}

/* ---- fake:N -------------------------------------------------------------- */

static int fake_cmp(pid_t pa, uint64_t aa, const struct fake_page *b)
{
	if (pa != b->pid)
		return pa < b->pid ? -1 : 1;
	return aa < b->addr ? -1 : aa > b->addr;
}

/* Index of (pid, addr) or of where it would go; *ret_found. */
static size_t fake_pos(const struct migrator *m, pid_t pid, uint64_t addr,
		       bool *ret_found)
{
	size_t lo = 0, hi = m->nr_fake;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = fake_cmp(pid, addr, &m->fake[mid]);

		if (!c) {
			*ret_found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*ret_found = false;
	return lo;
}

static int fake_nid_of(const struct migrator *m, pid_t pid, uint64_t addr)
{
	bool found;
	size_t i = fake_pos(m, pid, addr, &found);

	return found ? m->fake[i].nid : m->fake_nid;
}

static int fake_put(struct migrator *m, pid_t pid, uint64_t addr, int nid)
{
	bool found;
	size_t i = fake_pos(m, pid, addr, &found);

	if (found) {
		m->fake[i].nid = nid;
		return 0;
	}
	if (m->nr_fake == m->cap_fake) {
		size_t cap = m->cap_fake ? m->cap_fake * 2 : 1024;
		struct fake_page *nf = realloc(m->fake, cap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		m->fake = nf;
		m->cap_fake = cap;
	}
	memmove(&m->fake[i + 1], &m->fake[i], (m->nr_fake - i) * sizeof(*m->fake));
	m->fake[i] = (struct fake_page){ .pid = pid, .addr = addr, .nid = nid };
	m->nr_fake++;
	return 0;
}

static void fake_forget(struct migrator *m, pid_t pid)
{
	size_t k = 0;

	for (size_t i = 0; i < m->nr_fake; i++)
		if (m->fake[i].pid != pid)
			m->fake[k++] = m->fake[i];
	m->nr_fake = k;
}

/* ---- lookups ------------------------------------------------------------- */

/* Where @n pages of @pid are: move_pages with nodes = NULL. */
static int query_nodes(struct migrator *m, pid_t pid, const uint64_t *addrs,
		       size_t n, struct pl_page *ret)
{
	void *va[PL_LOOKUP_MAX];
	int st[PL_LOOKUP_MAX];

	for (size_t i = 0; i < n; i++) {
		va[i] = (void *)(uintptr_t)addrs[i];
		st[i] = STATUS_UNSET;
	}
	m->st.query_syscalls++;
	if (m->move_pages(pid, n, va, NULL, st, 0) < 0)
		return -errno;
	for (size_t i = 0; i < n; i++)
		ret[i] = (struct pl_page){
			.nid = st[i] == STATUS_UNSET ? -EAGAIN : st[i],
		};
	return 0;
}

int migrator_lookup(struct migrator *m, const struct pl_proc *p,
		    const uint64_t *addrs, size_t n, struct pl_page *ret)
{
	struct mig_proc *mp = proc_of(m, p);
	int err;

	if (n > PL_LOOKUP_MAX)
		return -E2BIG;
	if (m->kind == MIG_FAKE) {
		for (size_t i = 0; i < n; i++)
			ret[i] = (struct pl_page){
				.nid = fake_nid_of(m, p->pid, addrs[i]),
			};
	} else {
		err = query_nodes(m, p->pid, addrs, n, ret);
		if (err)
			return err;
	}
	folio_orders(m, mp, p->pid, addrs, n, ret);
	flag_pinned(m, mp, p, addrs, n, ret);
	return 0;
}

/* ---- moves --------------------------------------------------------------- */

/* Is @p's pid still that process? (start time, as at its adoption) */
static int same_process(struct migrator *m, const struct pl_proc *p)
{
	struct target_id now;
	int err = proc_read_identity(m->procfs, p->pid, &now);

	if (err == -ENOENT || (!err && now.start_time != p->start_time)) {
		if (!err)
			m->st.identity_mismatch++;
		return -ESRCH;
	}
	return err;
}

static void count(struct migrator *m, const enum pghot_move_status *st, size_t n)
{
	for (size_t i = 0; i < n; i++)
		m->st.moved[st[i]]++;
}

static int move_fake(struct migrator *m, const struct pl_proc *p,
		     const uint64_t *addrs, const int *to, size_t n,
		     enum pghot_move_status *ret)
{
	for (size_t i = 0; i < n; i++) {
		mlog(m, LOG_INFO, "fake: move pid %d addr %#llx to node %d",
		     (int)p->pid, (unsigned long long)addrs[i], to[i]);
		ret[i] = fake_put(m, p->pid, addrs[i], to[i]) ? PGHOT_MOVE_NOMEM :
								 PGHOT_MOVE_OK;
	}
	return 0;
}

/* After move_pages stopped writing status at a failing batch: where the
 * unset pages are now decides (on the target: OK; elsewhere: BUSY). */
static void requery_unset(struct migrator *m, pid_t pid, void **va,
			  const int *to, int *status, size_t n)
{
	void *ra[PL_LOOKUP_MAX];
	int rq[PL_LOOKUP_MAX];
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (status[i] == STATUS_UNSET)
			ra[k++] = va[i];
	if (!k)
		return;
	m->st.query_syscalls++;
	if (m->move_pages(pid, k, ra, NULL, rq, 0))
		return;
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (status[i] == STATUS_UNSET) {
			int q = rq[k++];

			status[i] = q == to[i] || q < 0 ? q : -EBUSY;
		}
}

/* What the kernel refused is remembered (and said once): a whole call
 * failing with -EACCES refuses the node of the page it stopped at (the
 * first without a status), -EPERM the process; a page's -EACCES/-EPERM
 * its folio. */
static void note_refusals(struct migrator *m, struct mig_proc *mp,
			  const struct pl_proc *p, const uint64_t *addrs,
			  const int *to, const int *status, size_t n,
			  int call_err)
{
	size_t at = 0;

	if (!mp)
		return;
	if (call_err == -EACCES || call_err == -EPERM) {
		while (at + 1 < n && status[at] != STATUS_UNSET)
			at++;
		mempol_refused(&mp->pol, addrs[at], to[at], call_err, true);
		m->st.refused_kernel += n;
		say(m, mp, p, call_err == -EPERM ? MEMPOL_REFUSED_ALL :
						   MEMPOL_REFUSED_NODE,
		    addrs[at], to[at]);
		return;
	}
	for (size_t i = 0; !call_err && i < n; i++) {
		if (status[i] != -EACCES && status[i] != -EPERM)
			continue;
		m->st.refused_kernel++;
		if (!mempol_refused(&mp->pol, addrs[i], to[i], status[i], false))
			say(m, mp, p, MEMPOL_REFUSED_PAGE, addrs[i], to[i]);
	}
}

/* move_pages(2) itself, its statuses mapped. */
static int move_real(struct migrator *m, struct mig_proc *mp,
		     const struct pl_proc *p, const uint64_t *addrs,
		     const int *to, size_t n, enum pghot_move_status *ret)
{
	void *va[PL_LOOKUP_MAX];
	int status[PL_LOOKUP_MAX];
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		va[i] = (void *)(uintptr_t)addrs[i];
		status[i] = STATUS_UNSET;
	}
	m->st.syscalls++;
	if (m->move_pages(p->pid, n, va, to, status, MPOL_MF_MOVE) < 0) {
		err = -errno;
		for (size_t i = 0; i < n; i++)
			ret[i] = pl_move_status(err);
		note_refusals(m, mp, p, addrs, to, status, n, err);
		return err;
	}
	requery_unset(m, p->pid, va, to, status, n);
	for (size_t i = 0; i < n; i++) {
		int s = status[i];

		if (s == STATUS_UNSET)
			ret[i] = PGHOT_MOVE_OTHER;
		else if (s >= 0)
			ret[i] = s == to[i] ? PGHOT_MOVE_OK : PGHOT_MOVE_BUSY;
		else
			ret[i] = pl_move_status(s);
	}
	note_refusals(m, mp, p, addrs, to, status, n, 0);
	return 0;
}

static int move_by_kind(struct migrator *m, struct mig_proc *mp,
			const struct pl_proc *p, const uint64_t *addrs,
			const int *to, size_t n, enum pghot_move_status *ret)
{
	if (m->kind == MIG_FAKE)
		return move_fake(m, p, addrs, to, n, ret);
	if (m->kind == MIG_MOVE_PAGES)
		return move_real(m, mp, p, addrs, to, n, ret);
	for (size_t i = 0; i < n; i++) {
		mlog(m, LOG_INFO, "dry-run: move pid %d addr %#llx to node %d",
		     (int)p->pid, (unsigned long long)addrs[i], to[i]);
		ret[i] = PGHOT_MOVE_OK;
	}
	return 0;
}

/* The moves the rules let through, into @sel; the others get their
 * status here: PERM (refused, said once), BUSY (policies not read yet). */
static size_t gate(struct migrator *m, struct mig_proc *mp,
		   const struct pl_proc *p, const uint64_t *addrs,
		   const int *to, size_t n, enum pghot_move_status *ret,
		   uint32_t *sel)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		enum mempol_why why;

		if (!mp || !mp->tracked) {
			sel[k++] = (uint32_t)i;
			continue;
		}
		if (!mp->pol.known) {
			ret[i] = PGHOT_MOVE_BUSY;
			m->st.waited_policy++;
			continue;
		}
		why = mempol_check(&mp->pol, addrs[i], to[i]);
		if (why == MEMPOL_OK) {
			sel[k++] = (uint32_t)i;
			continue;
		}
		ret[i] = PGHOT_MOVE_PERM;
		m->st.refused_policy++;
		say(m, mp, p, why, addrs[i], to[i]);
	}
	return k;
}

/* The pages @sel picked, moved. */
static void move_selected(struct migrator *m, struct mig_proc *mp,
			 const struct pl_proc *p, const uint64_t *addrs,
			 const int *to, const uint32_t *sel, size_t k,
			 enum pghot_move_status *ret)
{
	uint64_t a[PL_LOOKUP_MAX];
	int t[PL_LOOKUP_MAX];
	enum pghot_move_status st[PL_LOOKUP_MAX];

	for (size_t j = 0; j < k; j++) {
		a[j] = addrs[sel[j]];
		t[j] = to[sel[j]];
	}
	move_by_kind(m, mp, p, a, t, k, st);
	for (size_t j = 0; j < k; j++)
		ret[sel[j]] = st[j];
}

int migrator_move(struct migrator *m, const struct pl_proc *p,
		  const uint64_t *addrs, const int *to, size_t n,
		  enum pghot_move_status *ret)
{
	uint32_t sel[PL_LOOKUP_MAX];
	struct mig_proc *mp;
	size_t k;
	int err;

	if (n > PL_LOOKUP_MAX)
		return -E2BIG;
	err = same_process(m, p);
	if (err) {
		for (size_t i = 0; i < n; i++)
			ret[i] = pl_move_status(err);
		goto out;
	}
	mp = proc_of(m, p);
	k = gate(m, mp, p, addrs, to, n, ret, sel);
	if (k == n)
		err = move_by_kind(m, mp, p, addrs, to, n, ret);
	else if (k)	/* statuses are per page: no whole-call error */
		move_selected(m, mp, p, addrs, to, sel, k, ret);
out:
	count(m, ret, n);
	return err;
}
