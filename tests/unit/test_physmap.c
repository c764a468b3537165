// SPDX-License-Identifier: GPL-2.0-or-later
/* physmap: a fake memory-block tree, errors, and the real map of this
 * machine checked against /proc/self/pagemap PFNs (as root). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux/physmap.h"

#define BS 0x8000000ULL

static char root[256];

static void make_tree(const char *args)
{
	char cmd[1024];

	snprintf(root, sizeof(root), "/tmp/pghot-physmap.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s && tests/integration/fakes/mkmemblocks.sh %s/sys %s",
		 root, root, args);
	assert_int_equal(system(cmd), 0);
	strcat(root, "/sys");
}

static void drop_tree(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %.*s", (int)(strlen(root) - 4), root);
	assert_int_equal(system(cmd), 0);
}

static void test_fake_tree(void **state)
{
	struct physmap m;
	char err[512];

	make_tree("8000000 0-7:0 8-15:1 32-33:0 40-40:none 16-16:2");
	assert_int_equal(physmap_load(root, &m, err, sizeof(err)), 0);
	assert_int_equal(m.block_bytes, BS);
	assert_int_equal(m.nr_blocks, 19);
	assert_int_equal(m.nr_orphans, 1);
	assert_int_equal(m.nr_runs, 4);	/* 0-7, 8-15, 16, 32-33 */
	assert_int_equal(physmap_nid(&m, 0), 0);
	assert_int_equal(physmap_nid(&m, 8 * BS - 1), 0);
	assert_int_equal(physmap_nid(&m, 8 * BS), 1);
	assert_int_equal(physmap_nid(&m, 16 * BS - 4096), 1);
	assert_int_equal(physmap_nid(&m, 16 * BS + 123), 2);
	assert_int_equal(physmap_nid(&m, 17 * BS), -ENOENT);	/* hole */
	assert_int_equal(physmap_nid(&m, 32 * BS + 5), 0);
	assert_int_equal(physmap_nid(&m, 40 * BS), -ENOENT);	/* no link */
	assert_int_equal(physmap_nid(&m, UINT64_MAX), -ENOENT);
	physmap_release(&m);
	physmap_release(&m);
	drop_tree();
}

static void test_errors(void **state)
{
	struct physmap m;
	char err[512];

	assert_int_equal(physmap_load("/nonexistent", &m, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "block_size_bytes"));
	assert_non_null(strstr(err, "move_pages"));
	make_tree("zz 0-1:0");
	assert_int_equal(physmap_load(root, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'zz'"));
	drop_tree();
	make_tree("3000 0-1:0");	/* not a power of two */
	assert_int_equal(physmap_load(root, &m, err, sizeof(err)), -EINVAL);
	drop_tree();
	make_tree("8000000 0-3:none");
	assert_int_equal(physmap_load(root, &m, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "node link"));
	drop_tree();
}

/* The node physmap gives each PFN of our own pages is the node the kernel
 * reports for the page (move_pages() with nodes == NULL). */
static void test_real_pagemap(void **state)
{
	const size_t n = 256;
	struct physmap m;
	char err[512];
	void *pages[256];
	int status[256];
	uint8_t *buf;
	int fd, checked = 0;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: reading PFNs from /proc/self/pagemap needs root\n");
		skip();
	}
	if (physmap_load("/sys", &m, err, sizeof(err))) {
		fprintf(stderr, "skip: %s\n", err);
		skip();
	}
	buf = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	for (size_t i = 0; i < n; i++) {
		buf[i * 4096] = (uint8_t)i;
		pages[i] = buf + i * 4096;
	}
	assert_int_equal(move_pages(0, n, pages, NULL, status, 0), 0);
	fd = open("/proc/self/pagemap", O_RDONLY);
	assert_true(fd >= 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t e, pfn;

		assert_int_equal(pread(fd, &e, 8, (off_t)((uintptr_t)pages[i] / 4096 * 8)), 8);
		assert_true(e >> 63);			/* present */
		pfn = e & ((1ULL << 55) - 1);
		assert_true(pfn != 0);			/* root sees PFNs */
		assert_true(status[i] >= 0);
		assert_int_equal(physmap_nid(&m, pfn * 4096 + 100), status[i]);
		checked++;
	}
	close(fd);
	assert_int_equal(checked, n);
	munmap(buf, n * 4096);
	physmap_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fake_tree),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_real_pagemap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
