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
#define THP_SIZE (UINT64_C(2) << 20)
#define THP_ORDER 9

enum mig_kind { MIG_MOVE_PAGES = 0, MIG_DRY_RUN, MIG_FAKE };

/* The THP-backed mappings of one process. */
struct thp_map {
	pid_t pid;
	struct addr_range *v;
	size_t n;
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
	struct thp_map *thp;
	size_t nr_thp, cap_thp;
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
	snprintf(m->procfs, sizeof(m->procfs), "%s", procfs_root ? procfs_root : "/proc");
	*ret = m;
	return 0;
}

void migrator_close(struct migrator *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_thp; i++)
		free(m->thp[i].v);
	free(m->thp);
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
}

/* ---- THP mappings ------------------------------------------------------ */

static struct thp_map *thp_find(const struct migrator *m, pid_t pid)
{
	for (size_t i = 0; i < m->nr_thp; i++)
		if (m->thp[i].pid == pid)
			return &m->thp[i];
	return NULL;
}

int migrator_set_thp(struct migrator *m, pid_t pid, struct addr_range *v,
		     size_t n)
{
	struct thp_map *t = thp_find(m, pid);

	if (!t && !n) {
		free(v);
		return 0;
	}
	if (!t) {
		if (m->nr_thp == m->cap_thp) {
			size_t cap = m->cap_thp ? m->cap_thp * 2 : 8;
			struct thp_map *nt = realloc(m->thp, cap * sizeof(*nt));

			if (!nt) {
				free(v);
				return -ENOMEM;
			}
			m->thp = nt;
			m->cap_thp = cap;
		}
		t = &m->thp[m->nr_thp++];
		t->pid = pid;
		t->v = NULL;
	}
	free(t->v);
	t->v = v;
	t->n = n;
	return 0;
}

static void fake_forget(struct migrator *m, pid_t pid);

void migrator_forget(struct migrator *m, pid_t pid)
{
	struct thp_map *t = thp_find(m, pid);

	if (t) {
		free(t->v);
		*t = m->thp[--m->nr_thp];
	}
	fake_forget(m, pid);
}

/* The folio order of @addr: 9 inside a THP-backed mapping whose 2 MiB
 * extent around @addr lies in the mapping, else 0. */
static uint8_t thp_order(const struct thp_map *t, uint64_t addr)
{
	uint64_t head = addr & ~(THP_SIZE - 1);

	for (size_t i = 0; t && i < t->n; i++) {
		if (addr < t->v[i].start || addr >= t->v[i].end)
			continue;
		return head >= t->v[i].start && head + THP_SIZE <= t->v[i].end ?
			       THP_ORDER : 0;
	}
	return 0;
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

int migrator_lookup(struct migrator *m, const struct pl_proc *p,
		    const uint64_t *addrs, size_t n, struct pl_page *ret)
{
	const struct thp_map *t = thp_find(m, p->pid);
	void *va[PL_LOOKUP_MAX];
	int st[PL_LOOKUP_MAX];

	if (n > PL_LOOKUP_MAX)
		return -E2BIG;
	if (m->kind == MIG_FAKE) {
		for (size_t i = 0; i < n; i++)
			ret[i] = (struct pl_page){
				.nid = fake_nid_of(m, p->pid, addrs[i]),
				.order = thp_order(t, addrs[i]),
			};
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		va[i] = (void *)(uintptr_t)addrs[i];
		st[i] = STATUS_UNSET;
	}
	m->st.query_syscalls++;
	if (move_pages(p->pid, n, va, NULL, st, 0) < 0)
		return -errno;
	for (size_t i = 0; i < n; i++)
		ret[i] = (struct pl_page){
			.nid = st[i] == STATUS_UNSET ? -EAGAIN : st[i],
			.order = st[i] >= 0 ? thp_order(t, addrs[i]) : 0,
		};
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
	if (move_pages(pid, k, ra, NULL, rq, 0))
		return;
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (status[i] == STATUS_UNSET) {
			int q = rq[k++];

			status[i] = q == to[i] || q < 0 ? q : -EBUSY;
		}
}

int migrator_move(struct migrator *m, const struct pl_proc *p,
		  const uint64_t *addrs, const int *to, size_t n,
		  enum pghot_move_status *ret)
{
	void *va[PL_LOOKUP_MAX];
	int status[PL_LOOKUP_MAX];
	int err;

	if (n > PL_LOOKUP_MAX)
		return -E2BIG;
	err = same_process(m, p);
	if (err) {
		for (size_t i = 0; i < n; i++)
			ret[i] = pl_move_status(err);
		goto out;
	}
	if (m->kind == MIG_FAKE) {
		err = move_fake(m, p, addrs, to, n, ret);
		goto out;
	}
	if (m->kind == MIG_DRY_RUN) {
		for (size_t i = 0; i < n; i++) {
			mlog(m, LOG_INFO, "dry-run: move pid %d addr %#llx to node %d",
			     (int)p->pid, (unsigned long long)addrs[i], to[i]);
			ret[i] = PGHOT_MOVE_OK;
		}
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		va[i] = (void *)(uintptr_t)addrs[i];
		status[i] = STATUS_UNSET;
	}
	m->st.syscalls++;
	if (move_pages(p->pid, n, va, to, status, MPOL_MF_MOVE) < 0) {
		err = -errno;
		for (size_t i = 0; i < n; i++)
			ret[i] = pl_move_status(err);
		goto out;
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
out:
	count(m, ret, n);
	return err;
}
