// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * move_pages(2) for lookups and moves; see migrator.h. THP: callers pass
 * one address per huge page (the engine records the head page), since
 * further addresses of a folio already isolated in the same call get
 * -EBUSY. The rate limit is the engine's, not ours.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <numaif.h>

#include "linux/migrator.h"
#include "linux/source.h"

#define STATUS_UNSET INT_MIN
#define CHUNK 1024

enum pghot_move_status move_status_from_errno(int err)
{
	if (err >= 0)
		return PGHOT_MOVE_OK;
	switch (-err) {
	case EBUSY:
	case EAGAIN:
		return PGHOT_MOVE_BUSY;
	case ENOMEM:
		return PGHOT_MOVE_NOMEM;
	case ENOENT:
	case EFAULT:
	case ESRCH:
		return PGHOT_MOVE_GONE;
	case EACCES:
	case EPERM:
		return PGHOT_MOVE_PERM;
	default:
		return PGHOT_MOVE_OTHER;
	}
}

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
	return s < PGHOT_MOVE_STATUS_MAX ? names[s] : "?";
}

void migrator_init(struct migrator *m)
{
	memset(m, 0, sizeof(*m));
	m->fake_nid = -1;
	m->page_shift = 12;
}

#define mlog(o, level, ...) src_logf((o)->log, (o)->log_arg, level, __VA_ARGS__)

int migrator_query(struct migrator *m, pid_t pid, void **addrs, size_t n,
		   int *ret_status)
{
	m->st.pages_looked_up += n;
	if (m->fake_nid >= 0) {
		for (size_t i = 0; i < n; i++)
			ret_status[i] = m->fake_nid;
		return 0;
	}
	for (size_t off = 0; off < n; off += CHUNK) {
		size_t k = n - off < CHUNK ? n - off : CHUNK;
		long r;

		for (size_t i = 0; i < k; i++)
			ret_status[off + i] = STATUS_UNSET;
		m->st.query_syscalls++;
		r = move_pages(pid, k, addrs + off, NULL, ret_status + off, 0);
		if (r < 0) {
			m->st.lookup_failures++;
			return -errno;
		}
		for (size_t i = 0; i < k; i++) {
			if (ret_status[off + i] == STATUS_UNSET)
				ret_status[off + i] = -EAGAIN;
			if (ret_status[off + i] == -ENOENT ||
			    ret_status[off + i] == -EFAULT)
				m->st.pages_not_present++;
		}
	}
	return 0;
}

int migrator_move(struct migrator *m, pid_t pid, void **addrs,
		  const int *nodes, size_t n, enum pghot_move_status *ret)
{
	int *status, *requery = NULL;
	void **raddr = NULL;
	size_t nr = 0;
	long r;
	int err = 0;

	if (m->dry_run) {
		for (size_t i = 0; i < n; i++) {
			mlog(m, LOG_INFO, "dry-run: move pid %d addr %#llx to node %d",
			     (int)pid, (unsigned long long)(uintptr_t)addrs[i],
			     nodes[i]);
			ret[i] = PGHOT_MOVE_OK;
			m->st.moved[PGHOT_MOVE_OK]++;
		}
		return 0;
	}
	status = malloc(n * sizeof(*status));
	if (!status)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		status[i] = STATUS_UNSET;
	m->st.syscalls++;
	r = move_pages(pid, n, addrs, nodes, status, MPOL_MF_MOVE);
	if (r < 0) {
		enum pghot_move_status s = move_status_from_errno(-errno);

		err = -errno;
		for (size_t i = 0; i < n; i++)
			ret[i] = s;
		m->st.moved[s] += n;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (status[i] == STATUS_UNSET)
			nr++;
	}
	if (nr) {
		/* move_pages stopped writing status after a failing batch */
		requery = malloc(nr * sizeof(*requery));
		raddr = malloc(nr * sizeof(*raddr));
		if (requery && raddr) {
			size_t k = 0;

			for (size_t i = 0; i < n; i++)
				if (status[i] == STATUS_UNSET)
					raddr[k++] = addrs[i];
			m->st.query_syscalls++;
			if (move_pages(pid, nr, raddr, NULL, requery, 0) == 0) {
				k = 0;
				for (size_t i = 0; i < n; i++)
					if (status[i] == STATUS_UNSET) {
						int q = requery[k++];

						/* on another node: migration failed */
						status[i] = q == nodes[i] || q < 0 ? q : -EBUSY;
					}
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		int s = status[i];

		if (s == STATUS_UNSET)
			ret[i] = PGHOT_MOVE_OTHER;
		else if (s >= 0)
			ret[i] = s == nodes[i] ? PGHOT_MOVE_OK : PGHOT_MOVE_BUSY;
		else
			ret[i] = move_status_from_errno(s);
		m->st.moved[ret[i]]++;
	}
out:
	free(requery);
	free(raddr);
	free(status);
	return err;
}

/* The engine's batch: one to_nid, possibly several spaces. */
static int mig_migrate(void *priv, const struct pghot_move *moves, size_t n,
		       enum pghot_move_status *ret_status)
{
	struct migrator *m = priv;
	void **addrs = malloc(n * sizeof(*addrs));
	int *nodes = malloc(n * sizeof(*nodes));
	size_t *idx = malloc(n * sizeof(*idx));
	enum pghot_move_status *st = malloc(n * sizeof(*st));
	bool *done = calloc(n, sizeof(*done));
	int err = 0;

	if (!addrs || !nodes || !idx || !st || !done) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t space = moves[i].space_id;
		size_t k = 0;
		pid_t pid;

		if (done[i])
			continue;
		for (size_t j = i; j < n; j++) {
			if (done[j] || moves[j].space_id != space)
				continue;
			done[j] = true;
			idx[k] = j;
			addrs[k] = (void *)(uintptr_t)(moves[j].page << m->page_shift);
			nodes[k] = moves[j].to_nid;
			k++;
		}
		if (!m->space_pid || m->space_pid(m->cb_arg, space, &pid)) {
			for (size_t j = 0; j < k; j++)
				ret_status[idx[j]] = PGHOT_MOVE_GONE;
			m->st.moved[PGHOT_MOVE_GONE] += k;
			continue;
		}
		migrator_move(m, pid, addrs, nodes, k, st);
		for (size_t j = 0; j < k; j++) {
			ret_status[idx[j]] = st[j];
			if (m->on_result)
				m->on_result(m->cb_arg, space, st[j]);
		}
	}
out:
	free(addrs);
	free(nodes);
	free(idx);
	free(st);
	free(done);
	return err;
}

const struct pghot_migrator_ops migrator_ops = {
	.name = "move_pages",
	.migrate = mig_migrate,
};
