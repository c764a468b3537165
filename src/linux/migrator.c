// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The move_pages(2), dry-run and fake backends of the pipeline's page ops;
 * see migrator.h. The rate limit is the engine's, not ours.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <numaif.h>

#include "linux/cpu_time.h"
#include "linux/migrator_int.h"

#define THP_SIZE (UINT64_C(2) << 20)

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

/* @spec as a kind (and the node of fake:NODE). Return: 0 or -EINVAL, said. */
static int parse_spec(const char *spec, enum mig_kind *ret_kind, long *ret_nid,
		      char *errbuf, size_t errlen)
{
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
	*ret_kind = kind;
	*ret_nid = nid;
	return 0;
}

int migrator_check(const char *spec)
{
	enum mig_kind kind;
	long nid;
	char err[256];

	return parse_spec(spec, &kind, &nid, err, sizeof(err));
}

int migrator_open(const char *spec, const char *procfs_root, src_log_fn log,
		  void *log_arg, struct migrator **ret, char *errbuf,
		  size_t errlen)
{
	struct migrator *m;
	enum mig_kind kind;
	long nid;
	int err;

	err = parse_spec(spec, &kind, &nid, errbuf, errlen);
	if (err)
		return err;
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

int migrator_fake_node(const struct migrator *m)
{
	return m->kind == MIG_FAKE ? m->fake_nid : -1;
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

struct mig_proc *mig_proc_find(const struct migrator *m, pid_t pid)
{
	for (size_t i = 0; i < m->nr_procs; i++)
		if (m->procs[i].pid == pid)
			return &m->procs[i];
	return NULL;
}

struct mig_proc *mig_proc_of(const struct migrator *m, const struct pl_proc *p)
{
	struct mig_proc *mp = mig_proc_find(m, p->pid);

	return mp && mp->tracked && mp->start_time != p->start_time ? NULL : mp;
}

struct mig_proc *mig_proc_get(struct migrator *m, pid_t pid)
{
	struct mig_proc *mp = mig_proc_find(m, pid);

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

void migrator_forget(struct migrator *m, pid_t pid)
{
	struct mig_proc *mp = mig_proc_find(m, pid);

	if (mp) {
		proc_release(mp);
		*mp = m->procs[--m->nr_procs];
	}
	mig_fake_forget(m, pid);
}

/* ---- folios ------------------------------------------------------------- */

int migrator_set_thp(struct migrator *m, pid_t pid, struct addr_range *v,
		     size_t n)
{
	struct mig_proc *mp = mig_proc_find(m, pid);

	if (!mp && !n) {
		free(v);
		return 0;
	}
	if (!mp)
		mp = mig_proc_get(m, pid);
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

/*
 * move_pages(2) through the backend's function, counted: a call that
 * moves (@to set) or looks up (@to NULL), and the CPU time the calling
 * thread spent in it, which is mostly the kernel's page-table walks and
 * copies: what a lookup or a move costs, per page, on this machine.
 */
static long timed_move_pages(struct migrator *m, pid_t pid, size_t n, void **va,
			     const int *to, int *status, int flags)
{
	uint64_t t0_us = thread_cpu_us();
	long r = m->move_pages(pid, (unsigned long)n, va, to, status, flags);
	int saved = errno;	/* the callers return -errno of the call */
	uint64_t cpu_us = cpu_us_since(t0_us);

	if (to) {
		m->st.syscalls++;
		m->st.move_cpu_us += cpu_us;
	} else {
		m->st.query_syscalls++;
		m->st.query_cpu_us += cpu_us;
	}
	errno = saved;
	return r;
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
	if (timed_move_pages(m, pid, n, va, NULL, st, 0) < 0)
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
	struct mig_proc *mp = mig_proc_of(m, p);
	int err;

	if (n > PL_LOOKUP_MAX)
		return -E2BIG;
	if (m->kind == MIG_FAKE) {
		for (size_t i = 0; i < n; i++)
			ret[i] = (struct pl_page){
				.nid = mig_fake_nid(m, p->pid, addrs[i]),
			};
	} else {
		err = query_nodes(m, p->pid, addrs, n, ret);
		if (err)
			return err;
	}
	folio_orders(m, mp, p->pid, addrs, n, ret);
	mig_flag_pinned(m, mp, p, addrs, n, ret);
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
		ret[i] = mig_fake_put(m, p->pid, addrs[i], to[i]) ? PGHOT_MOVE_NOMEM :
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
	if (timed_move_pages(m, pid, k, ra, NULL, rq, 0))
		return;
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (status[i] == STATUS_UNSET) {
			int q = rq[k++];

			status[i] = q == to[i] || q < 0 ? q : -EBUSY;
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
	if (timed_move_pages(m, p->pid, n, va, to, status, MPOL_MF_MOVE) < 0) {
		err = -errno;
		for (size_t i = 0; i < n; i++)
			ret[i] = pl_move_status(err);
		mig_note_refusals(m, mp, p, addrs, to, status, n, err);
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
	mig_note_refusals(m, mp, p, addrs, to, status, n, 0);
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
	mp = mig_proc_of(m, p);
	k = mig_gate(m, mp, p, addrs, to, n, ret, sel);
	if (k == n)
		err = move_by_kind(m, mp, p, addrs, to, n, ret);
	else if (k)	/* statuses are per page: no whole-call error */
		move_selected(m, mp, p, addrs, to, sel, k, ret);
out:
	count(m, ret, n);
	return err;
}
