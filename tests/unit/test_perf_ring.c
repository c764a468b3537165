// SPDX-License-Identifier: GPL-2.0-or-later
/* perf_ring: synthetic rings with every record type, truncated and corrupt
 * records, wrap-around, a full ring. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linux/perf_ring.h"
#include "rec_build.h"

#define HW_MASK (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT_STRUCT | \
		 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR)

struct synth {
	struct perf_event_mmap_page meta;
	uint8_t *data;
	struct perf_ring ring;
};

static void synth_new(struct synth *s, uint64_t size)
{
	memset(&s->meta, 0, sizeof(s->meta));
	s->data = calloc(1, size);
	assert_non_null(s->data);
	assert_int_equal(perf_ring_attach(&s->ring, &s->meta, s->data, size), 0);
}

static void synth_free(struct synth *s)
{
	perf_ring_unmap(&s->ring);
	free(s->data);
}

static void put(struct synth *s, struct rec_build *b)
{
	assert_int_equal(perf_ring_write(&s->ring, rb_done(b)), 0);
}

static void test_sample_fields(void **state)
{
	struct perf_rec_format f = { .sample_type = HW_MASK };
	struct rec_build b;
	struct perf_rec r;

	rb_hw_sample(&b, 0x401000, 42, 43, 1000, 0x7f0000001234, 1,
		     0x1234567, 0x80003000, 77);
	assert_int_equal(perf_rec_decode(&b.h, b.len, &f, &r), 0);
	assert_int_equal(r.kind, PERF_REC_SAMPLE);
	assert_int_equal(r.sample.ip, 0x401000);
	assert_int_equal(r.sample.pid, 42);
	assert_int_equal(r.sample.tid, 43);
	assert_int_equal(r.sample.time, 1000);
	assert_int_equal(r.sample.addr, 0x7f0000001234);
	assert_int_equal(r.sample.cpu, 1);
	assert_int_equal(r.sample.weight, 77);
	assert_int_equal(r.sample.weight_var2, 5);
	assert_int_equal(r.sample.data_src, 0x1234567);
	assert_int_equal(r.sample.phys_addr, 0x80003000);
	assert_int_equal(r.sample.present, HW_MASK);
	/* a different format does not add up: bytes left over */
	f.sample_type &= ~PERF_SAMPLE_PHYS_ADDR;
	assert_int_equal(perf_rec_decode(&b.h, b.len, &f, &r), -EBADMSG);
	/* and a format asking for more is short */
	f.sample_type = HW_MASK | PERF_SAMPLE_PERIOD;
	assert_int_equal(perf_rec_decode(&b.h, b.len, &f, &r), -EBADMSG);
	/* len must be the header's size */
	f.sample_type = HW_MASK;
	assert_int_equal(perf_rec_decode(&b.h, b.len - 8, &f, &r), -EINVAL);
}

/* A tracepoint sample (DAMON's damon_aggregated): RAW after the fixed
 * fields, size padded so the record stays aligned. */
static void test_raw_tracepoint(void **state)
{
	struct perf_rec_format f = {
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_RAW,
	};
	static const uint8_t payload[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					     11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	struct rec_build b;
	struct perf_rec r;

	rb_init(&b, PERF_RECORD_SAMPLE);
	rb_32x2(&b, 7, 8);
	rb_64(&b, 99);
	rb_32x2(&b, 3, 0);
	rb_raw(&b, payload, sizeof(payload));
	assert_int_equal(perf_rec_decode(rb_done(&b), b.len, &f, &r), 0);
	assert_int_equal(r.sample.raw_size, 20);
	assert_memory_equal(r.sample.raw, payload, 20);
	assert_int_equal(r.sample.cpu, 3);
	assert_int_equal(r.sample.time, 99);
	/* a RAW size past the end */
	memcpy(b.b + 8 + 24, &(uint32_t){ 4000 }, 4);
	assert_int_equal(perf_rec_decode(&b.h, b.len, &f, &r), -EBADMSG);
}

/* The variable fields between the ones pghotd reads are skipped exactly:
 * READ (group), CALLCHAIN, BRANCH_STACK with hw_idx, REGS_USER,
 * STACK_USER, REGS_INTR, then DATA_SRC and PHYS_ADDR must be right. */
static void test_variable_fields(void **state)
{
	struct perf_rec_format f = {
		.sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_READ |
			       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK |
			       PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			       PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			       PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |
			       PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_AUX,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			       PERF_FORMAT_TOTAL_TIME_ENABLED,
		.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_regs_user = 0x7,	/* 3 registers */
		.sample_regs_intr = 0x3,
	};
	struct rec_build b;
	struct perf_rec r;

	rb_init(&b, PERF_RECORD_SAMPLE);
	rb_64(&b, 0xabc000);			/* addr */
	rb_64(&b, 2);				/* read: nr */
	rb_64(&b, 1000);			/*   time_enabled */
	for (int i = 0; i < 4; i++)		/*   {value, id} x 2 */
		rb_64(&b, (uint64_t)i);
	rb_64(&b, 3);				/* callchain nr */
	for (int i = 0; i < 3; i++)
		rb_64(&b, 0xffff0000u + (uint64_t)i);
	rb_64(&b, 2);				/* branch nr */
	rb_64(&b, 5);				/* hw_idx */
	for (int i = 0; i < 6; i++)
		rb_64(&b, (uint64_t)i);
	rb_64(&b, 2);				/* regs_user abi */
	for (int i = 0; i < 3; i++)
		rb_64(&b, (uint64_t)i);
	rb_64(&b, 16);				/* stack size */
	rb_64(&b, 0);
	rb_64(&b, 0);
	rb_64(&b, 16);				/* dyn_size */
	rb_64(&b, 300);				/* weight */
	rb_64(&b, 0x55);			/* data_src */
	rb_64(&b, 0);				/* regs_intr abi NONE: no regs */
	rb_64(&b, 0x9000);			/* phys_addr */
	rb_64(&b, 4096);			/* data_page_size */
	rb_64(&b, 8);				/* aux size */
	rb_64(&b, 0);
	assert_int_equal(perf_rec_decode(rb_done(&b), b.len, &f, &r), 0);
	assert_int_equal(r.sample.addr, 0xabc000);
	assert_int_equal(r.sample.callchain_nr, 3);
	assert_int_equal(r.sample.callchain[2], 0xffff0002u);
	assert_int_equal(r.sample.weight, 300);
	assert_int_equal(r.sample.data_src, 0x55);
	assert_int_equal(r.sample.phys_addr, 0x9000);
	assert_int_equal(r.sample.data_page_size, 4096);
	/* a callchain nr that cannot fit */
	memcpy(b.b + 8 + 8 + 8 + 8 + 32, &(uint64_t){ 1ULL << 60 }, 8);
	assert_int_equal(perf_rec_decode(&b.h, b.len, &f, &r), -EBADMSG);
}

static void test_every_record_type(void **state)
{
	struct perf_rec_format f = { .sample_type = HW_MASK };
	struct perf_rec_counts c = { 0 };
	const struct perf_event_header *h;
	struct rec_build b;
	struct synth s;
	struct perf_rec r;
	size_t len;
	int n = 0;

	synth_new(&s, 4096);
	rb_hw_sample(&b, 1, 2, 2, 3, 0x1000, 0, 0, 0x2000, 0);
	put(&s, &b);
	rb_init(&b, PERF_RECORD_LOST);
	rb_64(&b, 1);
	rb_64(&b, 17);
	put(&s, &b);
	rb_init(&b, PERF_RECORD_LOST_SAMPLES);
	rb_64(&b, 5);
	put(&s, &b);
	rb_init(&b, PERF_RECORD_THROTTLE);
	rb_64(&b, 111);
	rb_64(&b, 1);
	rb_64(&b, 1);
	put(&s, &b);
	rb_init(&b, PERF_RECORD_UNTHROTTLE);
	rb_64(&b, 222);
	rb_64(&b, 1);
	rb_64(&b, 1);
	put(&s, &b);
	rb_init(&b, PERF_RECORD_MMAP2);
	rb_64(&b, 0);
	put(&s, &b);
	rb_init(&b, 4242);		/* unknown type */
	rb_64(&b, 0);
	rb_64(&b, 0);
	put(&s, &b);
	rb_init(&b, PERF_RECORD_LOST);	/* truncated: no lost field */
	rb_64(&b, 1);
	put(&s, &b);
	rb_init(&b, PERF_RECORD_SAMPLE);	/* truncated sample */
	rb_64(&b, 1);
	put(&s, &b);

	assert_true(perf_ring_begin(&s.ring) > 0);
	while ((h = perf_ring_next(&s.ring, &len))) {
		int err = perf_rec_decode(h, len, &f, &r);

		perf_rec_count(&c, &r, err);
		if (!err && r.kind == PERF_REC_THROTTLE)
			assert_int_equal(r.time, 111);
		n++;
	}
	perf_ring_end(&s.ring);
	assert_int_equal(n, 9);
	assert_int_equal(c.samples, 1);
	assert_int_equal(c.lost_records, 1);
	assert_int_equal(c.lost, 17);
	assert_int_equal(c.lost_samples_records, 1);
	assert_int_equal(c.lost_samples, 5);
	assert_int_equal(c.throttle, 1);
	assert_int_equal(c.unthrottle, 1);
	assert_int_equal(c.other, 1);
	assert_int_equal(c.unknown, 1);
	assert_int_equal(c.malformed, 2);
	assert_int_equal(s.meta.data_tail, s.meta.data_head);
	assert_int_equal(perf_ring_stats(&s.ring)->corrupt, 0);
	synth_free(&s);
}

/* Records of every size cross the end of a small ring many times; each
 * comes out whole and in order. */
static void test_wrap_around(void **state)
{
	struct perf_rec_format f = { .sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_RAW };
	const struct perf_event_header *h;
	uint8_t payload[200];
	uint64_t seq_in = 0, seq_out = 0;
	struct rec_build b;
	struct synth s;
	struct perf_rec r;
	size_t len;

	synth_new(&s, 256);
	for (int round = 0; round < 2000; round++) {
		/* a few records of 24..216 bytes, as many as fit */
		for (;;) {
			uint32_t psize = (uint32_t)((seq_in * 37) % 190);

			memset(payload, (int)(seq_in & 0xff), sizeof(payload));
			rb_init(&b, PERF_RECORD_SAMPLE);
			rb_64(&b, seq_in);
			rb_raw(&b, payload, psize);
			if (perf_ring_write(&s.ring, rb_done(&b)) == -ENOSPC)
				break;
			seq_in++;
		}
		perf_ring_begin(&s.ring);
		while ((h = perf_ring_next(&s.ring, &len))) {
			assert_int_equal(perf_rec_decode(h, len, &f, &r), 0);
			assert_int_equal(r.sample.addr, seq_out);
			assert_true(r.sample.raw_size >= (seq_out * 37) % 190);
			for (uint32_t i = 0; i < (seq_out * 37) % 190; i++)
				assert_int_equal(r.sample.raw[i], seq_out & 0xff);
			seq_out++;
		}
		perf_ring_end(&s.ring);
	}
	assert_int_equal(seq_in, seq_out);
	assert_true(seq_in > 1000);
	assert_true(perf_ring_stats(&s.ring)->wrapped > 100);
	assert_int_equal(perf_ring_stats(&s.ring)->corrupt, 0);
	synth_free(&s);
}

static void test_full_ring(void **state)
{
	struct rec_build b;
	struct synth s;
	int n = 0;

	synth_new(&s, 256);
	rb_init(&b, PERF_RECORD_LOST_SAMPLES);
	rb_64(&b, 1);
	rb_64(&b, 2);
	rb_64(&b, 3);	/* 32 bytes: 8 fit */
	while (perf_ring_write(&s.ring, rb_done(&b)) == 0)
		n++;
	assert_int_equal(n, 8);
	/* a bad size is refused by the writer */
	b.h.size = 12;
	assert_int_equal(perf_ring_write(&s.ring, &b.h), -EINVAL);
	synth_free(&s);
}

/* Broken framing: each bad header.size skips what is left and counts it. */
static void test_corrupt_framing(void **state)
{
	static const uint16_t bad_sizes[] = { 0, 4, 12, 4096 };
	const struct perf_event_header *h;
	struct rec_build b;
	struct synth s;
	size_t len;

	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		int n = 0;

		synth_new(&s, 512);
		rb_init(&b, PERF_RECORD_LOST_SAMPLES);
		rb_64(&b, 1);
		put(&s, &b);
		put(&s, &b);
		put(&s, &b);
		/* break the second record's size in place */
		memcpy(s.data + 16 + 6, &bad_sizes[i], 2);
		perf_ring_begin(&s.ring);
		while ((h = perf_ring_next(&s.ring, &len)))
			n++;
		perf_ring_end(&s.ring);
		assert_int_equal(n, 1);
		assert_int_equal(perf_ring_stats(&s.ring)->corrupt, 1);
		assert_int_equal(perf_ring_stats(&s.ring)->bytes_skipped, 32);
		assert_int_equal(s.meta.data_tail, 48);
		synth_free(&s);
	}
	/* a head that ran more than a ring ahead of the tail */
	synth_new(&s, 256);
	s.meta.data_head = 4096;
	assert_int_equal(perf_ring_begin(&s.ring), 0);
	assert_int_equal(perf_ring_stats(&s.ring)->corrupt, 1);
	assert_null(perf_ring_next(&s.ring, &len));
	synth_free(&s);
	/* an unaligned head leaves a tail of less than a header */
	synth_new(&s, 256);
	s.meta.data_head = 4;
	perf_ring_begin(&s.ring);
	assert_null(perf_ring_next(&s.ring, &len));
	assert_int_equal(perf_ring_stats(&s.ring)->corrupt, 1);
	synth_free(&s);
}

static void test_attach_errors(void **state)
{
	struct perf_event_mmap_page meta = { 0 };
	struct perf_ring ring;
	uint8_t data[96];

	assert_int_equal(perf_ring_attach(&ring, &meta, data, 96), -EINVAL);
	assert_int_equal(perf_ring_attach(&ring, &meta, data, 4), -EINVAL);
	assert_int_equal(perf_ring_attach(&ring, NULL, data, 64), -EINVAL);
	assert_int_equal(perf_ring_map(&ring, -1, 3), -EINVAL);
	assert_true(perf_ring_map(&ring, -1, 4) < 0);
	perf_ring_unmap(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_fields),
		cmocka_unit_test(test_raw_tracepoint),
		cmocka_unit_test(test_variable_fields),
		cmocka_unit_test(test_every_record_type),
		cmocka_unit_test(test_wrap_around),
		cmocka_unit_test(test_full_ring),
		cmocka_unit_test(test_corrupt_framing),
		cmocka_unit_test(test_attach_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
