// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a process's pages may move (linux/mempolicy.h): each policy's
 * rule, spans of neighbouring mappings, the cpuset, the kernel's refusals
 * and their bound; and the folio of a page (linux/pagemap.h): the
 * kpageflags parser, and lookups over fake pagemap/kpageflags files (one
 * pread per run of nearby pages).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kernel-page-flags.h>

#include "linux/mempolicy.h"
#include "linux/pagemap.h"
#include "tmpdir_fixture.h"

#define KPF(b) (UINT64_C(1) << (b))
#define HEAD (KPF(KPF_THP) | KPF(KPF_COMPOUND_HEAD))
#define TAIL (KPF(KPF_THP) | KPF(KPF_COMPOUND_TAIL))

static void add_line(struct mempol_maps *b, const char *line)
{
	struct proc_numa_map m;

	assert_int_equal(proc_parse_numa_map(line, strlen(line), &m), 0);
	assert_int_equal(mempol_maps_add(b, &m), 0);
}

/* A process with these mappings (numa_maps lines) and @mems. */
static void make_proc(struct mempol_proc *p, const char *const *lines,
		      size_t n, const char *mems)
{
	struct mempol_maps b = { 0 };
	struct nodemask m = { 0 };

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < n; i++)
		add_line(&b, lines[i]);
	mempol_set_maps(p, &b);
	assert_int_equal(b.n, 0);	/* taken */
	if (mems) {
		assert_int_equal(nodelist_parse(mems, &m), 0);
		mempol_set_mems(p, true, &m);
	}
}

/* Each mode's rule, at the start, inside and past the end of mappings;
 * neighbours with one rule share a span. */
static void test_rules(void **state)
{
	static const char *const lines[] = {
		"1000000 default anon=1",
		"2000000 bind:1 anon=1",
		"3000000 bind:1 anon=1",		/* same rule: one span */
		"4000000 interleave:0-1 anon=1",
		"5000000 prefer:0 anon=1",
		"6000000 prefer (many):1-2 anon=1",
		"7000000 local anon=1",
		"8000000 weighted interleave:0-1 anon=1",
		"9000000 bind=static:0-1 anon=1",
	};
	struct mempol_proc p;
	char buf[64];

	make_proc(&p, lines, 9, NULL);
	assert_true(p.known);
	assert_int_equal(p.maps.nr_restricted, 7);
	/* none before the first policy; 2000000 and 3000000 share one */
	assert_int_equal(p.maps.n, 7);
	assert_int_equal(mempol_check(&p, 0x10000, 0), MEMPOL_OK);
	assert_int_equal(mempol_check(&p, 0x1000000, 0), MEMPOL_OK);
	assert_int_equal(mempol_check(&p, 0x2000000, 0), MEMPOL_POLICY);
	assert_int_equal(mempol_check(&p, 0x2000000, 1), MEMPOL_OK);
	assert_int_equal(mempol_check(&p, 0x3fff000, 0), MEMPOL_POLICY);
	assert_int_equal(mempol_check(&p, 0x4000000, 0), MEMPOL_POLICY);
	assert_int_equal(mempol_check(&p, 0x4000000, 1), MEMPOL_POLICY);
	assert_int_equal(mempol_check(&p, 0x5000000, 0), MEMPOL_OK);
	assert_int_equal(mempol_check(&p, 0x5000000, 1), MEMPOL_POLICY);
	assert_int_equal(mempol_check(&p, 0x6000000, 0), MEMPOL_POLICY);
	assert_int_equal(mempol_check(&p, 0x6000000, 2), MEMPOL_OK);
	assert_int_equal(mempol_check(&p, 0x7000000, 0), MEMPOL_OK);
	assert_int_equal(mempol_check(&p, 0x8000000, 0), MEMPOL_POLICY);
	assert_int_equal(mempol_check(&p, 0x9000000, 0), MEMPOL_OK);
	assert_int_equal(mempol_check(&p, 0xfffffff000, 2), MEMPOL_POLICY);
	mempol_policy_at(&p, 0x3000000, buf, sizeof(buf));
	assert_string_equal(buf, "bind:1");
	mempol_policy_at(&p, 0x6000000, buf, sizeof(buf));
	assert_string_equal(buf, "prefer (many):1-2");
	mempol_policy_at(&p, 0x7000000, buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* any of several nodes (precise mode): one allowed is enough */
	assert_int_equal(mempol_check_any(&p, 0x2000000, (int[]){ 0, 1 }, 2),
			 MEMPOL_OK);
	assert_int_equal(mempol_check_any(&p, 0x2000000, (int[]){ 0, 2 }, 2),
			 MEMPOL_POLICY);
	mempol_proc_release(&p);
}

/* The cpuset comes first; a node the kernel refused is refused until
 * Mems_allowed changes; EPERM for the whole call refuses everything. */
static void test_cpuset_and_refusals(void **state)
{
	static const char *const lines[] = { "1000000 default" };
	struct mempol_proc p;
	struct nodemask m = { 0 };

	make_proc(&p, lines, 1, "1");
	assert_int_equal(mempol_check(&p, 0x1000000, 0), MEMPOL_CPUSET);
	assert_int_equal(mempol_check(&p, 0x1000000, 1), MEMPOL_OK);
	nodemask_set(&m, 0);
	nodemask_set(&m, 1);
	mempol_set_mems(&p, true, &m);
	assert_int_equal(mempol_refused(&p, 0x1000000, 0, -EACCES, true), 0);
	assert_int_equal(mempol_check(&p, 0x2000000, 0), MEMPOL_REFUSED_NODE);
	mempol_set_mems(&p, true, &m);	/* the same: still refused */
	assert_int_equal(mempol_check(&p, 0x2000000, 0), MEMPOL_REFUSED_NODE);
	mempol_set_mems(&p, false, NULL);	/* changed: tried again */
	assert_int_equal(mempol_check(&p, 0x2000000, 0), MEMPOL_OK);
	/* other errors are no refusal */
	assert_int_equal(mempol_refused(&p, 0x1000000, 0, -EBUSY, true), 0);
	assert_int_equal(mempol_check(&p, 0x1000000, 0), MEMPOL_OK);
	assert_int_equal(mempol_refused(&p, 0x1000000, 0, -EPERM, true), 0);
	assert_int_equal(mempol_check(&p, 0x5000000, 1), MEMPOL_REFUSED_ALL);
	mempol_proc_release(&p);
}

/* Folios refused alone: per (head, node), the oldest dropped past
 * MEMPOL_REFUSED_MAX. */
static void test_refused_pages_bounded(void **state)
{
	struct mempol_proc p;

	make_proc(&p, NULL, 0, NULL);
	assert_int_equal(mempol_refused(&p, 0x200000, 0, -EACCES, false), 0);
	assert_int_equal(mempol_check(&p, 0x200000, 0), MEMPOL_REFUSED_PAGE);
	assert_int_equal(mempol_check(&p, 0x200000, 2), MEMPOL_OK);
	assert_int_equal(mempol_check(&p, 0x201000, 0), MEMPOL_OK);
	for (uint64_t i = 1; i <= MEMPOL_REFUSED_MAX; i++)	/* in random order */
		assert_int_equal(mempol_refused(&p, ((i * 7919) % 100003) << 21, 0,
						-EACCES, false), 0);
	assert_int_equal(p.nr_ref, MEMPOL_REFUSED_MAX);
	assert_int_equal(mempol_check(&p, 0x200000, 0), MEMPOL_OK);	/* oldest */
	for (uint64_t i = 1; i <= MEMPOL_REFUSED_MAX; i++)
		assert_int_equal(mempol_check(&p, ((i * 7919) % 100003) << 21, 0),
				 MEMPOL_REFUSED_PAGE);
	for (size_t i = 1; i < p.nr_ref; i++)
		assert_true(p.ref[i - 1].addr < p.ref[i].addr);
	mempol_proc_release(&p);
}

/* ---- kpageflags --------------------------------------------------------- */

/* kpageflags words of PFNs BASE.. from an array. */
#define BASE 0x40000
struct words {
	const uint64_t *w;
	size_t n;
	int reads;
};

static int fetch_words(void *arg, uint64_t pfn, uint64_t *ret)
{
	struct words *ws = arg;

	ws->reads++;
	if (pfn < BASE || pfn - BASE >= ws->n)
		return -ERANGE;
	*ret = ws->w[pfn - BASE];
	return 0;
}

static int folio_at(const uint64_t *w, size_t n, size_t idx, size_t *ret_head,
		    int *ret_reads)
{
	struct words ws = { .w = w, .n = n };
	uint64_t head = 0;
	int order = pagemap_kpf_folio(fetch_words, &ws, BASE + idx, &head);

	*ret_head = order > 0 ? (size_t)(head - BASE) : SIZE_MAX;
	if (ret_reads)
		*ret_reads = ws.reads;
	return order;
}

static void test_kpf_folio(void **state)
{
	static uint64_t f[2 * PAGEMAP_BLOCK];
	size_t head;
	int reads;

	/* one PMD folio: every page finds the head and order 9, in a few
	 * reads (not the 512 words) */
	memset(f, 0, sizeof(f));
	f[0] = HEAD;
	for (size_t i = 1; i < PAGEMAP_BLOCK; i++)
		f[i] = TAIL;
	for (size_t i = 0; i < PAGEMAP_BLOCK; i += 37) {
		assert_int_equal(folio_at(f, PAGEMAP_BLOCK, i, &head, &reads), 9);
		assert_int_equal(head, 0);
		assert_true(reads <= 2 * PAGEMAP_PMD_ORDER + 2);
	}
	/* past the end of the file: the folio ends there */
	assert_int_equal(folio_at(f, PAGEMAP_BLOCK, 511, &head, NULL), 9);
	/* tails past a PMD: larger than we know */
	f[PAGEMAP_BLOCK] = TAIL;
	assert_int_equal(folio_at(f, 2 * PAGEMAP_BLOCK, 5, &head, NULL), 0);
	/* 16-page folios at 32, a base page at 48, a hugetlb head at 64 */
	memset(f, 0, sizeof(f));
	f[32] = HEAD;
	for (size_t i = 33; i < 48; i++)
		f[i] = TAIL;
	f[64] = HEAD | KPF(KPF_HUGE);
	assert_int_equal(folio_at(f, PAGEMAP_BLOCK, 40, &head, NULL), 4);
	assert_int_equal(head, 32);
	assert_int_equal(folio_at(f, PAGEMAP_BLOCK, 32, &head, NULL), 4);
	assert_int_equal(folio_at(f, PAGEMAP_BLOCK, 47, &head, NULL), 4);
	assert_int_equal(folio_at(f, PAGEMAP_BLOCK, 48, &head, NULL), 0);
	assert_int_equal(folio_at(f, PAGEMAP_BLOCK, 64, &head, NULL), 0);
	/* not aligned to its size; no head below; a page between no tail */
	memset(f, 0, sizeof(f));
	f[8] = HEAD;
	for (size_t i = 9; i < 24; i++)
		f[i] = TAIL;
	assert_int_equal(folio_at(f, PAGEMAP_BLOCK, 10, &head, NULL), 0);
	f[8] = TAIL;
	assert_int_equal(folio_at(f, PAGEMAP_BLOCK, 10, &head, NULL), 0);
	f[8] = HEAD;
	f[12] = 0;
	assert_int_equal(folio_at(f, PAGEMAP_BLOCK, 13, &head, NULL), 0);
}

/* ---- pagemap over fake files --------------------------------------------- */

TMPDIR_FIXTURE("pagemap")

/* Write 64-bit word @v at index @idx of <dir>/@rel (sparse). */
static void put_word(const char *rel, uint64_t idx, uint64_t v)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &v, sizeof(v), (off_t)(idx * sizeof(v))),
			 sizeof(v));
	close(fd);
}

#define PRESENT (UINT64_C(1) << 63)
#define VA 0x7f0000000000ULL

/* A THP at VA, base pages at VA + 2 MiB on, a 16-page folio at VA + 4 MiB
 * whose head sits at an unaligned address, one page with PFN 0 (hidden). */
static void make_pagemap(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/5", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/6", dir);
	mkdir(path, 0755);
	for (uint64_t i = 0; i < 512; i++) {
		put_word("5/pagemap", (VA >> 12) + i, PRESENT | (0x1000 + i));
		put_word("kpageflags", 0x1000 + i, i ? TAIL : HEAD);
	}
	for (uint64_t i = 512; i < 520; i++) {
		put_word("5/pagemap", (VA >> 12) + i, PRESENT | (0x5000 + i * 3));
		put_word("kpageflags", 0x5000 + i * 3, KPF(KPF_ANON));
	}
	for (uint64_t i = 0; i < 16; i++) {	/* VA + 4 MiB + 4 KiB */
		put_word("5/pagemap", ((VA + (4 << 20)) >> 12) + 1 + i,
			 PRESENT | (0x9000 + i));
		put_word("kpageflags", 0x9000 + i, i ? TAIL : HEAD);
	}
	put_word("6/pagemap", VA >> 12, PRESENT);	/* PFN hidden */
}

static void test_pagemap_fake(void **state)
{
	uint64_t a[6] = { VA + 0x5000, VA + 0x6000, VA + 0x200000 + 0x3000,
			  VA + (4 << 20) + 0x3000, VA + 0x1ff000, VA + (8 << 20) };
	bool want[6] = { true, true, true, true, true, true };
	const uint64_t va = VA;
	struct pagemap_reader r;
	uint8_t order[6];

	make_pagemap();
	pagemap_init(&r, dir, PAGEMAP_PROBE);
	assert_int_equal(pagemap_orders(&r, 5, a, want, 6, order), 0);
	/* a regular file has no PAGEMAP_SCAN: kpageflags it is */
	assert_int_equal(r.method, PAGEMAP_KPAGEFLAGS);
	assert_int_equal(order[0], 9);
	assert_int_equal(order[1], 9);
	assert_int_equal(order[4], 9);
	assert_int_equal(order[2], 0);
	assert_int_equal(order[3], 0);	/* head not aligned: the page itself */
	assert_int_equal(order[5], 0);	/* not present */
	/* pages less than PAGEMAP_RUN_GAP apart share a pagemap read: VA +
	 * 20 and 24 KiB, VA + 2 MiB - 4 and + 12 KiB; the others alone */
	assert_int_equal(r.st.pagemap_reads, 4);
	want[1] = false;
	assert_int_equal(pagemap_orders(&r, 5, a, want, 6, order), 0);
	assert_int_equal(order[1], 0);
	/* no pagemap: the caller's ranges; PFNs hidden: no per-page method */
	assert_int_equal(pagemap_orders(&r, 7, a, want, 6, order), -ENOENT);
	assert_int_equal(r.method, PAGEMAP_KPAGEFLAGS);
	assert_int_equal(pagemap_orders(&r, 6, &va, want, 1, order), -EOPNOTSUPP);
	assert_int_equal(r.method, PAGEMAP_RANGES);
	assert_int_equal(pagemap_orders(&r, 5, a, want, 6, order), -EOPNOTSUPP);
	pagemap_release(&r);
	/* no kpageflags file: ranges */
	pagemap_init(&r, "/nonexistent", PAGEMAP_KPAGEFLAGS);
	assert_int_equal(pagemap_orders(&r, 5, a, want, 6, order), -ENOENT);
	pagemap_release(&r);
	assert_string_equal(pagemap_method_name(PAGEMAP_SCAN_IOCTL), "PAGEMAP_SCAN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_cpuset_and_refusals),
		cmocka_unit_test(test_refused_pages_bounded),
		cmocka_unit_test(test_kpf_folio),
		cmocka_unit_test(test_pagemap_fake),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
