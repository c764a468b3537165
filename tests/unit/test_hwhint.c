// SPDX-License-Identifier: GPL-2.0-or-later
/* hwhint without perf: the reader path on synthetic rings (classification,
 * counters, drops), data-source classes, config checks, and open() on fake
 * sysfs trees of machines without a usable PMU. The same path on the real
 * kernel: test_hwhint_live.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "hw_fake.h"
#include "rec_build.h"

#define DS_RAM ((uint64_t)PERF_MEM_LVLNUM_RAM << 33 | PERF_MEM_OP_LOAD)
#define DS_CXL ((uint64_t)PERF_MEM_LVLNUM_CXL << 33 | PERF_MEM_OP_LOAD)

static struct perf_event_mmap_page meta;
static uint8_t data[1 << 16];
static struct hw_ring ring;

static void ring_reset(void)
{
	memset(&meta, 0, sizeof(meta));
	perf_ring_unmap(&ring.ring);
	assert_int_equal(perf_ring_attach(&ring.ring, &meta, data, sizeof(data)), 0);
}

static void put_sample(uint32_t pid, uint64_t addr, uint64_t phys, uint64_t ds,
		       uint32_t cpu, uint64_t time_ns)
{
	struct rec_build b;

	rb_hw_sample(&b, 0x401000, pid, pid, time_ns, addr, cpu, ds, phys, 10);
	assert_int_equal(perf_ring_write(&ring.ring, &b.h), 0);
}

static void put_rec(uint32_t type, uint64_t a, uint64_t b2)
{
	struct rec_build b;

	rb_init(&b, type);
	rb_64(&b, a);
	rb_64(&b, b2);
	rb_64(&b, 0);
	assert_int_equal(perf_ring_write(&ring.ring, rb_done(&b)), 0);
}

static void test_classify_and_count(void **state)
{
	const uint64_t L = HW_FAKE_LOWER_BASE;
	struct pl_sample out[16];
	struct hw_reader r;
	struct hwhint h;
	size_t n;

	hw_fake_init(&h, &r, 16, true);
	ring_reset();
	put_sample(HW_FAKE_PID, 0x7f0000001008, L + 0x5008, DS_CXL, 2, 7000000000ULL);
	put_sample(HW_FAKE_PID, 0x7f0000001010, L + 0x5010, DS_CXL, 1, 7000000000ULL); /* same page */
	put_sample(HW_FAKE_PID, 0x7f0000002000, 0x3000, DS_RAM, 0, 1);	/* top tier */
	put_sample(HW_FAKE_PID, 0, L, DS_RAM, 0, 1);			/* no address */
	put_sample(HW_FAKE_PID, 0x7f0000003000, 0, 0, 0, 1);		/* no phys */
	put_sample(HW_FAKE_PID, 0xffffffff81000000ULL, L, 0, 0, 1);	/* kernel */
	put_sample(999, 0x7f0000004000, L, DS_CXL, 0, 1);		/* not a target */
	put_sample(HW_FAKE_PID, 0x7f0000005000, 9ULL << 30, 0, 9, 1);	/* no block, CPU 9 */
	put_rec(PERF_RECORD_LOST, 1, 33);
	put_rec(PERF_RECORD_THROTTLE, 5, 1);
	put_rec(PERF_RECORD_UNTHROTTLE, 6, 1);
	put_rec(PERF_RECORD_LOST_SAMPLES, 4, 0);
	put_rec(77, 0, 0);
	assert_int_equal(hw_drain_ring(&r, &ring), 3);
	hw_reader_publish(&r);
	assert_int_equal(r.pub.hwhint_total_events, 8);
	assert_int_equal(r.pub.hwhint_useful_events, 4);
	assert_int_equal(r.pub.hwhint_noaddr_events, 3);
	assert_int_equal(r.pub.hwhint_untargeted_events, 1);
	assert_int_equal(r.pub.hwhint_lower_events, 2);
	assert_int_equal(r.pub.hwhint_new_lower_pages, 1);
	assert_int_equal(r.pub.hwhint_toptier_events, 1);
	assert_int_equal(r.pub.hwhint_nonode_events, 1);
	assert_int_equal(r.pub.hwhint_dram_accesses, 2);
	assert_int_equal(r.pub.hwhint_extmem_accesses, 3);
	assert_int_equal(r.pub.hwhint_lost_records, 1);
	assert_int_equal(r.pub.hwhint_lost_events, 33);
	assert_int_equal(r.pub.hwhint_lost_samples, 4);
	assert_int_equal(r.pub.hwhint_throttle_records, 1);
	assert_int_equal(r.pub.hwhint_unthrottle_records, 1);
	assert_int_equal(r.pub.hwhint_unknown_records, 1);
	assert_int_equal(r.pub.hwhint_dropped_events, 0);
	n = sampleq_pop(&r.q, out, 16);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].pid, HW_FAKE_PID);
	assert_int_equal(out[0].vaddr, 0x7f0000001008);
	assert_int_equal(out[0].page_nid, HW_FAKE_LOWER_NID);
	assert_int_equal(out[0].nid, 0);		/* CPU 2 is on node 0 */
	assert_int_equal(out[0].time_ms, 7000);
	assert_int_equal(out[2].page_nid, PGHOT_NID_UNKNOWN);
	assert_int_equal(out[2].nid, PGHOT_NID_UNKNOWN);	/* CPU 9 unknown */
	hw_fake_free(&r);
}

/* A full queue drops and counts; the reader goes on. */
static void test_queue_full(void **state)
{
	struct hw_reader r;
	struct hwhint h;

	hw_fake_init(&h, &r, 4, false);
	ring_reset();
	for (int i = 0; i < 10; i++)
		put_sample(HW_FAKE_PID, 0x7f0000000000 + (uint64_t)i * 4096, 0x1000, DS_RAM, 0, 1);
	assert_int_equal(hw_drain_ring(&r, &ring), 4);
	hw_reader_publish(&r);
	assert_int_equal(r.pub.hwhint_useful_events, 10);
	assert_int_equal(r.pub.hwhint_dropped_events, 6);
	assert_int_equal(r.pub.hwhint_toptier_events, 10);	/* queued anyway */
	/* a corrupt ring is skipped and counted */
	put_sample(HW_FAKE_PID, 0x7f0000000000, 0x1000, DS_RAM, 0, 1);
	data[(meta.data_head - 72) % sizeof(data) + 6] = 3;	/* size 0x348 > avail */
	hw_drain_ring(&r, &ring);
	hw_reader_publish(&r);
	assert_int_equal(r.pub.hwhint_ring_corrupt, 0);	/* rings of h only */
	assert_int_equal(perf_ring_stats(&ring.ring)->corrupt, 1);
	hw_fake_free(&r);
}

static void test_data_src_class(void **state)
{
	assert_int_equal(hwhint_data_src_class(DS_RAM), 1);
	assert_int_equal(hwhint_data_src_class(DS_CXL), 2);
	assert_int_equal(hwhint_data_src_class((uint64_t)PERF_MEM_LVLNUM_PMEM << 33), 2);
	assert_int_equal(hwhint_data_src_class((uint64_t)PERF_MEM_LVLNUM_L3 << 33), 0);
	/* legacy field only: local RAM hit */
	assert_int_equal(hwhint_data_src_class(
		(uint64_t)(PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT) << 5), 1);
	assert_int_equal(hwhint_data_src_class(
		(uint64_t)PERF_MEM_LVLNUM_NA << 33 |
		(uint64_t)(PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_HIT) << 5), 1);
	assert_int_equal(hwhint_data_src_class(0x1e05080021ULL), 0);	/* page-fault NA */
}

static void test_cfg_check(void **state)
{
	struct hwhint_cfg c;
	char err[256];

	hwhint_cfg_default(&c);
	assert_int_equal(hwhint_cfg_check(&c, err, sizeof(err)), 0);
	c.period = 100;
	assert_int_equal(hwhint_cfg_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "period_min"));
	hwhint_cfg_default(&c);
	c.ring_pages = 3;
	assert_int_equal(hwhint_cfg_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ring_pages"));
	hwhint_cfg_default(&c);
	c.new_lo = 100;
	assert_int_equal(hwhint_cfg_check(&c, err, sizeof(err)), -EINVAL);
	hwhint_cfg_default(&c);
	c.readers = 0;
	assert_int_equal(hwhint_cfg_check(&c, err, sizeof(err)), -EINVAL);
}

static void open_on(const char *machine, int expect, const char *msg)
{
	char root[256], cmd[600], err[2048];
	struct hwhint_cfg c;
	struct hwhint *h = NULL;

	snprintf(root, sizeof(root), "/tmp/pghot-hwhint.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "rm -rf %s && tests/integration/fakes/mkpmu.sh %s/sys %s",
		 root, root, machine);
	assert_int_equal(system(cmd), 0);
	strcat(root, "/sys");
	hwhint_cfg_default(&c);
	assert_int_equal(hwhint_open(&c, &(struct src_env){ .sysfs_root = root, .procfs_root = "/proc" }, &h, err, sizeof(err)),
			 expect);
	assert_null(h);
	if (!strstr(err, msg))
		fail_msg("'%s' not in: %s", msg, err);
	snprintf(cmd, sizeof(cmd), "rm -rf %.*s", (int)(strlen(root) - 4), root);
	assert_int_equal(system(cmd), 0);
}

static void test_open_without_pmu(void **state)
{
	open_on("vm", -ENODEV, "no memory-access sampling PMU");
	open_on("vm", -ENODEV, "damon source");
	open_on("arm-spe", -EOPNOTSUPP, "AUX area");
}

/* The [hwhint] keys' defaults (what the daemon fills the config from) are
 * hwhint_cfg_default()'s, and the registry entry opens through them. */
static void test_keys_match_defaults(void **state)
{
	struct hwhint_cfg def;
	const uint8_t *base = (const uint8_t *)&def;

	hwhint_cfg_default(&def);
	assert_int_equal(src_hwhint.cfg_size, sizeof(def));
	assert_int_equal(src_hwhint.kind, PGHOT_SRC_HWHINT);
	for (size_t i = 0; i < src_hwhint.nr_keys; i++) {
		const struct src_key *k = &src_hwhint.keys[i];
		const uint8_t *f = base + k->offset;

		switch (k->type) {
		case SRC_KEY_UINT: {
			uint64_t v;

			memcpy(&v, f, sizeof(v));
			if (v != strtoull(k->def, NULL, 10))
				fail_msg("%s: default %s, struct %llu", k->name, k->def,
					 (unsigned long long)v);
			if (v < k->min || v > k->max)
				fail_msg("%s: default outside its bounds", k->name);
			break;
		}
		case SRC_KEY_BOOL:
			if (*(const bool *)f != !strcmp(k->def, "true"))
				fail_msg("%s: default %s", k->name, k->def);
			break;
		default:
			assert_string_equal((const char *)f, k->def);
		}
	}
}

static void test_registry_open(void **state)
{
	struct src_env env = { .sysfs_root = "/nonexistent", .procfs_root = "/proc" };
	struct hwhint_cfg c;
	void *priv = NULL;
	char err[1024];

	hwhint_cfg_default(&c);
	assert_int_equal(src_hwhint.ops->open(&env, &c, &priv, err, sizeof(err)), -ENODEV);
	assert_null(priv);
	assert_non_null(strstr(err, "no PMU at all"));
	src_hwhint.ops->close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_and_count),
		cmocka_unit_test(test_queue_full),
		cmocka_unit_test(test_data_src_class),
		cmocka_unit_test(test_cfg_check),
		cmocka_unit_test(test_open_without_pmu),
		cmocka_unit_test(test_keys_match_defaults),
		cmocka_unit_test(test_registry_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
