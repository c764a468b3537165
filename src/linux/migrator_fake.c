// SPDX-License-Identifier: GPL-2.0-or-later
/* fake:N, the test backend's placement: every page of every process on
 * node N until a move puts it elsewhere; see migrator.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linux/migrator_int.h"
#include "linux/sorted.h"

static int fake_cmp(const void *key, const void *elem)
{
	const struct fake_page *a = key, *b = elem;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Index of (pid, addr) or of where it would go; *ret_found. */
static size_t fake_pos(const struct migrator *m, pid_t pid, uint64_t addr,
		       bool *ret_found)
{
	struct fake_page key = { .pid = pid, .addr = addr };

	return sorted_pos(m->fake, m->nr_fake, sizeof(*m->fake), &key, fake_cmp,
			  ret_found);
}

int mig_fake_nid(const struct migrator *m, pid_t pid, uint64_t addr)
{
	bool found;
	size_t i = fake_pos(m, pid, addr, &found);

	return found ? m->fake[i].nid : m->fake_nid;
}

int mig_fake_put(struct migrator *m, pid_t pid, uint64_t addr, int nid)
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

void mig_fake_forget(struct migrator *m, pid_t pid)
{
	size_t k = 0;

	for (size_t i = 0; i < m->nr_fake; i++)
		if (m->fake[i].pid != pid)
			m->fake[k++] = m->fake[i];
	m->nr_fake = k;
}

