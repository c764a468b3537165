/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building perf records by hand for synthetic rings (tests, bench, fuzz
 * seeds): little-endian fields appended after a perf_event_header, padded
 * to 8 bytes by rb_done().
 */
#ifndef PGHOT_TESTS_REC_BUILD_H
#define PGHOT_TESTS_REC_BUILD_H

#include <stdint.h>
#include <string.h>

#include <linux/perf_event.h>

struct rec_build {
	union {
		struct perf_event_header h;
		uint8_t b[1024];
		uint64_t align;
	};
	size_t len;
};

static inline void rb_init(struct rec_build *rb, uint32_t type)
{
	memset(rb, 0, sizeof(*rb));
	rb->h.type = type;
	rb->len = sizeof(rb->h);
}

static inline void rb_bytes(struct rec_build *rb, const void *p, size_t n)
{
	if (rb->len + n > sizeof(rb->b))
		n = sizeof(rb->b) - rb->len;
	memcpy(rb->b + rb->len, p, n);
	rb->len += n;
}

static inline void rb_64(struct rec_build *rb, uint64_t v)
{
	rb_bytes(rb, &v, 8);
}

static inline void rb_32x2(struct rec_build *rb, uint32_t a, uint32_t b)
{
	rb_bytes(rb, &a, 4);
	rb_bytes(rb, &b, 4);
}

/* RAW: u32 size, data, padded so that size + 4 is a multiple of 8 (the
 * kernel's rule), the padding counted in size. */
static inline void rb_raw(struct rec_build *rb, const void *p, uint32_t n)
{
	uint32_t padded = (uint32_t)(((n + 4 + 7) & ~7u) - 4);

	rb_bytes(rb, &padded, 4);
	rb_bytes(rb, p, n);
	for (uint32_t i = n; i < padded && rb->len < sizeof(rb->b); i++)
		rb->b[rb->len++] = 0;
}

static inline const struct perf_event_header *rb_done(struct rec_build *rb)
{
	rb->len = (rb->len + 7) & ~(size_t)7;
	rb->h.size = (uint16_t)rb->len;
	return &rb->h;
}

/* A hardware sample with IP|TID|TIME|ADDR|CPU|WEIGHT_STRUCT|DATA_SRC|
 * PHYS_ADDR (the hwhint source's layout); WEIGHT_STRUCT var2_w = 5. */
static inline void rb_hw_sample(struct rec_build *rb, uint64_t ip, uint32_t pid,
				uint32_t tid, uint64_t time, uint64_t addr,
				uint32_t cpu, uint64_t data_src, uint64_t phys,
				uint32_t weight)
{
	rb_init(rb, PERF_RECORD_SAMPLE);
	rb_64(rb, ip);
	rb_32x2(rb, pid, tid);
	rb_64(rb, time);
	rb_64(rb, addr);
	rb_32x2(rb, cpu, 0);
	rb_64(rb, (uint64_t)weight | (5ULL << 32));
	rb_64(rb, data_src);
	rb_64(rb, phys);
	rb_done(rb);
}

#endif
