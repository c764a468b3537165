/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_ring: the reader of a perf_event mmap ring and the decoder of the
 * records in it, for every user of perf_event_open() in pghotd (the hwhint
 * source's hardware samples, DAMON's damon:damon_aggregated tracepoint).
 *
 * The ring (perf_event_open(2), "MMAP layout"; include/uapi/linux/
 * perf_event.h): one metadata page (struct perf_event_mmap_page) followed
 * by 2^n data pages. The kernel appends records at data_head, which only
 * grows; the reader consumes up to data_tail. Protocol of
 * tools/include/linux/ring_buffer.h: load data_head with acquire, read the
 * records, store data_tail with release. Mapped read-write, the kernel never
 * overwrites unread data: it drops records and later writes a
 * PERF_RECORD_LOST record saying how many.
 *
 * Trust: nothing in the ring is believed without a check. A record's
 * header.size must be >= 8, a multiple of 8 and no more than the bytes
 * between tail and head; every length inside a record (RAW size, callchain
 * nr, stack size, ...) is bounded by the bytes left in the record. A ring
 * whose framing is broken (a bad header.size) cannot be resynchronised:
 * everything up to head is skipped and counted.
 *
 * Threads: one reader per ring. Decoding is pure: perf_rec_decode() and
 * friends touch only their arguments.
 */
#ifndef PGHOT_LINUX_PERF_RING_H
#define PGHOT_LINUX_PERF_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* Longest record: header.size is 16 bits. */
#define PERF_REC_MAX 65536u

/* Counters of the framing (perf_ring) and of decoding (perf_rec_count()).
 * Names follow the record types of include/uapi/linux/perf_event.h. */
struct perf_ring_stats {
	uint64_t records;	/* records handed out by perf_ring_next() */
	uint64_t wrapped;	/* of those, copied out because they
				 * straddled the end of the data area */
	uint64_t corrupt;	/* framing breaks: header.size < 8, not a
				 * multiple of 8, or beyond head */
	uint64_t bytes_skipped;	/* bytes dropped after a framing break */
};

/* A mapped (or, for tests, synthetic) ring. Fields are private. */
struct perf_ring {
	struct perf_event_mmap_page *meta;
	uint8_t *data;		/* data area */
	uint64_t size;		/* bytes of the data area, a power of two */
	uint64_t head;		/* snapshot of data_head (perf_ring_begin) */
	uint64_t tail;		/* next unread byte */
	void *map;		/* mmap()ed region, or NULL (attached) */
	size_t map_len;
	uint8_t *scratch;	/* PERF_REC_MAX bytes for wrapped records */
	struct perf_ring_stats st;
};

/**
 * perf_ring_map() - map the ring of perf event @fd.
 * @ring:       to fill; zeroed first.
 * @fd:         a perf_event_open() descriptor (a sampling event).
 * @data_pages: pages of the data area, a power of two >= 1. The whole map
 *              counts against perf_event_mlock_kb (516 KiB per user by
 *              default; CAP_IPC_LOCK or CAP_PERFMON lift it).
 *
 * Return: 0; -EINVAL (@data_pages not a power of two, or the kernel's
 * data_size is not one); -ENOMEM; the errno of mmap(): -EPERM when the
 * mlock limit is exceeded, -EINVAL when the event cannot have a ring.
 */
int perf_ring_map(struct perf_ring *ring, int fd, unsigned int data_pages);

/**
 * perf_ring_attach() - use memory the caller owns as a ring (synthetic rings
 * of tests, the benchmark and the fuzzer). @meta stays the caller's; its
 * data_head and data_tail are the protocol's. @data: @size bytes, a power
 * of two >= 8, borrowed for the ring's life.
 * Return: 0, -EINVAL, -ENOMEM (the scratch buffer).
 */
int perf_ring_attach(struct perf_ring *ring, struct perf_event_mmap_page *meta,
		     void *data, uint64_t size);

/** perf_ring_unmap() - unmap (or detach) and free. Safe on a zeroed ring. */
void perf_ring_unmap(struct perf_ring *ring);

/**
 * perf_ring_begin() - snapshot data_head (acquire) to read up to it.
 * Return: bytes available to read.
 */
uint64_t perf_ring_begin(struct perf_ring *ring);

/**
 * perf_ring_next() - the next record before the snapshot head.
 * @ret_len: receives the record's length in bytes (header included).
 *
 * Return: the record (8-byte aligned, valid until the next call or
 * perf_ring_end()), or NULL when the snapshot is consumed. A framing break
 * skips to head and returns NULL (counted in stats.corrupt).
 */
const struct perf_event_header *perf_ring_next(struct perf_ring *ring,
					       size_t *ret_len);

/** perf_ring_end() - publish what was read (data_tail, release), so the
 * kernel may reuse the space. */
void perf_ring_end(struct perf_ring *ring);

/** perf_ring_stats() - the framing counters. */
static inline const struct perf_ring_stats *
perf_ring_stats(const struct perf_ring *ring)
{
	return &ring->st;
}

/**
 * perf_ring_write() - append one record as the kernel would (data first,
 * then data_head with release), for synthetic rings: tests, the benchmark,
 * the fuzzer. @rec: header.size bytes; header.size must be a multiple of 8.
 * Return: 0, -ENOSPC if the unread data leaves no room (the kernel would
 * drop it and count it as lost), -EINVAL if header.size is bad.
 */
int perf_ring_write(struct perf_ring *ring, const struct perf_event_header *rec);

/* ---- decoding ----------------------------------------------------------- */

/* What the decoder needs of the attr: the layout of a PERF_RECORD_SAMPLE
 * follows from these fields (perf_output_sample() in kernel/events/core.c
 * writes them in this order). */
struct perf_rec_format {
	uint64_t sample_type;		/* PERF_SAMPLE_* */
	uint64_t read_format;		/* PERF_FORMAT_*, for PERF_SAMPLE_READ */
	uint64_t branch_sample_type;	/* for PERF_SAMPLE_BRANCH_STACK */
	uint64_t sample_regs_user;	/* masks: one u64 per bit set */
	uint64_t sample_regs_intr;
};

/** perf_rec_format_from_attr() - the decoder's view of @attr. */
void perf_rec_format_from_attr(const struct perf_event_attr *attr,
			       struct perf_rec_format *ret);

/* A decoded PERF_RECORD_SAMPLE: the fields of sample_type that were
 * present (bit set in @present, same bits as PERF_SAMPLE_*), pointers into
 * the record for the variable ones (valid while the record is). */
struct perf_rec_sample {
	uint64_t present;
	uint16_t misc;			/* header.misc */
	uint64_t id;			/* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;			/* perf clock, ns */
	uint64_t addr;			/* virtual data address */
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t weight;		/* WEIGHT, or WEIGHT_STRUCT's var1_dw
					 * (on x86 the load latency) */
	uint16_t weight_var2;		/* WEIGHT_STRUCT var2_w, else 0 */
	uint64_t data_src;		/* union perf_mem_data_src */
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;	/* bytes */
	uint64_t code_page_size;
	const uint64_t *callchain;	/* callchain_nr entries */
	uint64_t callchain_nr;
	const uint8_t *raw;		/* RAW payload (tracepoints: the
					 * event's fields), raw_size bytes */
	uint32_t raw_size;
};

/* Kinds of record perf_rec_decode() tells apart. */
enum perf_rec_kind {
	PERF_REC_SAMPLE = 0,
	PERF_REC_LOST,		/* PERF_RECORD_LOST: ring full */
	PERF_REC_LOST_SAMPLES,	/* PERF_RECORD_LOST_SAMPLES: the PMU dropped */
	PERF_REC_THROTTLE,	/* PERF_RECORD_THROTTLE */
	PERF_REC_UNTHROTTLE,	/* PERF_RECORD_UNTHROTTLE */
	PERF_REC_OTHER,		/* a known type the hwhint path ignores
				 * (MMAP, COMM, EXIT, FORK, ...) */
	PERF_REC_UNKNOWN,	/* a type this code does not know */
	PERF_REC_KIND_MAX,
};

/* A decoded record. */
struct perf_rec {
	enum perf_rec_kind kind;
	uint32_t type;			/* header.type */
	uint64_t lost;			/* LOST, LOST_SAMPLES: records lost */
	uint64_t time;			/* THROTTLE, UNTHROTTLE */
	struct perf_rec_sample sample;	/* SAMPLE */
};

/**
 * perf_rec_decode() - decode one record.
 * @h:   the record, @len bytes (as perf_ring_next() gives it); @len must
 *       equal h->size. 8-byte aligned.
 * @fmt: the layout of the event's samples.
 * @ret: filled on success; on error its contents are unspecified.
 *
 * Return: 0; -EBADMSG if the record is shorter than its fields (a size
 * that does not add up, a RAW or callchain length past the end, bytes left
 * over in a SAMPLE); -EINVAL for a bad @len.
 */
int perf_rec_decode(const struct perf_event_header *h, size_t len,
		    const struct perf_rec_format *fmt, struct perf_rec *ret);

/* Counters of decoded records (perf_rec_count()). */
struct perf_rec_counts {
	uint64_t samples;
	uint64_t lost_records;		/* PERF_RECORD_LOST records */
	uint64_t lost;			/* records they say were lost */
	uint64_t lost_samples_records;	/* PERF_RECORD_LOST_SAMPLES records */
	uint64_t lost_samples;		/* samples they say were lost */
	uint64_t throttle;		/* PERF_RECORD_THROTTLE */
	uint64_t unthrottle;		/* PERF_RECORD_UNTHROTTLE */
	uint64_t other;			/* known, ignored types */
	uint64_t unknown;		/* unknown types */
	uint64_t malformed;		/* perf_rec_decode() failed */
};

/** perf_rec_count() - account @rec (or, with @err < 0, a malformed one). */
void perf_rec_count(struct perf_rec_counts *c, const struct perf_rec *rec,
		    int err);

#endif /* PGHOT_LINUX_PERF_RING_H */
