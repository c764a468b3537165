// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf_ring: reading a perf mmap ring and decoding its records (perf_ring.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux/perf_ring.h"

/* Newer than the uapi headers of some distributions. */
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1ULL << 19)	/* Linux 6.8 */
#endif
#define PERF_RECORD_KNOWN_LAST 22	/* PERF_RECORD_CALLCHAIN_DEFERRED */

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int ring_init(struct perf_ring *ring, struct perf_event_mmap_page *meta,
		     void *data, uint64_t size)
{
	if (!is_pow2(size) || size < 8)
		return -EINVAL;
	ring->scratch = malloc(PERF_REC_MAX);
	if (!ring->scratch)
		return -ENOMEM;
	ring->meta = meta;
	ring->data = data;
	ring->size = size;
	ring->tail = __atomic_load_n(&meta->data_tail, __ATOMIC_RELAXED);
	ring->head = ring->tail;
	return 0;
}

int perf_ring_map(struct perf_ring *ring, int fd, unsigned int data_pages)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *meta;
	uint64_t off, size;
	size_t len;
	void *map;
	int err;

	memset(ring, 0, sizeof(*ring));
	if (page <= 0 || !is_pow2(data_pages))
		return -EINVAL;
	len = (size_t)(data_pages + 1) * (size_t)page;
	/* read-write: the kernel honours data_tail (no overwrite mode) */
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	meta = map;
	/* data_offset/data_size exist since Linux 4.1; zero before */
	off = meta->data_offset ? meta->data_offset : (uint64_t)page;
	size = meta->data_size ? meta->data_size : (uint64_t)data_pages * (uint64_t)page;
	if (off + size > len) {
		munmap(map, len);
		return -EINVAL;
	}
	err = ring_init(ring, meta, (uint8_t *)map + off, size);
	if (err) {
		munmap(map, len);
		return err;
	}
	ring->map = map;
	ring->map_len = len;
	return 0;
}

int perf_ring_attach(struct perf_ring *ring, struct perf_event_mmap_page *meta,
		     void *data, uint64_t size)
{
	memset(ring, 0, sizeof(*ring));
	if (!meta || !data)
		return -EINVAL;
	return ring_init(ring, meta, data, size);
}

void perf_ring_unmap(struct perf_ring *ring)
{
	if (ring->map)
		munmap(ring->map, ring->map_len);
	free(ring->scratch);
	memset(ring, 0, sizeof(*ring));
}

/* Give up on the rest of the snapshot: the framing cannot be trusted. */
static void skip_to_head(struct perf_ring *ring)
{
	ring->st.corrupt++;
	ring->st.bytes_skipped += ring->head - ring->tail;
	ring->tail = ring->head;
}

uint64_t perf_ring_begin(struct perf_ring *ring)
{
	ring->head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
	/* head below tail, or more unread than the ring holds: not a ring
	 * the kernel wrote; start over from head */
	if (ring->head - ring->tail > ring->size)
		skip_to_head(ring);
	return ring->head - ring->tail;
}

const struct perf_event_header *perf_ring_next(struct perf_ring *ring,
					       size_t *ret_len)
{
	uint64_t avail = ring->head - ring->tail;
	uint64_t mask = ring->size - 1, off = ring->tail & mask;
	const struct perf_event_header *h;
	size_t len, first;

	if (!avail)
		return NULL;
	if (avail < sizeof(*h) || (off & 7)) {
		skip_to_head(ring);
		return NULL;
	}
	/* an aligned 8-byte header never straddles the end (size is a power
	 * of two >= 8) */
	h = (const struct perf_event_header *)(ring->data + off);
	len = h->size;
	if (len < sizeof(*h) || (len & 7) || len > avail) {
		skip_to_head(ring);
		return NULL;
	}
	ring->tail += len;
	ring->st.records++;
	*ret_len = len;
	if (off + len <= ring->size)
		return h;
	first = (size_t)(ring->size - off);
	memcpy(ring->scratch, ring->data + off, first);
	memcpy(ring->scratch + first, ring->data, len - first);
	ring->st.wrapped++;
	return (const struct perf_event_header *)ring->scratch;
}

void perf_ring_end(struct perf_ring *ring)
{
	__atomic_store_n(&ring->meta->data_tail, ring->tail, __ATOMIC_RELEASE);
}

int perf_ring_write(struct perf_ring *ring, const struct perf_event_header *rec)
{
	uint64_t head = ring->meta->data_head;
	uint64_t tail = __atomic_load_n(&ring->meta->data_tail, __ATOMIC_ACQUIRE);
	uint64_t off = head & (ring->size - 1);
	size_t len = rec->size, first;

	if (len < sizeof(*rec) || (len & 7) || len > ring->size)
		return -EINVAL;
	if (ring->size - (head - tail) < len)
		return -ENOSPC;
	first = off + len <= ring->size ? len : (size_t)(ring->size - off);
	memcpy(ring->data + off, rec, first);
	memcpy(ring->data, (const uint8_t *)rec + first, len - first);
	__atomic_store_n(&ring->meta->data_head, head + len, __ATOMIC_RELEASE);
	return 0;
}

/* ---- decoding ----------------------------------------------------------- */

void perf_rec_format_from_attr(const struct perf_event_attr *attr,
			       struct perf_rec_format *ret)
{
	ret->sample_type = attr->sample_type;
	ret->read_format = attr->read_format;
	ret->branch_sample_type = attr->branch_sample_type;
	ret->sample_regs_user = attr->sample_regs_user;
	ret->sample_regs_intr = attr->sample_regs_intr;
}

/* A cursor over the bytes of one record. */
struct cur {
	const uint8_t *p, *end;
};

static inline int get64(struct cur *c, uint64_t *v)
{
	if ((size_t)(c->end - c->p) < 8)
		return -EBADMSG;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

static inline int get32x2(struct cur *c, uint32_t *a, uint32_t *b)
{
	if ((size_t)(c->end - c->p) < 8)
		return -EBADMSG;
	memcpy(a, c->p, 4);
	memcpy(b, c->p + 4, 4);
	c->p += 8;
	return 0;
}

/* Skip @n items of @sz bytes, without trusting @n. */
static inline int skip(struct cur *c, uint64_t n, size_t sz)
{
	if (n > (uint64_t)(c->end - c->p) / sz)
		return -EBADMSG;
	c->p += n * sz;
	return 0;
}

static int skip_read(struct cur *c, uint64_t rf)
{
	uint64_t nr, per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (!(rf & PERF_FORMAT_GROUP))
		return skip(c, per + times, 8);
	if (get64(c, &nr) || skip(c, times, 8) || nr > UINT32_MAX)
		return -EBADMSG;
	return skip(c, nr * per, 8);
}

static int skip_branch_stack(struct cur *c, uint64_t bst)
{
	uint64_t nr;

	if (get64(c, &nr))
		return -EBADMSG;
	if ((bst & PERF_SAMPLE_BRANCH_HW_INDEX) && skip(c, 1, 8))
		return -EBADMSG;
	if (nr > UINT32_MAX || skip(c, nr * 3, 8))	/* from, to, flags */
		return -EBADMSG;
	return bst & PERF_SAMPLE_BRANCH_COUNTERS ? skip(c, nr, 8) : 0;
}

/* REGS_USER / REGS_INTR: abi, then one u64 per mask bit unless abi is
 * PERF_SAMPLE_REGS_ABI_NONE. */
static int skip_regs(struct cur *c, uint64_t mask)
{
	uint64_t abi;

	if (get64(c, &abi))
		return -EBADMSG;
	return abi ? skip(c, (uint64_t)__builtin_popcountll(mask), 8) : 0;
}

/* STACK_USER: size, data[size], dyn_size (absent when size is 0). */
static int skip_stack(struct cur *c)
{
	uint64_t size, dyn;

	if (get64(c, &size))
		return -EBADMSG;
	if (!size)
		return 0;
	if (skip(c, size, 1) || get64(c, &dyn))
		return -EBADMSG;
	return 0;
}

/* The fields after RAW, rarely used by pghotd but laid out all the same. */
static int decode_tail(struct cur *c, const struct perf_rec_format *f,
		       struct perf_rec_sample *s)
{
	uint64_t st = f->sample_type, v;

	if ((st & PERF_SAMPLE_BRANCH_STACK) && skip_branch_stack(c, f->branch_sample_type))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_REGS_USER) && skip_regs(c, f->sample_regs_user))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_STACK_USER) && skip_stack(c))
		return -EBADMSG;
	if (st & PERF_SAMPLE_WEIGHT_TYPE) {
		if (get64(c, &v))
			return -EBADMSG;
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			/* little endian: var1_dw, var2_w, var3_w */
			s->weight = (uint32_t)v;
			s->weight_var2 = (uint16_t)(v >> 32);
		} else {
			s->weight = v;
		}
	}
	if ((st & PERF_SAMPLE_DATA_SRC) && get64(c, &s->data_src))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_TRANSACTION) && get64(c, &s->transaction))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_REGS_INTR) && skip_regs(c, f->sample_regs_intr))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_PHYS_ADDR) && get64(c, &s->phys_addr))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_CGROUP) && get64(c, &s->cgroup))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) && get64(c, &s->data_page_size))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) && get64(c, &s->code_page_size))
		return -EBADMSG;
	/* AUX last, as perf_output_sample() writes it */
	if ((st & PERF_SAMPLE_AUX) && (get64(c, &v) || skip(c, v, 1)))
		return -EBADMSG;
	return 0;
}

static int decode_sample(struct cur *c, const struct perf_rec_format *f,
			 struct perf_rec_sample *s)
{
	uint64_t st = f->sample_type, v;
	uint32_t u;

	memset(s, 0, sizeof(*s));
	s->present = st;
	if ((st & PERF_SAMPLE_IDENTIFIER) && get64(c, &s->id))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_IP) && get64(c, &s->ip))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_TID) && get32x2(c, &s->pid, &s->tid))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_TIME) && get64(c, &s->time))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_ADDR) && get64(c, &s->addr))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_ID) && get64(c, &s->id))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_STREAM_ID) && get64(c, &s->stream_id))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_CPU) && get32x2(c, &s->cpu, &u))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_PERIOD) && get64(c, &s->period))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_READ) && skip_read(c, f->read_format))
		return -EBADMSG;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (get64(c, &v) || v > (uint64_t)(c->end - c->p) / 8)
			return -EBADMSG;
		s->callchain = (const uint64_t *)c->p;
		s->callchain_nr = v;
		c->p += v * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		if ((size_t)(c->end - c->p) < 4)
			return -EBADMSG;
		memcpy(&u, c->p, 4);
		c->p += 4;
		if (u > (size_t)(c->end - c->p))
			return -EBADMSG;
		s->raw = c->p;
		s->raw_size = u;
		c->p += u;
	}
	if (decode_tail(c, f, s))
		return -EBADMSG;
	/* a SAMPLE is exactly its fields: more bytes mean a wrong format */
	return c->p == c->end ? 0 : -EBADMSG;
}

int perf_rec_decode(const struct perf_event_header *h, size_t len,
		    const struct perf_rec_format *fmt, struct perf_rec *ret)
{
	struct cur c;
	uint64_t v;

	if (len < sizeof(*h) || len != h->size)
		return -EINVAL;
	c.p = (const uint8_t *)(h + 1);
	c.end = (const uint8_t *)h + len;
	ret->type = h->type;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		ret->kind = PERF_REC_SAMPLE;
		if (decode_sample(&c, fmt, &ret->sample))
			return -EBADMSG;
		ret->sample.misc = h->misc;
		return 0;
	case PERF_RECORD_LOST:		/* id, lost, sample_id */
		ret->kind = PERF_REC_LOST;
		return get64(&c, &v) || get64(&c, &ret->lost) ? -EBADMSG : 0;
	case PERF_RECORD_LOST_SAMPLES:	/* lost, sample_id */
		ret->kind = PERF_REC_LOST_SAMPLES;
		return get64(&c, &ret->lost);
	case PERF_RECORD_THROTTLE:	/* time, id, stream_id, sample_id */
	case PERF_RECORD_UNTHROTTLE:
		ret->kind = h->type == PERF_RECORD_THROTTLE ? PERF_REC_THROTTLE :
							      PERF_REC_UNTHROTTLE;
		if (get64(&c, &ret->time) || skip(&c, 2, 8))
			return -EBADMSG;
		return 0;
	default:
		ret->kind = h->type >= 1 && h->type <= PERF_RECORD_KNOWN_LAST ?
			    PERF_REC_OTHER : PERF_REC_UNKNOWN;
		return 0;
	}
}

void perf_rec_count(struct perf_rec_counts *c, const struct perf_rec *rec,
		    int err)
{
	if (err < 0) {
		c->malformed++;
		return;
	}
	switch (rec->kind) {
	case PERF_REC_SAMPLE:
		c->samples++;
		break;
	case PERF_REC_LOST:
		c->lost_records++;
		c->lost += rec->lost;
		break;
	case PERF_REC_LOST_SAMPLES:
		c->lost_samples_records++;
		c->lost_samples += rec->lost;
		break;
	case PERF_REC_THROTTLE:
		c->throttle++;
		break;
	case PERF_REC_UNTHROTTLE:
		c->unthrottle++;
		break;
	case PERF_REC_OTHER:
		c->other++;
		break;
	default:
		c->unknown++;
		break;
	}
}
