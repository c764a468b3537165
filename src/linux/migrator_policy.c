// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The migrator's checks of cpusets, memory policies and the kernel's
 * refusals (linux/mempolicy.h holds the rules): pages flagged pinned at
 * lookup, moves refused or made to wait before move_pages, refusals
 * remembered, each reason said once per process. See migrator.h.
 */
#include <errno.h>
#include <string.h>
#include <syslog.h>

#include "linux/migrator_int.h"

int migrator_track(struct migrator *m, const struct pl_proc *p)
{
	struct mig_proc *mp = mig_proc_find(m, p->pid);

	if (mp && mp->tracked && mp->start_time != p->start_time)
		migrator_forget(m, p->pid);	/* another process had the pid */
	mp = mig_proc_get(m, p->pid);
	if (!mp)
		return -ENOMEM;
	mp->tracked = true;
	mp->start_time = p->start_time;
	return 0;
}

static struct mig_proc *tracked(struct migrator *m, const struct pl_proc *p)
{
	struct mig_proc *mp = mig_proc_of(m, p);

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
void mig_flag_pinned(struct migrator *m, struct mig_proc *mp,
		     const struct pl_proc *p, const uint64_t *addrs, size_t n,
		     struct pl_page *ret)
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

/* What the kernel refused is remembered (and said once): a whole call
 * failing with -EACCES refuses the node of the page it stopped at (the
 * first without a status), -EPERM the process; a page's -EACCES/-EPERM
 * its folio. */
void mig_note_refusals(struct migrator *m, struct mig_proc *mp,
		       const struct pl_proc *p, const uint64_t *addrs,
		       const int *to, const int *status, size_t n, int call_err)
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

/* The moves the rules let through, into @sel; the others get their
 * status here: PERM (refused, said once), BUSY (policies not read yet). */
size_t mig_gate(struct migrator *m, struct mig_proc *mp,
		const struct pl_proc *p, const uint64_t *addrs, const int *to,
		size_t n, enum pghot_move_status *ret, uint32_t *sel)
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

